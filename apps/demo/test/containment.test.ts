/**
 * The demo never exits on one exception from a member (issue 10, containment): what a member
 * contains shows in the event log, at a bounded rate, and the cluster goes on.
 */
import { afterEach, expect, it } from 'vitest';
import type { DemoEvent } from '../src/api.js';
import { DemoCluster } from '../src/cluster.js';
import { until } from './until.js';

const FAST = { probeIntervalMs: 200, probeTimeoutMs: 100, adaptiveTimeoutCeilingMs: 100, gossipIntervalMs: 50, pushPullIntervalMs: 5000 };

let cluster: DemoCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

it("a member's contained exception is in the event log and the cluster keeps running", { timeout: 120_000 }, async () => {
  const c = (cluster = await DemoCluster.start({ size: 1, config: FAST }));
  const events: DemoEvent[] = [];
  c.onEvent((event) => events.push(event));
  // An application's listener with a bug, on every membership change m1 sees.
  c.member('m1')!.on('change', () => {
    throw new Error('listener bug');
  });
  await c.add();
  await c.add();
  await until('the exception is in the event log', 30_000, () => events.some((e) => e.text.startsWith('m1 contained an exception')));
  expect(events.find((e) => e.text.startsWith('m1 contained'))).toMatchObject({
    kind: 'action',
    subject: 'm1',
    text: 'm1 contained an exception in listener, still running: Error: listener bug',
  });
  await until('all three see each other alive', 60_000, () =>
    c.names().every((observer) => c.names().every((subject) => c.member(observer)?.member(subject)?.state === 'alive')),
  );
});
