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
  const state = { ...base, partitioned: true, partition: { halves: [['m1', 'm2'], ['m3']] as [string[], string[]], gatewaySide: 0 as const, healedAt: null, reconnectIntervalMs: 30_000 } };
  expect(partitionText(state, 0)).toBe('partition in force: m1 m2 + gateway + this tab  ✂  m3; each side will declare the other dead');
});

it('after a heal says the reconnect is at work and how often it retries; nothing before any partition', () => {
  const healed = { ...base, partition: { halves: null, gatewaySide: null, healedAt: 1_000, reconnectIntervalMs: 30_000 } };
  expect(partitionText(healed, 6_000)).toMatch(/^partition healed 5 s ago: reconnection under way.* every 30 s/);
  expect(partitionText({ ...healed, partition: { ...healed.partition, reconnectIntervalMs: 0 } }, 6_000)).toMatch(/never reconnects/);
  expect(partitionText({ ...base, partition: { halves: null, gatewaySide: null, healedAt: null, reconnectIntervalMs: 30_000 } }, 0)).toBe('');
  expect(partitionText(base, 0)).toBe('');
});
