// Network coordinates through the runtime: member.coordinate(), coordinateOf, estimateRtt, and
// the coordinate families of member.metrics() (docs/design.md, "Network coordinates").
import { afterEach, describe, expect, it } from 'vitest';
import type { Member, MetricsSnapshot } from '../src/index.js';
import { world, type World } from './world.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

function gauge(snapshot: MetricsSnapshot, name: string): number | undefined {
  return snapshot.families.find((f) => f.name === name)?.samples[0]?.value;
}

async function pair(coordinates: boolean): Promise<[Member, Member]> {
  w = world('virtual'); // one-way latency uniform 1-5 ms: RTTs of 2-10 ms, 6 on average
  const a = w.add('a', { coordinates });
  const b = w.add('b', { coordinates });
  await w.settle(b.join([a.address]));
  return [a, b];
}

describe('member coordinates', () => {
  it('estimate the simulated RTT once both have probed each other, and show in the metrics', async () => {
    const [a, b] = await pair(true);
    const fresh = a.metrics();
    expect(gauge(fresh, 'coordinate_error')).toBe(1.5);
    await w!.until(() => a.counters.coordinateUpdates >= 20 && b.counters.coordinateUpdates >= 20, 120_000);
    const estimate = a.estimateRtt('b')!;
    expect(estimate).toBeGreaterThan(2);
    expect(estimate).toBeLessThan(10);
    expect(a.estimateRtt('a', 'b')).toBe(estimate);
    expect(a.coordinateOf('a')).toBe(a.coordinate());
    // b's coordinate as a holds it is one b sent: b moved since, a little at most.
    expect(a.coordinateOf('b')!.vec).toHaveLength(8);
    expect(a.estimateRtt('nobody')).toBeUndefined();
    const snapshot = a.metrics();
    expect(gauge(snapshot, 'coordinate_error')).toBe(a.coordinate()!.error);
    expect(gauge(snapshot, 'coordinate_error')).toBeLessThan(1.5);
    expect(gauge(snapshot, 'coordinate_updates')).toBe(a.counters.coordinateUpdates);
    expect(gauge(snapshot, 'coordinates_rejected')).toBe(0);
    expect(gauge(snapshot, 'coordinate_resets')).toBe(0);
  });

  it('coordinates off: none, no estimate, no coordinate families', async () => {
    const [a] = await pair(false);
    await w!.until(() => a.counters.probes >= 5, 30_000);
    expect(a.coordinate()).toBeUndefined();
    expect(a.coordinateOf('b')).toBeUndefined();
    expect(a.estimateRtt('b')).toBeUndefined();
    expect(a.metrics().families.map((f) => f.name)).not.toContain('coordinate_error');
  });
});
