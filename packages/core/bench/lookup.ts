/**
 * Member lookups by name at random across many tables, as a simulated join storm makes them: each
 * packet reaches a member whose table is cold. Compares the member table's index (IdIndex, then
 * the row and the identity), a process-shared name → dense id Map with per-table arrays indexed by
 * that id (no per-table index; rows by that id, or a per-table array of slots by it: the form a
 * shared registry would take, tried in a join storm, docs/design.md "What bounds a join storm"),
 * and a Map of record objects per table (the table before).
 * Run: cd packages/core && node --import tsx bench/lookup.ts [--tables 1000] [--names 1000]
 */
import { parseArgs } from 'node:util';
import { hashKey, IdIndex } from '../src/members/id-index.js';

const { values } = parseArgs({ options: { tables: { type: 'string', default: '1000' }, names: { type: 'string', default: '1000' } } });
const T = Number(values.tables);
const N = Number(values.names);
const LOOKUPS = 5_000_000;
const names = Array.from({ length: N }, (_, i) => `n${i}`);
const identities = names.map((name) => ({ name, address: `${name}:1`, meta: new Uint8Array(0) }));
const shuffled = <X>(items: X[]): X[] => items.map((x) => [Math.random(), x] as const).sort((a, b) => a[0] - b[0]).map(([, x]) => x);

const indexed = Array.from({ length: T }, () => {
  const held = shuffled(identities);
  const index = new IdIndex((id) => held[id]!.name);
  for (let id = 0; id < N; id++) index.insert(id);
  return { index, identities: held, rows: new Float64Array(N * 3).fill(8) };
});
const registry = new Map(names.map((name, id) => [name, id]));
const slotsByDenseId = Array.from({ length: T }, () => {
  const held = shuffled(identities);
  const slotOf = new Uint16Array(N);
  held.forEach((identity, slot) => (slotOf[registry.get(identity.name)!] = slot + 1));
  return { slotOf, identities: held, rows: new Float64Array(N * 3).fill(8) };
});
const byDenseId = Array.from({ length: T }, () => ({ identities: identities.slice(), rows: new Float64Array(N * 3).fill(8) }));
const records = Array.from({ length: T }, () => {
  const map = new Map<string, { name: string; address: string; incarnation: number; state: string; stateChangedAt: number }>();
  for (const { name, address } of shuffled(identities)) map.set(name, { name, address, incarnation: 1, state: 'alive', stateChangedAt: 0 });
  return map;
});

const table = new Int32Array(LOOKUPS);
const name = new Int32Array(LOOKUPS);
for (let i = 0; i < LOOKUPS; i++) {
  table[i] = Math.floor(Math.random() * T);
  name[i] = Math.floor(Math.random() * N);
}

const cases: ReadonlyArray<readonly [string, () => number]> = [
  ['IdIndex + row + identity', () => {
    let sum = 0;
    for (let i = 0; i < LOOKUPS; i++) {
      const t = indexed[table[i]!]!;
      const id = t.index.find(names[name[i]!]!);
      sum += t.rows[id * 3]! + t.identities[id]!.address.length;
    }
    return sum;
  }],
  ['shared name → id Map + row + identity', () => {
    let sum = 0;
    for (let i = 0; i < LOOKUPS; i++) {
      const t = byDenseId[table[i]!]!;
      const id = registry.get(names[name[i]!]!)!;
      sum += t.rows[id * 3]! + t.identities[id]!.address.length;
    }
    return sum;
  }],
  ['shared name → id Map, per-table slot by id + row + identity', () => {
    let sum = 0;
    for (let i = 0; i < LOOKUPS; i++) {
      const t = slotsByDenseId[table[i]!]!;
      const id = t.slotOf[registry.get(names[name[i]!]!)!]! - 1;
      sum += t.rows[id * 3]! + t.identities[id]!.address.length;
    }
    return sum;
  }],
  ['Map of records per table', () => {
    let sum = 0;
    for (let i = 0; i < LOOKUPS; i++) {
      const record = records[table[i]!]!.get(names[name[i]!]!)!;
      sum += record.incarnation + record.address.length;
    }
    return sum;
  }],
  ['row + identity, id known (no lookup)', () => {
    let sum = 0;
    for (let i = 0; i < LOOKUPS; i++) {
      const t = byDenseId[table[i]!]!;
      sum += t.rows[name[i]! * 3]! + t.identities[name[i]!]!.address.length;
    }
    return sum;
  }],
  ['hashKey only', () => {
    let sum = 0;
    for (let i = 0; i < LOOKUPS; i++) sum += hashKey(names[name[i]!]!);
    return sum;
  }],
];
for (let round = 0; round < 2; round++) {
  for (const [label, run] of cases) {
    const start = performance.now();
    run();
    console.log(`${label}: ${(((performance.now() - start) * 1e6) / LOOKUPS).toFixed(0)} ns per lookup (${T} tables × ${N} names)`);
  }
}
