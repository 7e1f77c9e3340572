// Property: whatever node and tag filters a query carries, exactly the members they select ack it
// and answer it, each once (serf handleQuery: filters, then ack, then deliver). The cluster runs on
// virtual time; fast-check prints the counterexample and its seed, the world its own seed.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Member } from '../../src/index.js';
import { SEED, type World } from '../world.js';
import { cluster, collect, from } from './query-world.js';

const ROLES = ['web', 'db', 'cache'] as const;
const tagsOf = (name: string) => ({ role: ROLES[Number(name.slice(1)) % 3]!, rack: `r${Number(name.slice(1)) % 2}` });
/** Expressions with their meaning, checked by hand: unanchored as Go's MatchString. */
const EXPRESSIONS: ReadonlyArray<readonly [string, (value: string) => boolean]> = [
  ['^web$', (v) => v === 'web'],
  ['b', (v) => v.includes('b')],
  ['^(db|cache)$', (v) => v === 'db' || v === 'cache'],
  ['', () => true],
  ['x', (v) => v.includes('x')],
  ['r1', (v) => v === 'r1'],
  ['^r', (v) => v.startsWith('r')],
];

let w: World;
let members: Member[];
beforeAll(async () => {
  const c = await cluster(6, { tags: tagsOf });
  w = c.w;
  members = c.members;
  for (const m of members) m.handleQuery('*', () => m.name);
}, 60_000);
afterAll(() => w.close());

describe(`query filters (property, seed ${SEED})`, () => {
  it('exactly the members the filters select ack and respond, each once', async () => {
    const names = ['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'other'];
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 5 }),
        fc.option(fc.subarray(names), { nil: undefined }),
        fc.dictionary(fc.constantFrom('role', 'rack', 'missing'), fc.nat({ max: EXPRESSIONS.length - 1 }), { maxKeys: 2 }),
        async (asker, nodes, tagIndexes) => {
          const filterTags = Object.fromEntries(Object.entries(tagIndexes).map(([tag, i]) => [tag, EXPRESSIONS[i]![0]]));
          const selected = members
            .filter((m) => nodes === undefined || nodes.length === 0 || nodes.includes(m.name))
            .filter((m) =>
              Object.entries(tagIndexes).every(([tag, i]) => EXPRESSIONS[i]![1]((tagsOf(m.name) as Record<string, string>)[tag] ?? '')),
            )
            .map((m) => m.name)
            .sort();
          const replies = await collect(w, members[asker]!.query('q', undefined, { ...(nodes === undefined ? {} : { filterNodes: nodes }), filterTags, requestAck: true, timeoutMs: 400 }));
          expect(from(replies, 'ack')).toEqual(selected);
          expect(from(replies, 'response')).toEqual(selected);
        },
      ),
      { numRuns: 25 },
    );
  });
});
