import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SHARED_STATES, sharedStates } from '../src/anti-entropy/shared-states.js';
import { MemberTable } from '../src/members/member-table.js';
import { MEMBER_STATES, type MemberState, type MemberView } from '../src/members/member.js';
import { createRng, swimCodec, SwimCore, type PreloadedMember, type WireCodec } from '../src/index.js';

/**
 * Push-pull states shared by the cores of one process (anti-entropy/shared-states.ts), found by
 * each table's content print (MemberTable.contentPrint).
 */

interface Entry {
  readonly name: string;
  readonly address: string;
  readonly meta: number;
  readonly incarnation: number;
  readonly state: MemberState;
}

const entry = fc.record({
  name: fc.constantFrom(...Array.from({ length: 12 }, (_, i) => `n${i}`)),
  address: fc.constantFrom('a:1', 'a:2', 'b:1'),
  meta: fc.integer({ min: 0, max: 2 }),
  incarnation: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant(2 ** 32 - 1)),
  state: fc.constantFrom(...MEMBER_STATES),
});

/** One table built from `entries` in order; a later entry for a name updates the one held. */
function tableOf(entries: readonly Entry[], seed: number): MemberTable {
  const table = new MemberTable(createRng(seed));
  for (const e of entries) {
    const meta = new Uint8Array([e.meta]);
    const id = table.idOf(e.name);
    if (id < 0) {
      table.add(e.name, e.address, meta, e.incarnation, e.state, 0);
      continue;
    }
    table.setIncarnation(id, e.incarnation);
    table.setState(id, e.state, 0);
    table.setMeta(id, meta);
    table.setAddress(id, e.address);
  }
  return table;
}

/** The last entry per name, in a shuffled order: the same content as `entries` reached. */
function finalContent(entries: readonly Entry[], order: number): Entry[] {
  const last = new Map<string, Entry>();
  for (const e of entries) last.set(e.name, e);
  const list = [...last.values()];
  const rng = createRng(order);
  for (let i = list.length - 1; i > 0; i--) {
    const j = rng.nextUint32() % (i + 1);
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

describe('MemberTable.contentPrint', () => {
  it('is the same for two tables that reach the same entries in any order, and differs when one entry differs', () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 2 }), (entries, order, change) => {
        const a = tableOf(entries, 1);
        const final = finalContent(entries, order);
        const b = tableOf(final, 2);
        expect(b.size).toBe(a.size);
        expect(b.contentPrint(false)).toEqual(a.contentPrint(false));
        // One entry otherwise: a newer incarnation, another state, or another meta.
        const first = final[0]!;
        const changed: Entry =
          change === 0
            ? { ...first, incarnation: (first.incarnation + 1) % 2 ** 32 }
            : change === 1
              ? { ...first, state: MEMBER_STATES[(MEMBER_STATES.indexOf(first.state) + 1) % MEMBER_STATES.length]! }
              : { ...first, meta: (first.meta + 1) % 3 };
        const c = tableOf([changed, ...final.slice(1)], 3);
        expect(c.contentPrint(false)).not.toEqual(a.contentPrint(false));
      }),
      { numRuns: 300 },
    );
  });

  it('comes back to what it was when a change is undone, and to zero when every member is reaped', () => {
    const table = new MemberTable(createRng(4));
    const empty = table.contentPrint(false);
    const x = table.add('x', 'x:1', new Uint8Array(0), 1, 'alive', 0);
    table.add('y', 'y:1', new Uint8Array(0), 1, 'alive', 0);
    const before = table.contentPrint(false);
    table.setIncarnation(x, 2);
    expect(table.contentPrint(false)).not.toEqual(before);
    table.setIncarnation(x, 1);
    expect(table.contentPrint(false)).toEqual(before);
    for (const id of [...table.all()]) table.setState(id, 'dead', 0);
    const reaped: MemberView[] = [];
    // The reap comes when a probe pass ends.
    for (let i = 0; i < 3; i++) table.nextProbeTarget(-1, 10_000, 1, reaped);
    expect(reaped).toHaveLength(2);
    expect(table.size).toBe(0);
    expect(table.contentPrint(false)).toEqual(empty);
  });
});

