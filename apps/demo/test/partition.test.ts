/**
 * Partition with the gateways in the cluster: the gateways' members side with the first half, so
 * their indirect probes cannot carry traffic across the cut; each half holds the other dead, and
 * after the heal the reconnect brings everyone back alive.
 */
import { failureDetectionBoundMs, resolveConfig } from '@swim/core';
import { afterAll, expect, it } from 'vitest';
import { startDemo, type Demo } from '../src/demo.js';
import { clusterState } from '../src/state.js';
import { until } from './until.js';

const FAST = { probeIntervalMs: 200, probeTimeoutMs: 100, adaptiveTimeoutCeilingMs: 100, gossipIntervalMs: 50, pushPullIntervalMs: 5000, gossipToTheDeadMs: 3000, reconnectIntervalMs: 1000 };
/**
 * How long each half may take to hold the other dead: the detection bound of the two gateways and six
 * members, stretched by local health at its worst (failureDetectionBoundMs: multiply by
 * awarenessMaxMultiplier), 79 s here. Each half's probes of the other fail and the helpers it picks
 * there send no nack, so its members' health scores climb to the maximum and stretch their
 * suspicion timeouts (the README's correction 2); a member whose halfmates' dead messages all went
 * across the cut (4 transmissions each) waits for its own stretched timer. A 30 s wait, three times
 * the bound at health 0, once missed one of the 24 deaths on a loaded CI host.
 */
const FAST_CONFIG = resolveConfig(FAST, 'lan');
const SPLIT_WAIT_MS = failureDetectionBoundMs(FAST_CONFIG, 8) * FAST_CONFIG.awarenessMaxMultiplier;

let demo: Demo | undefined;
afterAll(async () => {
  await demo?.close();
});

it('partition with the gateways: each half holds the other dead; heal brings all back alive', { timeout: 80_000 + SPLIT_WAIT_MS }, async () => {
  const d = (demo = await startDemo({ members: 6, port: 0, preset: 'lan', config: FAST }));
  const { cluster, gateways } = d;
  const gatewayNames = gateways.map((g) => g.name);
  const observers = () => [...cluster.names().map((name) => ({ name, view: cluster.member(name)! })), ...gateways.map((g) => ({ name: g.name, view: g.member! }))];
  const everyone = [...gatewayNames, ...cluster.names()];
  const holds = (observer: string, subject: string) => observers().find((o) => o.name === observer)?.view.member(subject)?.state;
  const allAlive = () => observers().every((o) => everyone.every((subject) => subject === o.name || o.view.member(subject)?.state === 'alive'));
  await until('the gateways and six members converge', 20_000, allAlive);
  // Who sees whom, as the page gets it: a row per demo member and gateway, a column per member.
  const converged = clusterState(cluster, gateways).matrix;
  expect(converged.rows.map((row) => row.observer)).toEqual([...cluster.names(), ...gatewayNames]);
  expect(converged.members).toEqual([...gatewayNames, 'm1', 'm2', 'm3', 'm4', 'm5', 'm6']);
  for (const row of converged.rows) {
    const own = converged.members.indexOf(row.observer);
    expect(row.states, row.observer).toBe(converged.members.map((_, i) => (i === own ? row.states[own] : 'a')).join(''));
  }

  // Dead is held until the reap (gossipToTheDeadMs), so every death seen is recorded as it happens.
  const deaths = new Set<string>();
  for (const { name, view } of observers()) {
    view.on('change', ({ event, member }) => {
      if (event === 'dead') deaths.add(`${name}>${member.name}`);
    });
  }
  cluster.partition();
  const state = clusterState(cluster, gateways);
  expect(state.partition?.halves).toEqual([
    ['m1', 'm2', 'm3'],
    ['m4', 'm5', 'm6'],
  ]);
  expect(state.partition?.gatewaySide).toBe(0);
  const near = [...gatewayNames, 'm1', 'm2', 'm3'];
  const far = ['m4', 'm5', 'm6'];
  const split = () => near.every((a) => far.every((b) => deaths.has(`${a}>${b}`) && deaths.has(`${b}>${a}`)));
  await until('each half holds the other dead', SPLIT_WAIT_MS, split).catch((error: Error) => {
    const health = observers().map(({ name, view }) => `${name} ${view.healthScore}`);
    throw new Error(`${error.message}; deaths seen: ${[...deaths].join(' ')}; health scores: ${health.join(', ')}`);
  });
  expect(near.every((a) => near.every((b) => a === b || holds(a, b) === 'alive'))).toBe(true);
  expect(far.every((a) => far.every((b) => a === b || holds(a, b) === 'alive'))).toBe(true);

  cluster.heal();
  const healed = clusterState(cluster, gateways).partition;
  expect(healed?.halves).toBeNull();
  expect(healed?.healedAt).toBeTypeOf('number');
  expect(healed?.reconnectIntervalMs).toBe(1000);
  // Right after the heal every member still holds the other half failed: a reconnect tick is due within one interval.
  expect(healed?.nextReconnect?.candidates).toBeGreaterThan(0);
  expect(healed?.nextReconnect?.inMs).toBeLessThanOrEqual(1000);
  await until('everyone alive again after the heal', 40_000, allAlive);
  // Back together: no member holds another failed, so no reconnect is pending.
  await until('no reconnect pending once all are alive', 10_000, () => clusterState(cluster, gateways).partition?.nextReconnect === null);
});
