import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodePacket, SwimCore, type Message, type MemberState } from '../src/index.js';
import { STATE_RANK } from '../src/members/merge.js';
import { introduce } from './harness/introduce.js';

const subjects = ['a', 'b', 'c', 'd'];
const senders = ['a', 'b', 'c', 'd', 'x', 'y'];

/** Updates as peers would gossip them; meta follows the incarnation, as only the member itself issues alive. */
const update: fc.Arbitrary<Message> = fc
  .record({
    kind: fc.constantFrom('alive', 'suspect', 'dead', 'left'),
    node: fc.constantFrom(...subjects),
    incarnation: fc.integer({ min: 1, max: 6 }),
    from: fc.constantFrom(...senders),
  })
  .map(({ kind, node, incarnation, from }): Message => {
    switch (kind) {
      case 'alive':
        return { type: 'alive', node, incarnation, address: `${node}:1`, meta: new Uint8Array([incarnation]) };
      case 'suspect':
        return { type: 'suspect', node, incarnation, from };
      case 'dead':
        return { type: 'dead', node, incarnation, from: from === node ? 'x' : from };
      default:
        return { type: 'dead', node, incarnation, from: node };
    }
  });

/** An observer that already knows every subject alive at incarnation 1. */
function observer(): SwimCore {
  const core = new SwimCore({ name: 'obs', address: 'obs:1', seed: 1, now: 0 });
  introduce(core, subjects.map((name) => ({ name, meta: new Uint8Array([1]) })), 0);
  core.tick(0);
  return core;
}

function view(core: SwimCore): Record<string, string> {
  return Object.fromEntries(subjects.map((s) => {
    const m = core.member(s)!;
    return [s, `${m.state}@${m.incarnation}`];
  }));
}

// All at one instant: no timer runs between updates, so only the merge rules decide.
describe('merge rules through the core (property)', () => {
  it('any permutation or duplication of a set of updates leads to the same view', () => {
    fc.assert(
      fc.property(
        fc.array(update, { minLength: 1, maxLength: 30 }).chain((updates) =>
          fc.tuple(
            fc.constant(updates),
            fc.shuffledSubarray(updates, { minLength: updates.length, maxLength: updates.length }),
            fc.array(fc.nat({ max: updates.length - 1 }), { maxLength: 10 }),
          ),
        ),
        ([updates, permuted, duplicates]) => {
          const once = observer();
          for (const u of updates) once.receivePacket('z:1', encodePacket([u]), 0);
          const again = observer();
          const replay = [...permuted, ...duplicates.map((i) => updates[i]!)];
          for (const u of replay) again.receivePacket('z:1', encodePacket([u]), 0);
          expect(view(again)).toEqual(view(once));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('incarnations never decrease and dead/left never become alive at the same incarnation', () => {
    fc.assert(
      fc.property(fc.array(update, { minLength: 1, maxLength: 40 }), (updates) => {
        const core = observer();
        let before = new Map(subjects.map((s) => [s, core.member(s)!]));
        for (const u of updates) {
          core.receivePacket('z:1', encodePacket([u]), 0);
          for (const s of subjects) {
            const was = before.get(s)!;
            const now = core.member(s)!;
            expect(now.incarnation).toBeGreaterThanOrEqual(was.incarnation);
            if ((was.state === 'dead' || was.state === 'left') && now.state === 'alive') {
              expect(now.incarnation).toBeGreaterThan(was.incarnation);
            }
            // Within one incarnation the state only moves up the order alive < suspect < dead < left.
            if (now.incarnation === was.incarnation) {
              expect(STATE_RANK[now.state as MemberState]).toBeGreaterThanOrEqual(STATE_RANK[was.state]);
            }
          }
          before = new Map(subjects.map((s) => [s, core.member(s)!]));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gossip about ourselves never changes our view of ourselves except upward by refutation', () => {
    fc.assert(
      fc.property(fc.array(update.map((u) => ({ ...u, node: 'obs' }) as Message), { maxLength: 20 }), (updates) => {
        const core = observer();
        let incarnation = core.incarnation;
        for (const u of updates) {
          if (u.type === 'alive') continue; // an alive about us from another address is a conflict, tested elsewhere
          core.receivePacket('z:1', encodePacket([u]), 0);
          expect(core.member('obs')!.state).toBe('alive');
          expect(core.incarnation).toBeGreaterThanOrEqual(incarnation);
          if ('incarnation' in u && u.incarnation >= incarnation) expect(core.incarnation).toBeGreaterThan(u.incarnation);
          incarnation = core.incarnation;
        }
      }),
      { numRuns: 200 },
    );
  });
});
