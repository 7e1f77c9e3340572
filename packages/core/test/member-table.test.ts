import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRng, encodePacket, type MemberView } from '../src/index.js';
import { hashKey, IdIndex } from '../src/members/id-index.js';
import { identityOf, MAX_SHARED_IDENTITIES, sharedIdentities } from '../src/members/identity.js';
import { MemberTable, NO_MEMBER } from '../src/members/member-table.js';
import { LoneCore } from './harness/lone-core.js';

/** `count` distinct keys `prefix<i>` whose hash has the same low `bits` bits: one home slot in any index up to 2^bits slots. */
function collidingKeys(prefix: string, count: number, bits: number): string[] {
  const mask = (1 << bits) - 1;
  const home = hashKey(`${prefix}0`) & mask;
  const keys: string[] = [];
  for (let i = 0; keys.length < count; i++) if ((hashKey(`${prefix}${i}`) & mask) === home) keys.push(`${prefix}${i}`);
  return keys;
}

/** A key column that counts the reads an index makes of it. */
function countingKeys(): { keys: string[]; reads: () => number; reset: () => void } {
  let reads = 0;
  const keys = new Proxy<string[]>([], {
    get(target, property, receiver) {
      if (typeof property === 'string' && /^\d+$/.test(property)) reads++;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  return { keys, reads: () => reads, reset: () => (reads = 0) };
}

describe('IdIndex', () => {
  it('agrees with a multimap model through inserts, removes and key changes (shared keys included)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('insert' as const), key: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('rekey' as const), pick: fc.nat(), key: fc.integer({ min: 0, max: 40 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const keys: string[] = [];
        const index = new IdIndex((id) => keys[id]!);
        const live: number[] = [];
        for (const o of ops) {
          if (o.kind === 'insert') {
            keys.push(`k${o.key}`);
            index.insert(keys.length - 1);
            live.push(keys.length - 1);
          } else if (live.length > 0) {
            const at = o.pick % live.length;
            const id = live[at]!;
            index.remove(id);
            if (o.kind === 'remove') live.splice(at, 1);
            else {
              keys[id] = `k${o.key}`;
              index.insert(id);
            }
          }
        }
        for (let k = 0; k <= 40; k++) {
          const key = `k${k}`;
          const expected = live.filter((id) => keys[id] === key).sort((a, b) => a - b);
          const found: number[] = [];
          index.some(key, (id) => (found.push(id), false));
          expect(found.sort((a, b) => a - b)).toEqual(expected);
          expect(index.find(key) === -1).toBe(expected.length === 0);
          if (expected.length > 0) expect(expected).toContain(index.find(key));
        }
      }),
    );
  });

  /** Slots a lookup may read, whatever the keys (MAX_PROBE in id-index.ts). */
  const PROBE_BOUND = 32;

  it('a flood of keys built to collide costs at most 32 slots per lookup (the rest goes to a Map)', () => {
    const { keys, reads, reset } = countingKeys();
    const index = new IdIndex((id) => keys[id]!);
    // 12 bits: one home slot in every index up to 4,096 slots (this one grows to 4,096).
    const forged = collidingKeys('forged-', 600, 12);
    const honest = Array.from({ length: 1500 }, (_, i) => `n${i}`);
    for (const key of [...forged, ...honest]) {
      keys.push(key);
      index.insert(keys.length - 1);
    }
    expect(index.overflowed).toBeGreaterThanOrEqual(forged.length - 2 * PROBE_BOUND);
    let worst = 0;
    for (const [id, key] of [...forged, ...honest].entries()) {
      reset();
      expect(index.find(key)).toBe(id);
      worst = Math.max(worst, reads());
    }
    for (const absent of [...collidingKeys('forged-', 700, 12).slice(600), 'nobody']) {
      reset();
      expect(index.find(absent)).toBe(-1);
      worst = Math.max(worst, reads());
    }
    expect(worst).toBeLessThanOrEqual(PROBE_BOUND);
    // Removing them all leaves the honest keys as they were.
    for (let id = 0; id < forged.length; id++) index.remove(id);
    for (const [i, key] of honest.entries()) expect(index.find(key)).toBe(forged.length + i);
    expect(index.find(forged[0]!)).toBe(-1);
  });
});

describe('IdIndex width', () => {
  it('finds ids past 65,534 (its slots widen from 16 to 32 bits)', () => {
    const keys = Array.from({ length: 70_000 }, (_, i) => `k${i}`);
    const index = new IdIndex((id) => keys[id]!);
    for (let id = 0; id < keys.length; id++) index.insert(id);
    for (let id = 0; id < keys.length; id += 7) expect(index.find(keys[id]!)).toBe(id);
    expect(index.find(keys[69_999]!)).toBe(69_999);
    index.remove(69_999);
    expect(index.find(keys[69_999]!)).toBe(-1);
  });
});

