// prometheusMetrics: every family of a member's snapshot comes out of the registry under its
// Prometheus name with the snapshot's values, from one snapshot per scrape and a fresh one at the
// next; several members share a registry by their labels; the exposition passes promtool.
import { Gauge, Registry, type OpenMetricsContentType } from 'prom-client';
import type { MetricsProvider, MetricsSnapshot } from '@swim/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { prometheusMetrics, prometheusName } from '../src/index.js';
import { virtualCluster, type VirtualCluster } from '@swim/test-support';
import { parseExposition, promtoolCheckMetrics, promtoolSkipReason, valueOf } from './exposition.js';

let running: VirtualCluster | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(names: readonly string[]): Promise<VirtualCluster> {
  running = await virtualCluster(names);
  return running;
}

describe('prometheusMetrics', () => {
  it('exposes every family of the snapshot under swim_<name>(_total) with its values, types and help', async () => {
    const { members } = await start(['a', 'b', 'c']);
    const a = members[0]!;
    const { registry } = prometheusMetrics(a);
    const text = await registry.metrics();
    const { series, types } = parseExposition(text);
    const snapshot = a.metrics();
    for (const family of snapshot.families) {
      const name = prometheusName(family);
      expect(types.get(name), name).toBe(family.type);
      expect(text).toContain(`# HELP ${name} `);
      for (const sample of family.samples) {
        // Values are read per scrape; gauges and counters may have moved between the two reads only if time passed (it did not).
        expect(valueOf(series, name, sample.labels), `${name}${JSON.stringify(sample.labels)}`).toBe(sample.value);
      }
    }
    expect(valueOf(series, 'swim_members', { state: 'alive' })).toBe(3);
    expect(valueOf(series, 'swim_members', { state: 'dead' })).toBe(0);
    expect(valueOf(series, 'swim_health_score')).toBe(0);
    expect(types.get('swim_probes_total')).toBe('counter');
    expect(types.get('swim_members')).toBe('gauge');
  });

  it('reads a fresh snapshot at every scrape: a crash shows as a dead member and a failed probe', async () => {
    const c = await start(['a', 'b', 'c', 'd']);
    const a = c.members[0]!;
    const { registry } = prometheusMetrics(a);
    const before = parseExposition(await registry.metrics()).series;
    expect(valueOf(before, 'swim_members', { state: 'dead' })).toBe(0);
    c.network.crash('d');
    await c.until(() => a.member('d')?.state === 'dead', 20_000);
    const after = parseExposition(await registry.metrics()).series;
    expect(valueOf(after, 'swim_members', { state: 'dead' })).toBe(1);
    expect(valueOf(after, 'swim_members', { state: 'alive' })).toBe(3);
    const verdicts = (valueOf(after, 'swim_dead_verdicts_total', { cause: 'timeout' }) ?? 0) + (valueOf(after, 'swim_dead_verdicts_total', { cause: 'gossip' }) ?? 0);
    expect(verdicts).toBe(1);
    expect(valueOf(after, 'swim_sent_packets_total')).toBeGreaterThan(valueOf(before, 'swim_sent_packets_total')!);
  });

  it('takes one snapshot per scrape, however many families', async () => {
    const { members } = await start(['a']);
    let calls = 0;
    const counting: MetricsProvider = {
      metrics: () => {
        calls++;
        return members[0]!.metrics();
      },
    };
    const { registry } = prometheusMetrics(counting);
    calls = 0;
    await registry.metrics();
    expect(calls).toBe(1);
    await registry.metrics();
    expect(calls).toBe(2);
  });

  it('exports several members into one registry, told apart by their labels', async () => {
    const { members } = await start(['a', 'b']);
    const registry = new Registry();
    prometheusMetrics(members[0]!, { registry, labels: { member: 'a' } });
    const second = prometheusMetrics(members[1]!, { registry, labels: { member: 'b' } });
    const { series } = parseExposition(await registry.metrics());
    expect(valueOf(series, 'swim_members', { member: 'a', state: 'alive' })).toBe(2);
    expect(valueOf(series, 'swim_members', { member: 'b', state: 'alive' })).toBe(2);
    expect(valueOf(series, 'swim_incarnation', { member: 'b' })).toBe(members[1]!.incarnation);
    expect(() => prometheusMetrics(members[1]!, { registry, labels: { member: 'a' } })).toThrow(/same labels/);
    expect(() => prometheusMetrics(members[1]!, { registry, labels: { node: 'c' } })).toThrow(/same label names/);
    second.remove();
    const left = parseExposition(await registry.metrics()).series;
    expect(valueOf(left, 'swim_members', { member: 'b', state: 'alive' })).toBeUndefined();
    expect(valueOf(left, 'swim_members', { member: 'a', state: 'alive' })).toBe(2);
  });

  it('forgets its metrics once the last member is removed, and can export again', async () => {
    const { members } = await start(['a']);
    const registry = new Registry();
    const exported = prometheusMetrics(members[0]!, { registry });
    exported.remove();
    exported.remove();
    expect(await registry.metrics()).toBe('\n');
    prometheusMetrics(members[0]!, { registry, prefix: 'gossip_' });
    expect(await registry.metrics()).toContain('gossip_members{state="alive"} 1');
  });

  it('refuses invalid options, listing every problem', () => {
    const member: MetricsProvider = { metrics: () => ({ families: [] }) };
    let message = '';
    try {
      prometheusMetrics(member, { prefix: '9bad-', labels: { __reserved: 'x', 'not-a-name': 'y' } });
    } catch (error) {
      expect(error).toBeInstanceOf(RangeError);
      message = (error as Error).message;
    }
    expect(message).toMatch(/prefix "9bad-"/);
    expect(message).toMatch(/"__reserved"/);
    expect(message).toMatch(/"not-a-name"/);
  });

  it('adds families that appear later at the next scrape; leaves out a member whose metrics() throws', async () => {
    const { members } = await start(['a']);
    const a = members[0]!;
    const { registry } = prometheusMetrics(a);
    a.addMetricsSource(() => [{ name: 'extra_things', type: 'counter', help: 'x', unit: '1', labelNames: [], samples: [{ labels: {}, value: 4 }] }]);
    await registry.metrics();
    expect(await registry.metrics()).toContain('swim_extra_things_total 4');

    let fail = false;
    const flaky: MetricsProvider = {
      metrics: (): MetricsSnapshot => {
        if (fail) throw new Error('down');
        return a.metrics();
      },
    };
    const other = new Registry();
    const exported = prometheusMetrics(flaky, { registry: other });
    fail = true;
    await expect(other.metrics()).resolves.toContain('# TYPE swim_members gauge');
    expect(exported.skippedSamples).toBe(1);
  });

  it('leaves another library\'s metric of the same name alone', async () => {
    const { members } = await start(['a']);
    const registry = new Registry();
    new Gauge({ name: 'swim_health_score', help: 'theirs', registers: [registry], collect() { this.set(42); } });
    prometheusMetrics(members[0]!, { registry });
    const text = await registry.metrics();
    expect(text).toContain('swim_health_score 42');
    expect(text).toContain('swim_members{state="alive"} 1');
  });

  it('writes OpenMetrics when the registry asks for it', async () => {
    const { members } = await start(['a']);
    const registry = new Registry<OpenMetricsContentType>();
    registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    prometheusMetrics(members[0]!, { registry });
    const text = await registry.metrics();
    expect(text).toMatch(/^# TYPE swim_probes counter$/m);
    expect(text).toContain('swim_probes_total{result="direct_ack"}');
    expect(text.endsWith('# EOF\n')).toBe(true);
  });
});

describe.skipIf(promtoolSkipReason !== undefined)(`promtool check metrics${promtoolSkipReason ? ` [skipped: ${promtoolSkipReason}]` : ''}`, () => {
  it('passes on our exposition, and fails on a badly named metric (the check can fail)', async () => {
    const { members } = await start(['a', 'b', 'c']);
    const { registry } = prometheusMetrics(members[0]!);
    const ours = promtoolCheckMetrics(await registry.metrics());
    expect(ours.output).toBe('');
    expect(ours.status).toBe(0);

    const bad = new Registry();
    new Gauge({ name: 'swim_sent_total', help: 'a gauge named like a counter', registers: [bad] }).set(1);
    const theirs = promtoolCheckMetrics(await bad.metrics());
    expect(theirs.status).not.toBe(0);
    expect(theirs.output).toMatch(/non-counter metrics should not have "_total" suffix/);
  });
});
