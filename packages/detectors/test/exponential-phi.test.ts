import { describe, expect, it } from 'vitest';
import { DetectorOptionsError, EXPONENTIAL_PHI_DEFAULTS, ExponentialPhi } from '../src/index.js';
import { feed, regular } from './helpers.js';

describe('ExponentialPhi (as Cassandra)', () => {
  it("has Cassandra's defaults: threshold 8, 1000 samples, 2 s first interval and cap", () => {
    expect(EXPONENTIAL_PHI_DEFAULTS).toEqual({ threshold: 8, maxSampleSize: 1000, firstIntervalEstimateMs: 2000, maxIntervalMs: 2000 });
    const d = new ExponentialPhi();
    expect(d.kind).toBe('exponential-phi');
    expect(d.threshold).toBe(8);
    expect(d.intervals()).toEqual([2000]);
    expect(d.stats()).toEqual({ samples: 1, mean: 2000, stdDeviation: 0 });
  });

  it('phi = silence / mean / ln 10', () => {
    const d = new ExponentialPhi();
    const at = feed(d, [1000, 1500, 500]); // window [2000, 1000, 1500, 500]: mean 1250
    expect(d.model()).toEqual({ mean: 1250 });
    for (const silence of [0, 100, 1250, 5000, 60_000]) {
      expect(d.phi(at + silence)).toBeCloseTo(silence / 1250 / Math.LN10, 12);
    }
    // At a silence of one mean interval: 1/ln 10 ≈ 0.434, where the normal model says log10(2) ≈ 0.301.
    expect(d.phi(at + 1250)).toBeCloseTo(0.4342944819032518, 15);
  });

  it('the horizon is threshold × ln 10 × mean, and phi(horizon) is the threshold', () => {
    for (const threshold of [1, 3, 8, 12]) {
      const d = new ExponentialPhi({ threshold });
      const at = feed(d, [900, 1100, 1300, 700]);
      const { mean } = d.model();
      expect(d.horizon()).toBeCloseTo(threshold * Math.log(10) * mean, 9);
      expect(d.phi(at + d.horizon())).toBeCloseTo(threshold, 12);
      expect(d.deadline()).toBe(at + d.horizon());
    }
  });

  it('with a 1 s mean, threshold 8 waits 18.4 s and threshold 1 waits 2.3 s (the Cassandra model)', () => {
    const eight = new ExponentialPhi({ firstIntervalEstimateMs: 1000 });
    feed(eight, regular(30));
    expect(eight.horizon()).toBeCloseTo(18_420.68, 1);
    const one = new ExponentialPhi({ threshold: 1, firstIntervalEstimateMs: 1000 });
    feed(one, regular(30));
    expect(one.horizon()).toBeCloseTo(2302.59, 1);
  });

  it('a gap above the cap is not learned; a gap equal to it is (Cassandra: interval <= MAX_INTERVAL)', () => {
    const d = new ExponentialPhi();
    const at = feed(d, regular(5));
    const before = d.stats();
    d.heartbeat(at + 2001);
    expect(d.stats()).toEqual(before);
    expect(d.lastHeartbeat).toBe(at + 2001);
    d.heartbeat(at + 2001 + 60_000); // an outage: also not learned
    expect(d.stats()).toEqual(before);
    d.heartbeat(at + 2001 + 60_000 + 2000);
    expect(d.intervals().at(-1)).toBe(2000);
    expect(d.stats().samples).toBe(before.samples + 1);
  });

  it('learns while suspect (Cassandra has no such rule), within the cap', () => {
    const d = new ExponentialPhi({ threshold: 0.5, maxIntervalMs: 10_000 });
    const at = feed(d, regular(5));
    expect(d.isAvailable(at + 5000)).toBe(false);
    d.heartbeat(at + 5000);
    expect(d.intervals().at(-1)).toBe(5000);
  });

  it('the window forgets', () => {
    const d = new ExponentialPhi({ maxSampleSize: 5, maxIntervalMs: 5000 });
    let at = feed(d, regular(10));
    expect(d.stats().mean).toBe(1000);
    for (let i = 0; i < 4; i++) d.heartbeat((at += 3000));
    expect(d.stats().mean).toBe((1000 + 4 * 3000) / 5);
    d.heartbeat((at += 3000));
    expect(d.stats().mean).toBe(3000);
  });

  it('does not suspect a member never heard from; reset starts over from the seed', () => {
    const d = new ExponentialPhi();
    expect(d.phi(1e9)).toBe(0);
    expect(d.isAvailable(1e9)).toBe(true);
    expect(d.deadline()).toBeUndefined();
    feed(d, regular(10, 500));
    d.reset();
    expect(d.lastHeartbeat).toBeUndefined();
    expect(d.intervals()).toEqual([2000]);
  });

  it('is suspect from the deadline on', () => {
    const d = new ExponentialPhi();
    const at = feed(d, regular(10));
    const deadline = at + d.horizon();
    expect(d.isAvailable(deadline - 1e-6)).toBe(true);
    expect(d.isAvailable(deadline)).toBe(false);
  });

  it('rejects invalid options, all at once', () => {
    expect(() => new ExponentialPhi({ threshold: 0, maxSampleSize: 2.5, firstIntervalEstimateMs: -1, maxIntervalMs: Number.NaN })).toThrow(
      expect.objectContaining({ problems: expect.arrayContaining([expect.stringContaining('threshold')]) }),
    );
    try {
      new ExponentialPhi({ threshold: 0, maxSampleSize: 2.5, firstIntervalEstimateMs: -1, maxIntervalMs: Number.NaN });
    } catch (e) {
      expect(e).toBeInstanceOf(DetectorOptionsError);
      expect((e as DetectorOptionsError).problems).toHaveLength(4);
    }
    expect(() => new ExponentialPhi().heartbeat(Number.NaN)).toThrow(RangeError);
  });
});