describe('MemberTable', () => {
  it('keeps names, addresses and the probe order right through adds, reaps and slot reuse', () => {
    const table = new MemberTable(createRng(3));
    const self = table.add('me', 'me:1', new Uint8Array(0), 1, 'alive', 0);
    const ids = Array.from({ length: 300 }, (_, i) => table.add(`m${i}`, `m${i}:1`, new Uint8Array([i & 0xff]), i + 1, 'alive', i));
    for (let i = 0; i < 300; i += 3) table.setState(ids[i]!, 'dead', 0);
    const reaped: MemberView[] = [];
    for (let i = 0; i < 400; i++) table.nextProbeTarget(self, 10_000, 100, reaped);
    expect(reaped.map((m) => m.name).sort()).toEqual(ids.filter((_, i) => i % 3 === 0).map((_, k) => `m${3 * k}`).sort());
    expect(table.size).toBe(1 + 200);
    // Reaped slots are reused by newcomers; the reaped names and addresses are gone.
    for (let i = 0; i < 100; i++) table.add(`new${i}`, `m${3 * i}:1`, new Uint8Array(0), 1, 'alive', 5);
    expect(table.size).toBe(301);
    for (let i = 0; i < 300; i++) {
      const id = table.idOf(`m${i}`);
      if (i % 3 === 0) expect(id).toBe(NO_MEMBER);
      else expect(table.view(id)).toEqual({ name: `m${i}`, address: `m${i}:1`, meta: new Uint8Array([i & 0xff]), incarnation: i + 1, state: 'alive', stateChangedAt: i });
    }
    for (let i = 0; i < 100; i++) expect(table.atAddress(`m${3 * i}:1`).map((id) => table.name(id))).toEqual([`new${i}`]);
    const order = [...table.all()].map((id) => table.name(id));
    expect(new Set(order).size).toBe(301);
  });
});

describe('MemberTable.countByState', () => {
  it('counts what the views show, through adds, state changes, incarnation bumps and reaps', () => {
    const state = fc.constantFrom('alive' as const, 'suspect' as const, 'dead' as const, 'left' as const);
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), state }),
      fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), state }),
      fc.record({ kind: fc.constant('bump' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('reap' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const table = new MemberTable(createRng(5));
        const self = table.add('me', 'me:1', new Uint8Array(0), 1, 'alive', 0);
        let added = 0;
        for (const o of ops) {
          const ids = [...table.all()];
          if (o.kind === 'add') table.add(`m${added}`, `m${added++}:1`, new Uint8Array(0), 7, o.state, 0);
          else if (o.kind === 'set') table.setState(ids[o.pick % ids.length]!, o.state, 1);
          else if (o.kind === 'bump') table.setIncarnation(ids[o.pick % ids.length]!, 1 + (o.pick % 1000));
          // A full probe pass past the reap delay releases every dead and left member.
          else for (let i = 0; i <= table.size; i++) table.nextProbeTarget(self, 10_000, 100, []);
          const expected = { alive: 0, suspect: 0, dead: 0, left: 0 };
          for (const id of table.all()) expected[table.view(id).state]++;
          expect(table.countByState()).toEqual(expected);
        }
      }),
    );
  });
});

describe('shared identities', () => {
  it('tables holding the same member share one meta, and a meta change gives a new identity', () => {
    const one = new MemberTable(createRng(1));
    const two = new MemberTable(createRng(2));
    const a = one.add('a', 'a:1', new Uint8Array([1, 2]), 1, 'alive', 0);
    const b = two.add('a', 'a:1', new Uint8Array([1, 2]), 1, 'alive', 0);
    expect(two.meta(b)).toBe(one.meta(a));
    two.setMeta(b, new Uint8Array([3]));
    expect(two.meta(b)).toEqual(new Uint8Array([3]));
    expect(one.meta(a)).toEqual(new Uint8Array([1, 2]));
    two.setAddress(b, 'a:2');
    expect([two.address(b), one.address(a)]).toEqual(['a:2', 'a:1']);
  });

  it('a flood of forged names holds the shared cache at its bound', () => {
    for (let i = 0; i < MAX_SHARED_IDENTITIES + 10_000; i++) identityOf(`forged-${i}`, 'evil:1', new Uint8Array(0));
    expect(sharedIdentities()).toBeLessThanOrEqual(MAX_SHARED_IDENTITIES);
    expect(sharedIdentities()).toBeGreaterThan(0);
  });
});

describe('forged names against the member table', () => {
  it('a member flooding names built to collide in the index fills the table only to maxMembers, and lookups stay exact', () => {
    const maxMembers = 256;
    const lone = new LoneCore({ maxMembers, maxPushPullEntries: maxMembers, maxNewMembersPerSource: 64 });
    lone.introduce('b', 'c');
    // 10 bits: one home slot in every index up to 1,024 slots (a table of 256 needs 512).
    const forged = collidingKeys('x', 1_000, 10);
    for (let round = 0; round < 40; round++) {
      const batch = forged.slice((round * 50) % forged.length, ((round * 50) % forged.length) + 50);
      lone.receive(
        'b:1',
        encodePacket(batch.map((node) => ({ type: 'alive', incarnation: 1, node, address: `${node}:1`, meta: new Uint8Array(0) }))),
      );
      lone.advance(lone.now + 1_000);
    }
    const members = lone.core.allMembers();
    expect(members.length).toBeLessThanOrEqual(maxMembers);
    expect(lone.core.counters.membersRefused).toBeGreaterThan(0);
    for (const m of members) expect(lone.core.member(m.name)?.name).toBe(m.name);
    expect(lone.core.member('b')?.address).toBe('b:1');
    expect(lone.core.member(forged[999]!)).toBeUndefined();
  });
});
