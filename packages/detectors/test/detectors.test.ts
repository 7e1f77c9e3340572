import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createFailureDetector,
  ExponentialPhi,
  FixedTimeout,
  PhiAccrual,
  type DetectorSpec,
  type FailureDetector,
} from '../src/index.js';
import { feed, regular, relativeError } from './helpers.js';

describe('one interface, thresholds that do not compare', () => {
  it('the same history and the same threshold 8 tolerate very different silences', () => {
    const normal = new PhiAccrual({ acceptableHeartbeatPauseMs: 0 });
    const exponential = new ExponentialPhi({ firstIntervalEstimateMs: 1000 });
    for (const d of [normal, exponential]) feed(d, regular(100));
    expect(normal.threshold).toBe(exponential.threshold);
    expect(normal.horizon()).toBeCloseTo(1561.2, 1); // 5.6 floored standard deviations past 1 s
    expect(exponential.horizon()).toBeCloseTo(18_420.7, 1); // 18.4 mean intervals
    // And at a silence of exactly the mean they already disagree.
    expect(normal.phi(normal.lastHeartbeat! + 1000)).toBeCloseTo(Math.log10(2), 12);
    expect(exponential.phi(exponential.lastHeartbeat! + 1000)).toBeCloseTo(1 / Math.LN10, 12);
  });

  it('Pekko defaults (3 s pause) put threshold 8 at 4.56 s for a regular 1 s heartbeat', () => {
    const d = new PhiAccrual();
    feed(d, regular(2000));
    expect(d.horizon()).toBeCloseTo(4561.2, 1);
  });
});

describe('createFailureDetector', () => {
  it('builds each kind from data, passing the options on', () => {
    const fixed = createFailureDetector({ kind: 'fixed-timeout', timeoutMs: 1234 });
    expect(fixed).toBeInstanceOf(FixedTimeout);
    expect(fixed.horizon()).toBe(1234);
    const phi = createFailureDetector({ kind: 'phi-accrual', threshold: 12, tail: 'logistic' });
    expect(phi).toBeInstanceOf(PhiAccrual);
    expect((phi as PhiAccrual).options).toMatchObject({ threshold: 12, tail: 'logistic' });
    const exp = createFailureDetector({ kind: 'exponential-phi', maxIntervalMs: 5000 });
    expect(exp).toBeInstanceOf(ExponentialPhi);
    expect((exp as ExponentialPhi).options.maxIntervalMs).toBe(5000);
  });
});

describe('properties shared by every detector', () => {
  const spec: fc.Arbitrary<DetectorSpec> = fc.oneof(
    fc.record({ kind: fc.constant('fixed-timeout' as const), timeoutMs: fc.double({ min: 1, max: 20_000, noNaN: true }) }),
    fc.record({
      kind: fc.constant('phi-accrual' as const),
      threshold: fc.double({ min: 0.5, max: 20, noNaN: true }),
      acceptableHeartbeatPauseMs: fc.double({ min: 0, max: 5000, noNaN: true }),
      maxSampleSize: fc.integer({ min: 1, max: 30 }),
      maxIntervalMs: fc.double({ min: 100, max: 10_000, noNaN: true }),
      tail: fc.constantFrom('exact' as const, 'logistic' as const),
    }),
    fc.record({
      kind: fc.constant('exponential-phi' as const),
      threshold: fc.double({ min: 0.5, max: 20, noNaN: true }),
      maxSampleSize: fc.integer({ min: 1, max: 30 }),
      maxIntervalMs: fc.double({ min: 100, max: 10_000, noNaN: true }),
    }),
  );
  const history = fc.array(fc.double({ min: 1, max: 8000, noNaN: true }), { maxLength: 40 });

  it('phi never decreases with silence, and isAvailable is phi < threshold away from the boundary', () => {
    fc.assert(
      fc.property(spec, history, fc.array(fc.double({ min: 0, max: 100_000, noNaN: true }), { minLength: 2, maxLength: 10 }), (s, h, silences) => {
        const d: FailureDetector = createFailureDetector(s);
        const at = feed(d, h);
        const sorted = [...silences].sort((a, b) => a - b);
        let previous = -Infinity;
        for (const silence of sorted) {
          const phi = d.phi(at + silence);
          expect(phi).toBeGreaterThanOrEqual(previous - 1e-12);
          previous = phi;
          if (Math.abs(phi - d.threshold) > 1e-9 * d.threshold) expect(d.isAvailable(at + silence)).toBe(phi < d.threshold);
        }
      }),
    );
  });

  it('phi(lastHeartbeat + horizon) is the threshold and the deadline is where availability ends', () => {
    fc.assert(
      fc.property(spec, history, (s, h) => {
        const d = createFailureDetector(s);
        const at = feed(d, h, 1_000_000);
        expect(relativeError(d.phi(at + d.horizon()), d.threshold)).toBeLessThan(1e-9);
        const deadline = d.deadline()!;
        expect(deadline).toBe(at + d.horizon());
        expect(d.isAvailable(deadline)).toBe(false);
        expect(d.isAvailable(deadline - Math.max(1e-6, deadline * 1e-12))).toBe(true);
      }),
    );
  });

  it('reset gives back a detector that behaves as a new one', () => {
    fc.assert(
      fc.property(spec, history, history, (s, before, after) => {
        const used = createFailureDetector(s);
        feed(used, before);
        used.reset();
        const fresh = createFailureDetector(s);
        const a = feed(used, after, 50);
        feed(fresh, after, 50);
        expect(used.horizon()).toBe(fresh.horizon());
        expect(used.phi(a + 777)).toBe(fresh.phi(a + 777));
      }),
    );
  });
});
