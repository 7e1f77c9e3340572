// `swim agent --metrics`: three real agents, scraped by a real Prometheus (Debian's) every second;
// the series are read back through its HTTP API, the exposition passes `promtool check metrics`,
// and a kill -9 of one agent shows in the query results: the survivors' swim_members{state="dead"}
// rises to 1 and the killed target goes down.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, startAgent, swim, until, type Agent } from './agents.js';
import { prometheusSkipReason, startPrometheus, type PrometheusServer } from '@swim/test-support';

/** The metrics endpoint an agent logged before its start line. */
function metricsUrl(agent: Agent): string {
  const line = agent.lines.find((l) => l.event === 'metrics');
  if (line === undefined) throw new Error(`agent ${agent.name} logged no metrics line`);
  return line['url'] as string;
}

const target = (agent: Agent) => new URL(metricsUrl(agent)).host;

describe.skipIf(prometheusSkipReason !== undefined)(`swim agent --metrics, scraped by Prometheus${prometheusSkipReason ? ` [skipped: ${prometheusSkipReason}]` : ''}`, () => {
  let prometheus: PrometheusServer | undefined;
  let failed = false;
  afterAll(async () => {
    killAll();
    await prometheus?.stop({ keep: failed });
  });

  it('serves /metrics that promtool accepts; Prometheus sees every series, then the kill -9', { timeout: 180_000 }, async () => {
    try {
      const a = await startAgent('p1', { extra: ['--metrics', '127.0.0.1:0'] });
      const b = await startAgent('p2', { extra: ['--metrics', '127.0.0.1:0'], join: [a.address] });
      const c = await startAgent('p3', { extra: ['--metrics', '127.0.0.1:0'], join: [a.address] });
      const agents = [a, b, c];

      // The exposition itself: what promtool says of it, and the families the issue asks for.
      const text = await (await fetch(metricsUrl(a))).text();
      const check = spawnSync('/usr/bin/promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect(`${check.stdout}${check.stderr}`).toBe('');
      expect(check.status).toBe(0);

      prometheus = await startPrometheus({ targets: agents.map(target), scrapeInterval: '1s' });
      const p = prometheus;
      const byInstance = (samples: ReadonlyArray<{ metric: Readonly<Record<string, string>>; value: number }>) =>
        new Map(samples.map((s) => [s.metric['instance'], s.value]));

      await until('Prometheus scrapes all three agents and each sees three alive', 60_000, async () => {
        const up = byInstance(await p.query('up{job="swim"}'));
        const alive = byInstance(await p.query('swim_members{state="alive"}'));
        return agents.every((x) => up.get(target(x)) === 1 && alive.get(target(x)) === 3);
      });

      const names = new Set((await p.query('count by (__name__) ({job="swim"})')).map((s) => s.metric['__name__']));
      for (const name of [
        'swim_members',
        'swim_health_score',
        'swim_sent_packets_total',
        'swim_received_packets_total',
        'swim_sent_bytes_total',
        'swim_received_bytes_total',
        'swim_probes_total',
        'swim_suspicions_raised_total',
        'swim_suspicions_refuted_total',
        'swim_dead_verdicts_total',
        'swim_push_pulls_total',
        'swim_broadcast_queue_messages',
        'swim_decode_errors_total',
        'swim_transport_dropped_packets_total',
        'process_resident_memory_bytes',
      ]) {
        expect(names, name).toContain(name);
      }
      const probes = await p.query(`swim_probes_total{instance="${target(a)}",result="direct_ack"}`);
      expect(probes[0]?.value).toBeGreaterThan(0);

      const killedAt = Date.now();
      c.child.kill('SIGKILL');
      await c.exited;
      const seenIn = await until("the survivors' swim_members{state=\"dead\"} reaches 1 in Prometheus and the killed target is down", 60_000, async () => {
        const dead = byInstance(await p.query('swim_members{state="dead"}'));
        const up = byInstance(await p.query('up{job="swim"}'));
        return dead.get(target(a)) === 1 && dead.get(target(b)) === 1 && up.get(target(c)) === 0;
      });
      // One dead verdict each (by its own suspicion timeout or a peer's word), the killed agent's series gone stale.
      const verdicts = byInstance(await p.query('sum by (instance) (swim_dead_verdicts_total)'));
      expect([verdicts.get(target(a)), verdicts.get(target(b)), verdicts.get(target(c))]).toEqual([1, 1, undefined]);
      const alive = byInstance(await p.query('swim_members{state="alive"}'));
      expect([alive.get(target(a)), alive.get(target(b))]).toEqual([2, 2]);
      console.log(`kill -9 of ${c.name} seen in Prometheus's query results ${Date.now() - killedAt} ms later (${seenIn} ms of polling)`);
    } catch (error) {
      failed = true;
      throw new Error(`${(error as Error).message}\nprometheus log:\n${prometheus?.logTail() ?? '(not started)'}`, { cause: error });
    }
  });
});

describe('swim agent --metrics on a port in use', () => {
  afterAll(() => killAll());

  it('is a startup error naming the address (exit 1), not a running agent without metrics', { timeout: 60_000 }, async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen({ host: '127.0.0.1', port: 0 }, () => resolve()));
    const { port } = taken.address() as { port: number };
    try {
      const result = await swim(['agent', '--name', 'm1', '--bind', '127.0.0.1:0', '--rpc', '127.0.0.1:0', '--metrics', `127.0.0.1:${port}`]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`cannot serve metrics on 127.0.0.1:${port}: address already in use`);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
