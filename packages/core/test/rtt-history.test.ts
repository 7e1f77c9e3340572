import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// A devDependency used only here: the core itself depends on nothing (docs/design.md, "Layers").
import { normalTailPhiInverse } from '@swim/detectors';
import { adaptiveTimeoutMs, phiThresholdDeviations, RttHistory, RttWindow, type AdaptiveTimeoutParams } from '../src/index.js';

const PARAMS: AdaptiveTimeoutParams = { floorMs: 100, ceilingMs: 500, deviations: phiThresholdDeviations(4), minStdDevMs: 20, minSamples: 5 };

function naive(values: readonly number[]): { mean: number; stdDev: number } {
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length;
  return { mean, stdDev: Math.sqrt(variance) };
}

describe('phiThresholdDeviations (the core’s own inverse normal tail)', () => {
  it.each([
    [1, 1.2815515655446004],
    [2, 2.3263478740408408],
    [3, 3.090232306167814],
    [4, 3.719016485455709],
    [8, 5.612001244174789],
    [16, 8.222082216130435],
  ])('phi %d → %f standard deviations', (phi, z) => {
    expect(phiThresholdDeviations(phi)).toBeCloseTo(z, 7);
  });

  it('agrees with @swim/detectors normalTailPhiInverse to 1e-8 relative, over thresholds 0.01..40', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 40, noNaN: true }), (phi) => {
        const ours = phiThresholdDeviations(phi);
        const theirs = normalTailPhiInverse(phi);
        expect(Math.abs(ours - theirs)).toBeLessThanOrEqual(1e-8 * Math.max(1, Math.abs(theirs)));
      }),
      { numRuns: 2000 },
    );
  });

  it('is increasing in phi, and NaN outside (0, ∞)', () => {
    let previous = -Infinity;
    for (let phi = 0.05; phi <= 30; phi += 0.05) {
      const z = phiThresholdDeviations(phi);
      expect(z).toBeGreaterThan(previous);
      previous = z;
    }
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(phiThresholdDeviations(bad)).toBeNaN();
  });
});

describe('adaptiveTimeoutMs (mean + z·max(std, floor), clamped)', () => {
  const z = PARAMS.deviations;
  it.each([
    ['no samples: the fixed timeout', { count: 0, mean: Number.NaN, stdDev: Number.NaN }, 500],
    ['too few samples: the fixed timeout', { count: 4, mean: 150, stdDev: 30 }, 500],
    ['enough samples: mean + z·std', { count: 5, mean: 150, stdDev: 50 }, 150 + z * 50],
    ['a small spread is floored at minStdDevMs', { count: 5, mean: 150, stdDev: 2 }, 150 + z * 20],
    ['a LAN member: held up at the floor', { count: 32, mean: 5, stdDev: 1 }, 100],
    ['a slow member: held down at the ceiling', { count: 32, mean: 300, stdDev: 120 }, 500],
  ])('%s', (_what, stats, expected) => {
    expect(adaptiveTimeoutMs(stats, PARAMS, 500)).toBeCloseTo(expected, 9);
  });

  it('the fixed timeout is used as is below minSamples, even outside [floor, ceiling]', () => {
    expect(adaptiveTimeoutMs({ count: 1, mean: 10, stdDev: 0 }, PARAMS, 3000)).toBe(3000);
  });
});

describe('RttWindow (ring buffer with running sums)', () => {
  it('keeps the last `capacity` values, oldest first, and their mean and population std', () => {
    const w = new RttWindow(3);
    expect(w.count).toBe(0);
    expect(w.mean).toBeNaN();
    for (const v of [10, 20, 30, 40]) w.push(v);
    expect(w.values()).toEqual([20, 30, 40]);
    expect(w.count).toBe(3);
    expect(w.mean).toBe(30);
    expect(w.stdDev).toBeCloseTo(Math.sqrt(200 / 3), 12);
  });

  it('ignores RTTs that are not finite and >= 0', () => {
    const w = new RttWindow(4);
    for (const v of [Number.NaN, -1, Number.POSITIVE_INFINITY, 7]) w.push(v);
    expect(w.values()).toEqual([7]);
    expect(w.stdDev).toBe(0);
  });

  it('rejects a bad capacity', () => {
    expect(() => new RttWindow(0)).toThrow(RangeError);
    expect(() => new RttWindow(2.5)).toThrow(RangeError);
  });

  it('matches a naive computation over the last `capacity` values, however many were pushed (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.double({ min: 0, max: 10_000, noNaN: true }), { minLength: 1, maxLength: 300 }),
        (capacity, rtts) => {
          const w = new RttWindow(capacity);
          for (const r of rtts) w.push(r);
          const kept = rtts.slice(-capacity);
          expect(w.values()).toEqual(kept);
          const { mean, stdDev } = naive(kept);
          expect(w.mean).toBeCloseTo(mean, 6);
          // Running sums lose a little to cancellation when the spread is tiny next to the mean.
          expect(Math.abs(w.stdDev - stdDev)).toBeLessThanOrEqual(1e-3 + 1e-6 * mean);
        },
      ),
    );
  });
});

describe('RttHistory', () => {
  it('uses the fixed timeout until a member has minSamples RTTs, then its own; forgets on request', () => {
    const h = new RttHistory(8, PARAMS);
    expect(h.timeoutFor('a', 500)).toBe(500);
    for (let i = 0; i < 4; i++) h.record('a', 150);
    expect(h.isAdaptive('a')).toBe(false);
    expect(h.timeoutFor('a', 500)).toBe(500);
    h.record('a', 150);
    expect(h.isAdaptive('a')).toBe(true);
    expect(h.timeoutFor('a', 500)).toBeCloseTo(150 + PARAMS.deviations * 20, 9);
    expect(h.timeoutFor('b', 500)).toBe(500); // members do not share history
    expect(h.size).toBe(1);
    h.forget('a');
    expect(h.size).toBe(0);
    expect(h.isAdaptive('a')).toBe(false);
    expect(h.timeoutFor('a', 500)).toBe(500);
  });

  it('once adaptive, the timeout stays within [floor, ceiling] whatever the RTTs (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          floorMs: fc.double({ min: 1, max: 1000, noNaN: true }),
          spanMs: fc.double({ min: 0, max: 4000, noNaN: true }),
          phi: fc.double({ min: 1, max: 20, noNaN: true }),
          minStdDevMs: fc.double({ min: 0, max: 500, noNaN: true }),
          minSamples: fc.integer({ min: 1, max: 16 }),
          window: fc.integer({ min: 16, max: 64 }),
        }),
        fc.array(fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constant(0), fc.double({ min: 0, max: 5, noNaN: true })), {
          minLength: 16,
          maxLength: 200,
        }),
        (p, rtts) => {
          const params: AdaptiveTimeoutParams = {
            floorMs: p.floorMs,
            ceilingMs: p.floorMs + p.spanMs,
            deviations: phiThresholdDeviations(p.phi),
            minStdDevMs: p.minStdDevMs,
            minSamples: p.minSamples,
          };
          const h = new RttHistory(p.window, params);
          for (const r of rtts) {
            h.record('m', r);
            const t = h.timeoutFor('m', 12_345);
            if (h.isAdaptive('m')) {
              expect(t).toBeGreaterThanOrEqual(params.floorMs);
              expect(t).toBeLessThanOrEqual(params.ceilingMs);
            } else {
              expect(t).toBe(12_345);
            }
          }
        },
      ),
    );
  });
});
