// openTelemetryMetrics: every family of a member's snapshot reaches an OpenTelemetry exporter (the
// SDK's in-memory one) as an observable counter or gauge named swim.<name>, with the snapshot's
// values, unit and description, one snapshot per collection and a fresh one at the next.
import { AggregationTemporality, DataPointType, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type MetricData } from '@opentelemetry/sdk-metrics';
import type { MetricsProvider, MetricsSnapshot } from '@swim/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { instrumentName, openTelemetryMetrics } from '../src/index.js';
import { virtualCluster, type VirtualCluster } from '@swim/test-support';

interface Pipeline {
  readonly provider: MeterProvider;
  /** Collect and export once; the metrics of that export by instrument name. */
  collect(): Promise<Map<string, MetricData>>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function pipeline(): Pipeline {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // Exports only when asked (forceFlush): the interval is longer than any test.
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  cleanups.push(() => provider.shutdown());
  return {
    provider,
    async collect() {
      exporter.reset();
      await reader.forceFlush();
      const exported = exporter.getMetrics().at(-1);
      return new Map((exported?.scopeMetrics ?? []).flatMap((s) => s.metrics).map((m) => [m.descriptor.name, m]));
    },
  };
}

async function start(names: readonly string[]): Promise<VirtualCluster> {
  const c = await virtualCluster(names);
  cleanups.push(() => c.close());
  return c;
}

function point(metric: MetricData | undefined, attributes: Record<string, string> = {}): number | undefined {
  const found = metric?.dataPoints.find((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v));
  return found?.value as number | undefined;
}

describe('openTelemetryMetrics', () => {
  it('observes every family as swim.<name>: counters as monotonic sums, gauges as gauges, with units and descriptions', async () => {
    const { members } = await start(['a', 'b', 'c']);
    const a = members[0]!;
    const { provider, collect } = pipeline();
    openTelemetryMetrics(a, { meter: provider.getMeter('test') });
    const exported = await collect();
    const snapshot = a.metrics();
    expect(exported.size).toBe(snapshot.families.length);
    for (const family of snapshot.families) {
      const metric = exported.get(instrumentName(family));
      expect(metric, family.name).toBeDefined();
      expect(metric!.descriptor.unit).toBe(family.unit);
      expect(metric!.descriptor.description).toBe(family.help);
      if (family.type === 'counter') {
        expect(metric!.dataPointType).toBe(DataPointType.SUM);
        expect(metric!.dataPointType === DataPointType.SUM && metric!.isMonotonic).toBe(true);
      } else {
        expect(metric!.dataPointType).toBe(DataPointType.GAUGE);
      }
      for (const sample of family.samples) expect(point(metric, sample.labels), `${family.name} ${JSON.stringify(sample.labels)}`).toBe(sample.value);
    }
    expect(point(exported.get('swim.members'), { state: 'alive' })).toBe(3);
    expect(exported.get('swim.sent_bytes')?.descriptor.unit).toBe('By');
  });

  it('sees a crash at the next collection: a dead member, a dead verdict', async () => {
    const c = await start(['a', 'b', 'c', 'd']);
    const a = c.members[0]!;
    const { provider, collect } = pipeline();
    openTelemetryMetrics(a, { meter: provider.getMeter('test') });
    expect(point((await collect()).get('swim.members'), { state: 'dead' })).toBe(0);
    c.network.crash('d');
    await c.until(() => a.member('d')?.state === 'dead', 20_000);
    const after = await collect();
    expect(point(after.get('swim.members'), { state: 'dead' })).toBe(1);
    const verdicts = after.get('swim.dead_verdicts');
    expect((point(verdicts, { cause: 'timeout' }) ?? 0) + (point(verdicts, { cause: 'gossip' }) ?? 0)).toBe(1);
  });

  it('takes one snapshot per collection; tells members apart by attributes on one meter', async () => {
    const { members } = await start(['a', 'b']);
    let calls = 0;
    const counting: MetricsProvider = {
      metrics: () => {
        calls++;
        return members[0]!.metrics();
      },
    };
    const { provider, collect } = pipeline();
    const meter = provider.getMeter('test');
    openTelemetryMetrics(counting, { meter, attributes: { 'swim.member': 'a' } });
    openTelemetryMetrics(members[1]!, { meter, attributes: { 'swim.member': 'b' } });
    calls = 0;
    const exported = await collect();
    expect(calls).toBe(1);
    expect(point(exported.get('swim.incarnation'), { 'swim.member': 'a' })).toBe(members[0]!.incarnation);
    expect(point(exported.get('swim.members'), { 'swim.member': 'b', state: 'alive' })).toBe(2);
  });

  it('observes families that appear later from the next collection; a throwing member is left out and counted', async () => {
    const { members } = await start(['a']);
    const a = members[0]!;
    let fail = false;
    const flaky: MetricsProvider = {
      metrics: (): MetricsSnapshot => {
        if (fail) throw new Error('down');
        return a.metrics();
      },
    };
    const { provider, collect } = pipeline();
    const exported = openTelemetryMetrics(flaky, { meter: provider.getMeter('test') });
    a.addMetricsSource(() => [{ name: 'extra_things', type: 'gauge', help: 'x', unit: '1', labelNames: [], samples: [{ labels: {}, value: 4 }] }]);
    expect((await collect()).has('swim.extra_things')).toBe(false);
    expect(point((await collect()).get('swim.extra_things'))).toBe(4);
    fail = true;
    await collect();
    expect(exported.failedCollections).toBe(1);
  });

  it('stops observing after remove()', async () => {
    const { members } = await start(['a']);
    let calls = 0;
    const counting: MetricsProvider = {
      metrics: () => {
        calls++;
        return members[0]!.metrics();
      },
    };
    const { provider, collect } = pipeline();
    const exported = openTelemetryMetrics(counting, { meter: provider.getMeter('test') });
    await collect();
    expect(calls).toBe(2); // the instruments' creation, then the collection
    exported.remove();
    exported.remove();
    await collect();
    expect(calls).toBe(2);
  });

  it('refuses invalid options, listing every problem', () => {
    const member: MetricsProvider = { metrics: () => ({ families: [] }) };
    let message = '';
    try {
      openTelemetryMetrics(member, { prefix: '1swim.', attributes: { '': 'x', ok: 3 as unknown as string } });
    } catch (error) {
      expect(error).toBeInstanceOf(RangeError);
      message = (error as Error).message;
    }
    expect(message).toContain('prefix "1swim."');
    expect(message).toContain('attribute name is empty');
    expect(message).toContain('attribute ok');
  });
});
