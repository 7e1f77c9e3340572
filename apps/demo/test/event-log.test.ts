/**
 * The demo's event log tells each change once: a restarted member learning of everyone is not
 * news (no flood), its own return is; a crashed member dropped from the views is shown reaped.
 */
import { afterEach, expect, it } from 'vitest';
import type { DemoEvent } from '../src/api.js';
import { DemoCluster } from '../src/cluster.js';
import { until } from './until.js';

const FAST = { probeIntervalMs: 200, probeTimeoutMs: 100, adaptiveTimeoutCeilingMs: 100, gossipIntervalMs: 50, pushPullIntervalMs: 5000, gossipToTheDeadMs: 2000, reconnectIntervalMs: 1000 };

let cluster: DemoCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

const holds = (c: DemoCluster, observer: string, subject: string) => c.member(observer)?.member(subject)?.state;
const allAlive = (c: DemoCluster) => c.names().every((o) => c.names().every((s) => holds(c, o, s) === 'alive'));

it('a crashed member is reported reaped once; its restart is one line, not one per member it learns of', { timeout: 90_000 }, async () => {
  const c = (cluster = await DemoCluster.start({ size: 8, config: FAST }));
  await until('eight members converge', 20_000, () => allAlive(c));
  // Refutations raise m1..m3's incarnations, so a restarted member's joins are at incarnations never told.
  for (const name of ['m1', 'm2', 'm3']) c.pause(name);
  await until('m8 no longer holds m1..m3 alive', 20_000, () => ['m1', 'm2', 'm3'].every((s) => holds(c, 'm8', s) !== 'alive'));
  for (const name of ['m1', 'm2', 'm3']) c.resume(name);
  await until('all alive after the refutations', 20_000, () => allAlive(c));
  expect(c.member('m8')?.member('m1')?.incarnation).toBeGreaterThan(1);

  const events: DemoEvent[] = [];
  c.onEvent((e) => events.push(e));
  await c.crash('m4');
  const others = c.names().filter((n) => n !== 'm4');
  await until('m4 reaped everywhere', 30_000, () => others.every((o) => c.member(o)?.member('m4') === undefined));
  await until('the reap reported', 5_000, () => events.some((e) => e.event === 'reaped'));
  const reaped = events.filter((e) => e.event === 'reaped');
  expect(reaped.map((e) => e.subject)).toEqual(['m4']);
  expect(reaped[0]!.text).toMatch(/^m4 reaped \(incarnation 1\): dropped from the view of m\d+$/);

  const restartAt = events.length;
  await c.restart('m4');
  await until('all alive after the restart', 30_000, () => allAlive(c));
  await until('the return of m4 reported', 5_000, () => events.slice(restartAt).some((e) => e.kind === 'change' && e.subject === 'm4'));
  const afterRestart = events.slice(restartAt).filter((e) => e.kind === 'change');
  // The flood was the restarted member learning of everyone: a join line per member it met (m1..m3
  // at incarnations never told before). None may appear. Other lines are real changes (on a loaded
  // machine a member may be suspected and refute meanwhile), each told once.
  expect(afterRestart.filter((e) => e.subject !== 'm4' && e.event === 'join').map((e) => e.text)).toEqual([]);
  const aboutM4 = afterRestart.filter((e) => e.subject === 'm4').map((e) => `${e.event}:${e.incarnation}`);
  expect(new Set(aboutM4).size, aboutM4.join(', ')).toBe(aboutM4.length);
  expect(aboutM4.length, aboutM4.join(', ')).toBeLessThan(others.length);
});

it('each change is logged once however many members see it', { timeout: 60_000 }, async () => {
  const c = (cluster = await DemoCluster.start({ size: 6, config: FAST }));
  await until('six members converge', 20_000, () => allAlive(c));
  const events: DemoEvent[] = [];
  c.onEvent((e) => events.push(e));
  c.pause('m2');
  await until('every other member holds m2 dead', 20_000, () => c.names().every((o) => o === 'm2' || holds(c, o, 'm2') === 'dead'));
  c.resume('m2');
  await until('all alive again', 20_000, () => allAlive(c));
  const changes = events.filter((e) => e.kind === 'change' && e.subject === 'm2').map((e) => `${e.event}:${e.incarnation}`);
  expect(changes.length).toBeGreaterThanOrEqual(3);
  expect(new Set(changes).size).toBe(changes.length);
});
