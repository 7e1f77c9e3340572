/** The page's partition line: the cut while in force, the reconnect at work after a heal. */
import { expect, it } from 'vitest';
import type { ClusterState } from '../src/api.js';
import { partitionText } from '../web/partition.js';

const base: ClusterState = {
  time: 0,
  members: [],
  gateway: { name: 'gateway', address: '-', incarnation: 1, healthScore: 0, browsers: [] },
  partitioned: false,
  consensus: {},
  matrix: { members: [], rows: [] },
};

it('names both sides of the cut, the gateway and this tab with the first', () => {
  const state = { ...base, partitioned: true, partition: { halves: [['m1', 'm2'], ['m3']] as [string[], string[]], gatewaySide: 0 as const, healedAt: null, reconnectIntervalMs: 30_000, nextReconnect: null } };
  expect(partitionText(state, 0)).toBe('partition in force: m1 m2 + gateway + this tab  ✂  m3; each side will declare the other dead');
});

it('after a heal says the reconnect is at work, whose tick is next and when; nothing before any partition', () => {
  const healed = { ...base, partition: { halves: null, gatewaySide: null, healedAt: 1_000, reconnectIntervalMs: 30_000, nextReconnect: { member: 'm4', inMs: 2_340, candidates: 3 } } };
  expect(partitionText(healed, 6_000)).toBe(
    "partition healed 5 s ago: reconnection under way; the next reconnect tick is m4's in 2.3 s (3 failed members to try; every member ticks every 30 s and tries one failed member with probability failed / alive)",
  );
  expect(partitionText({ ...healed, partition: { ...healed.partition, nextReconnect: null } }, 6_000)).toMatch(/^partition healed 5 s ago: no member holds another failed any more/);
  expect(partitionText({ ...healed, partition: { ...healed.partition, reconnectIntervalMs: 0 } }, 6_000)).toMatch(/never reconnects/);
  expect(partitionText({ ...base, partition: { halves: null, gatewaySide: null, healedAt: null, reconnectIntervalMs: 30_000, nextReconnect: null } }, 0)).toBe('');
  expect(partitionText(base, 0)).toBe('');
});