function countingCodec(): { codec: WireCodec; encodes: () => number } {
  let encodes = 0;
  return { codec: { ...swimCodec, encodeStream: (message) => (encodes++, swimCodec.encodeStream(message)) }, encodes: () => encodes };
}

const list = (n: number, incarnation = 0): PreloadedMember[] => Array.from({ length: n }, (_, i) => ({ name: `m${i}`, address: `m${i}:1`, incarnation }));

/** `core`'s periodic push-pull state: its answer to a third party's push-pull naming nobody. */
function stateOf(core: SwimCore, now: number): Uint8Array {
  const request = swimCodec.encodeStream({ type: 'push-pull', join: false, members: [], userState: new Uint8Array(0) });
  const reply = core.receiveStream(now + 1, 'x:1', request, now).find((e) => e.type === 'stream-reply');
  if (reply?.type !== 'stream-reply' || reply.bytes === undefined) throw new Error('no answer');
  return reply.bytes;
}

describe('push-pull states shared by the cores of a process', () => {
  it('a core holding the entries another encoded copies its bytes instead of sorting and encoding them', () => {
    const { codec, encodes } = countingCodec();
    // Same entries (each holds the other and m0..m49), different probe orders.
    const a = new SwimCore({ name: 'a', address: 'a:1', seed: 1, now: 0, codec });
    const b = new SwimCore({ name: 'b', address: 'b:1', seed: 2, now: 0, codec });
    a.preload([...list(50), { name: 'b', address: 'b:1', incarnation: b.incarnation }], 0);
    b.preload([...list(50), { name: 'a', address: 'a:1', incarnation: a.incarnation }], 0);
    const fromA = stateOf(a, 0);
    expect(encodes()).toBe(1);
    const fromB = stateOf(b, 0);
    expect(encodes()).toBe(1);
    expect(fromB).not.toBe(fromA);
    expect(Buffer.from(fromB).equals(Buffer.from(fromA))).toBe(true);
    // What b would have encoded itself (a codec of its own shares nothing).
    const own = countingCodec();
    const alone = new SwimCore({ name: 'b', address: 'b:1', seed: 2, now: 0, codec: own.codec });
    alone.preload([...list(50), { name: 'a', address: 'a:1', incarnation: a.incarnation }], 0);
    const encoded = stateOf(alone, 0);
    expect(own.encodes()).toBe(1);
    expect(Buffer.from(encoded).equals(Buffer.from(fromB))).toBe(true);
  });

  it('a core whose entries differ by one incarnation encodes its own, which shows the difference', () => {
    const { codec, encodes } = countingCodec();
    const a = new SwimCore({ name: 'a', address: 'a:1', seed: 1, now: 0, codec });
    const b = new SwimCore({ name: 'a', address: 'a:1', seed: 2, now: 0, codec });
    a.preload(list(30), 0);
    b.preload([...list(29), { name: 'm29', address: 'm29:1', incarnation: 1 }], 0);
    stateOf(a, 0);
    const fromB = swimCodec.decodeStream(stateOf(b, 0), { maxPushPullEntries: 100 });
    expect(encodes()).toBe(2);
    const m29 = fromB.ok && fromB.messages[0]!.type === 'push-pull' ? fromB.messages[0]!.members.find((m) => m.name === 'm29') : undefined;
    expect(m29?.incarnation).toBe(1);
  });

  it('a state with user state is never shared', () => {
    const { codec, encodes } = countingCodec();
    const cores = [1, 2].map((seed) => new SwimCore({ name: 'a', address: 'a:1', seed, now: 0, codec }));
    for (const core of cores) {
      core.preload(list(10), 0);
      core.step({ type: 'set-user-state', state: new Uint8Array([1]) }, 0);
      stateOf(core, 0);
    }
    expect(encodes()).toBe(2);
  });

  it(`keeps at most ${MAX_SHARED_STATES} states per codec`, () => {
    const { codec } = countingCodec();
    for (let i = 0; i < 3 * MAX_SHARED_STATES; i++) {
      const core = new SwimCore({ name: 'a', address: 'a:1', seed: i, now: 0, codec });
      core.preload(list(5, i), 0);
      stateOf(core, 0);
      expect(sharedStates(codec)).toBeLessThanOrEqual(MAX_SHARED_STATES);
    }
    expect(sharedStates(codec)).toBe(MAX_SHARED_STATES);
  });
});
