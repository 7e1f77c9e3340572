/**
 * The page's status lines: the cut while a partition is in force, the reconnect at work after a
 * heal; members back on the network that the cluster still holds dead, and what brings them back.
 */
import { expect, it } from 'vitest';
import type { ClusterState } from '../src/api.js';
import { partitionText, recoveryText } from '../web/status.js';

const base: ClusterState = {
  time: 0,
  members: [],
  gateways: [{ name: 'gateway-a', url: 'ws://-', process: 'running', address: '-', incarnation: 1, healthScore: 0, browsers: [] }],
  partitioned: false,
  consensus: {},
  matrix: { members: [], rows: [] },
};

it('names both sides of the cut, the gateways and this tab with the first', () => {
  const state = { ...base, partitioned: true, partition: { halves: [['m1', 'm2'], ['m3']] as [string[], string[]], gatewaySide: 0 as const, healedAt: null, reconnectIntervalMs: 30_000, nextReconnect: null } };
  expect(partitionText(state, 0)).toBe('partition in force: m1 m2 + gateways + this tab  ✂  m3; each side will declare the other dead');
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

it('names members running and reachable that most still hold dead, and the reconnect tick that will try them', () => {
  const member = (name: string, process: 'running' | 'paused' | 'crashed', blackout = false) => ({ name, address: '-', process, blackout, group: null, incarnation: 1, healthScore: 0, view: { alive: 0, suspect: 0, dead: 0, left: 0 } });
  const state: ClusterState = {
    ...base,
    members: [member('m1', 'running'), member('m2', 'running'), member('m3', 'crashed'), member('m4', 'running', true), member('m5', 'paused')],
    consensus: { m1: { state: 'alive', incarnation: 1 }, m2: { state: 'dead', incarnation: 1 }, m3: { state: 'dead', incarnation: 1 }, m4: { state: 'dead', incarnation: 1 }, m5: { state: 'dead', incarnation: 1 } },
    partition: { halves: null, gatewaySide: null, healedAt: null, reconnectIntervalMs: 30_000, nextReconnect: { member: 'm1', inMs: 1_250, candidates: 4 } },
  };
  // m3 crashed, m4 still cut off, m5 paused: held dead for a reason; m2 is back and still dead.
  expect(recoveryText(state)).toBe(
    "m2 is running and reachable, but most members hold it dead, so nobody probes it: if it hears of its death in the gossip still sent to recently dead members, it refutes it, or the reconnect brings it back when a tick picks it (next tick: m1's in 1.3 s); every member ticks every 30 s and tries one failed member with probability failed / alive",
  );
  expect(recoveryText({ ...state, partition: { ...state.partition!, reconnectIntervalMs: 0 } })).toMatch(/^m2 is running and reachable.*never reconnects/);
  expect(recoveryText({ ...state, partition: { ...state.partition!, halves: [['m1'], ['m2']] } })).toBe('');
  expect(recoveryText({ ...state, consensus: { ...state.consensus, m2: { state: 'alive', incarnation: 2 } } })).toBe('');
});
