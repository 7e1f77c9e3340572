/**
 * The demo's fault controls on real UDP members in this process: partition and heal, pause and
 * resume (the paused member refutes), black out, crash and restart under the same address.
 */
import { afterEach, expect, it } from 'vitest';
import { DemoCluster } from '../src/cluster.js';
import type { DemoEvent } from '../src/api.js';
import { summaryLine } from '../src/terminal.js';
import { until } from './until.js';

const FAST = { probeIntervalMs: 200, probeTimeoutMs: 100, adaptiveTimeoutCeilingMs: 100, gossipIntervalMs: 50, pushPullIntervalMs: 5000, gossipToTheDeadMs: 3000, reconnectIntervalMs: 1000 };

let cluster: DemoCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

function sees(c: DemoCluster, observer: string, subject: string): string | undefined {
  return c.member(observer)?.member(subject)?.state;
}

function allAlive(c: DemoCluster): boolean {
  const names = c.names();
  return names.every((observer) => names.every((subject) => sees(c, observer, subject) === 'alive'));
}

it('partition splits the members in two halves; heal brings them back without a join', { timeout: 60_000 }, async () => {
  const c = (cluster = await DemoCluster.start({ size: 6, config: FAST }));
  const events: DemoEvent[] = [];
  c.onEvent((e) => events.push(e));
  await until('six members converge', 15_000, () => allAlive(c));
  c.partition();
  await until('m1 holds m6 dead and m6 holds m1 dead', 20_000, () => sees(c, 'm1', 'm6') === 'dead' && sees(c, 'm6', 'm1') === 'dead');
  expect(sees(c, 'm1', 'm2')).toBe('alive');
  c.heal();
  await until('all alive again', 30_000, () => allAlive(c));
  expect(events.map((e) => e.text)).toContain('partition healed');
  expect(events.some((e) => e.kind === 'change' && e.event === 'dead' && e.subject === 'm6')).toBe(true);
});

it('a member added or a tab joining during a partition sides with the first half', { timeout: 60_000 }, async () => {
  const outsiders = ['127.0.0.1:9'];
  const c = (cluster = await DemoCluster.start({ size: 4, config: FAST, outsiders: () => outsiders }));
  await until('four members converge', 15_000, () => allAlive(c));
  c.partition();
  const address = (name: string) => c.snapshot().find((m) => m.name === name)!.address;
  expect(c.faults.separated('127.0.0.1:9', address('m3'))).toBe(true);

  const added = await c.add();
  expect(c.partitionState().halves).toEqual([['m1', 'm2', added], ['m3', 'm4']]);
  expect(c.faults.separated(address(added), address('m4'))).toBe(true);
  expect(c.faults.separated(address(added), address('m1'))).toBe(false);
  await until(`${added} holds the far half dead and the near half alive`, 20_000, () => sees(c, added, 'm3') === 'dead' && sees(c, added, 'm4') === 'dead' && sees(c, added, 'm1') === 'alive');

  // A browser tab's relay that appears during the partition (the outsiders grow): cut from the far half too.
  outsiders.push('127.0.0.1:10');
  await until('the new outsider is cut from the far half', 5_000, () => c.faults.separated('127.0.0.1:10', address('m3')));
  expect(c.faults.separated('127.0.0.1:10', address('m1'))).toBe(false);
});

it('pause holds a member; on resume it refutes with a higher incarnation', { timeout: 60_000 }, async () => {
  const c = (cluster = await DemoCluster.start({ size: 5, config: FAST }));
  await until('five members converge', 15_000, () => allAlive(c));
  c.pause('m2');
  expect(c.snapshot().find((m) => m.name === 'm2')?.process).toBe('paused');
  await until('m1 no longer holds m2 alive', 15_000, () => sees(c, 'm1', 'm2') !== 'alive');
  c.resume('m2');
  await until('all alive again', 20_000, () => allAlive(c));
  expect(c.member('m1')?.member('m2')?.incarnation).toBeGreaterThan(1);
});

it('blackout cuts a running member off; crash and restart under the same address', { timeout: 60_000 }, async () => {
  const c = (cluster = await DemoCluster.start({ size: 5, config: FAST }));
  await until('five members converge', 15_000, () => allAlive(c));
  c.blackout('m3', true);
  await until('m1 holds m3 dead', 20_000, () => sees(c, 'm1', 'm3') === 'dead');
  c.blackout('m3', false);
  await until('all alive after the blackout', 20_000, () => allAlive(c));

  const address = c.snapshot().find((m) => m.name === 'm4')!.address;
  await c.crash('m4');
  expect(c.member('m4')).toBeUndefined();
  await until('m1 holds m4 dead', 20_000, () => sees(c, 'm1', 'm4') === 'dead');
  await c.restart('m4');
  expect(c.snapshot().find((m) => m.name === 'm4')!.address).toBe(address);
  await until('all alive after the restart', 20_000, () => allAlive(c));
  expect(c.member('m1')?.member('m4')?.incarnation).toBeGreaterThan(1);

  const line = summaryLine(
    {
      time: 0,
      members: c.snapshot(),
      gateways: [
        { name: 'gateway-a', url: 'ws://-', process: 'killed', address: '-', incarnation: 0, healthScore: 0, browsers: [] },
        { name: 'gateway-b', url: 'ws://-', process: 'running', address: '-', incarnation: 1, healthScore: 0, browsers: [] },
      ],
      partitioned: false,
      consensus: { m1: { state: 'alive', incarnation: 1 }, m2: { state: 'dead', incarnation: 1 }, 'gateway-a': { state: 'dead', incarnation: 1 }, 'gateway-b': { state: 'alive', incarnation: 1 } },
      matrix: { members: [], rows: [] },
    },
    false,
  );
  // A killed gateway is marked like a crashed member.
  expect(line).toBe('gateway-a✖(killed) gateway-b● m1● m2✖  |  alive 2, suspect 0, dead 2, left 0');
});
