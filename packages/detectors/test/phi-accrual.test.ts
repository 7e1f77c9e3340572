import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DetectorOptionsError,
  logisticTailPhiInverse,
  normalTailPhi,
  normalTailPhiInverse,
  PHI_ACCRUAL_DEFAULTS,
  PhiAccrual,
  type NormalTail,
} from '../src/index.js';
import { feed, last, pekkoPhi, regular, relativeError } from './helpers.js';

const TAILS: readonly NormalTail[] = ['exact', 'logistic'];
const Z8 = normalTailPhiInverse(8);

describe('PhiAccrual defaults and seeding', () => {
  it("has Pekko's production defaults, with the exact tail and no cap", () => {
    expect(PHI_ACCRUAL_DEFAULTS).toEqual({
      threshold: 8,
      maxSampleSize: 1000,
      minStdDeviationMs: 100,
      acceptableHeartbeatPauseMs: 3000,
      firstHeartbeatEstimateMs: 1000,
      maxIntervalMs: Number.POSITIVE_INFINITY,
      tail: 'exact',
      learnWhileSuspected: false,
    });
    const d = new PhiAccrual();
    expect(d.kind).toBe('phi-accrual');
    expect(d.threshold).toBe(8);
    expect(d.options).toEqual(PHI_ACCRUAL_DEFAULTS);
  });

  it('starts from two made-up intervals, estimate ∓ estimate/4 (mean = estimate, sd = estimate/4)', () => {
    const d = new PhiAccrual({ firstHeartbeatEstimateMs: 2000 });
    expect(d.intervals()).toEqual([1500, 2500]);
    expect(d.stats()).toEqual({ samples: 2, mean: 2000, stdDeviation: 500 });
    // So before anything is learned the horizon is estimate + pause + 5.61 × estimate/4.
    expect(d.horizon()).toBeCloseTo(2000 + 3000 + 500 * Z8, 9);
  });

  it('with a window of one, keeps only the second seed interval', () => {
    expect(new PhiAccrual({ maxSampleSize: 1 }).intervals()).toEqual([1250]);
  });

  it('does not suspect a member never heard from', () => {
    const d = new PhiAccrual();
    expect(d.lastHeartbeat).toBeUndefined();
    expect(d.phi(1e9)).toBe(0);
    expect(d.isAvailable(1e9)).toBe(true);
    expect(d.deadline()).toBeUndefined();
  });

  it('the first heartbeat learns nothing, it only starts the clock', () => {
    const d = new PhiAccrual();
    d.heartbeat(5000);
    expect(d.stats().samples).toBe(2);
    expect(d.lastHeartbeat).toBe(5000);
    expect(d.phi(5000)).toBeCloseTo(normalTailPhi(-3000 / 250), 15);
  });
});

describe('PhiAccrual identities', () => {
  it.each(TAILS)('phi at a silence equal to the mean is log10(2) (%s tail)', (tail) => {
    const d = new PhiAccrual({ tail, acceptableHeartbeatPauseMs: 0 });
    const at = feed(d, [900, 1100, 1000, 950, 1050, 1300, 700]);
    const { mean } = d.model();
    expect(mean).toBeCloseTo(d.stats().mean, 12);
    expect(d.phi(at + mean)).toBeCloseTo(Math.log10(2), 12);
  });

  it.each(TAILS)('with a pause, log10(2) moves to a silence of mean + pause (%s tail)', (tail) => {
    const d = new PhiAccrual({ tail, acceptableHeartbeatPauseMs: 3000 });
    const at = feed(d, regular(20));
    expect(d.phi(at + 1000)).toBeLessThan(1e-10);
    expect(d.phi(at + 4000)).toBeCloseTo(Math.log10(2), 12);
  });

  it.each(TAILS)('phi(horizon) equals the threshold, for thresholds from 0.5 to 40 (%s tail)', (tail) => {
    for (const threshold of [0.5, 1, 3, 8, 12, 16, 40]) {
      const d = new PhiAccrual({ tail, threshold, acceptableHeartbeatPauseMs: 500 });
      const at = feed(d, [1000, 1200, 800, 1000, 1500, 600]);
      expect(relativeError(d.phi(at + d.horizon()), threshold), `threshold ${threshold}`).toBeLessThan(1e-9);
    }
  });

  it('the threshold-8 point sits about 5.6 standard deviations past mean + pause (5.2 with the logistic tail)', () => {
    for (const tail of TAILS) {
      const d = new PhiAccrual({ tail });
      feed(d, [800, 1300, 900, 1200, 700, 1100]);
      const { mean, stdDeviation } = d.model();
      const deviations = (d.horizon() - mean) / stdDeviation;
      if (tail === 'exact') {
        expect(deviations).toBeCloseTo(5.612, 3);
      } else {
        expect(deviations).toBeCloseTo(5.226, 3);
      }
    }
  });

  it.each(TAILS)('the pause moves the horizon by exactly the pause (%s tail)', (tail) => {
    const history = [1000, 1100, 900, 1000, 1300, 1000, 800];
    const base = new PhiAccrual({ tail, acceptableHeartbeatPauseMs: 0 });
    feed(base, history);
    for (const pause of [1, 250, 3000, 10_000]) {
      const paused = new PhiAccrual({ tail, acceptableHeartbeatPauseMs: pause });
      feed(paused, history);
      expect(paused.stats()).toEqual(base.stats());
      expect(paused.horizon() - base.horizon()).toBeCloseTo(pause, 9);
    }
  });

  it('the horizon never goes below 0: a threshold under log10(2) with a wide spread suspects at once', () => {
    const d = new PhiAccrual({ threshold: 0.1, acceptableHeartbeatPauseMs: 0, maxSampleSize: 3 });
    const at = feed(d, [1, 1]); // window [1250, 1, 1]: mean 417, sd 589
    expect(d.model().mean + d.model().stdDeviation * normalTailPhiInverse(0.1)).toBeLessThan(0);
    expect(d.horizon()).toBe(0);
    expect(d.deadline()).toBe(at);
    expect(d.phi(at)).toBeGreaterThan(0.1);
    expect(d.isAvailable(at)).toBe(false);
  });

  it('deadline is the last heartbeat plus the horizon, and the member is suspect from it on', () => {
    const d = new PhiAccrual();
    const at = feed(d, regular(30), 12_345);
    const deadline = at + d.horizon();
    expect(d.deadline()).toBe(deadline);
    expect(d.isAvailable(deadline - 1e-6)).toBe(true);
    expect(d.isAvailable(deadline)).toBe(false);
    expect(d.phi(deadline + 1)).toBeGreaterThan(8);
  });
});

describe('PhiAccrual standard deviation floor', () => {
  it('applies to a regular history: the spread used is the floor', () => {
    const d = new PhiAccrual({ acceptableHeartbeatPauseMs: 0, maxSampleSize: 20 });
    const at = feed(d, regular(40));
    expect(d.stats()).toEqual({ samples: 20, mean: 1000, stdDeviation: 0 });
    expect(d.model()).toEqual({ mean: 1000, stdDeviation: 100 });
    // The study's worked example: mean 1 s, spread 0.1 s; 1.2 s of silence is phi 1.64, and
    // threshold 8 fires after 1.56 s.
    expect(d.phi(at + 1200)).toBeCloseTo(1.643016080140937, 12);
    expect(d.horizon()).toBeCloseTo(1000 + 100 * Z8, 9);
    expect(d.horizon()).toBeCloseTo(1561.2, 1);
  });

  it('does not touch a spread above it', () => {
    const d = new PhiAccrual({ minStdDeviationMs: 100, maxSampleSize: 4 });
    feed(d, [700, 1300, 700, 1300]);
    expect(d.stats().stdDeviation).toBe(300);
    expect(d.model().stdDeviation).toBe(300);
  });

  it('a tiny floor turns 50 ms of lateness into certainty; the default keeps it calm', () => {
    const tiny = new PhiAccrual({ minStdDeviationMs: 1, acceptableHeartbeatPauseMs: 0, maxSampleSize: 20 });
    const sane = new PhiAccrual({ acceptableHeartbeatPauseMs: 0, maxSampleSize: 20 });
    const at = feed(tiny, regular(40));
    feed(sane, regular(40));
    expect(tiny.phi(at + 1050)).toBeGreaterThan(100);
    expect(sane.phi(at + 1050)).toBeLessThan(1);
  });
});

describe('PhiAccrual window and learning', () => {
  it('the window forgets: after maxSampleSize new intervals nothing old is left', () => {
    const d = new PhiAccrual({ maxSampleSize: 10 });
    let at = feed(d, regular(20));
    expect(d.stats().mean).toBe(1000);
    for (let i = 1; i <= 9; i++) {
      at += 3000;
      d.heartbeat(at);
    }
    expect(d.stats()).toMatchObject({ samples: 10, mean: 2800 }); // one old interval left
    d.heartbeat(at + 3000);
    expect(d.stats()).toEqual({ samples: 10, mean: 3000, stdDeviation: 0 });
    expect(d.intervals()).toEqual(regular(10, 3000));
  });

  it('a gap above the cap is not learned; a gap equal to it is', () => {
    const capped = new PhiAccrual({ maxIntervalMs: 2000 });
    const at = feed(capped, regular(10));
    const before = capped.stats();
    capped.heartbeat(at + 2500); // well inside the horizon (~4.6 s): only the cap stops it
    expect(capped.stats()).toEqual(before);
    expect(capped.lastHeartbeat).toBe(at + 2500);
    capped.heartbeat(at + 4500);
    expect(capped.stats().samples).toBe(before.samples + 1);
    expect(capped.intervals().at(-1)).toBe(2000);

    const uncapped = new PhiAccrual();
    const at2 = feed(uncapped, regular(10));
    uncapped.heartbeat(at2 + 2500);
    expect(uncapped.intervals().at(-1)).toBe(2500);
  });

  it("the interval of a heartbeat that arrives while suspect is not learned (Pekko), unless asked", () => {
    const pekko = new PhiAccrual();
    const at = feed(pekko, regular(10));
    const before = pekko.stats();
    expect(pekko.isAvailable(at + 10_000)).toBe(false);
    pekko.heartbeat(at + 10_000);
    expect(pekko.stats()).toEqual(before);
    expect(pekko.phi(at + 10_000)).toBeCloseTo(normalTailPhi(-3000 / 100), 12); // the clock restarted

    const paper = new PhiAccrual({ learnWhileSuspected: true });
    const at2 = feed(paper, regular(10));
    paper.heartbeat(at2 + 10_000);
    expect(paper.intervals().at(-1)).toBe(10_000);
  });

  it('ignores a heartbeat older than the latest, and rejects a time that is not a number', () => {
    const d = new PhiAccrual();
    const at = feed(d, regular(5));
    const before = d.stats();
    d.heartbeat(at - 500);
    expect(d.lastHeartbeat).toBe(at);
    expect(d.stats()).toEqual(before);
    expect(() => d.heartbeat(Number.NaN)).toThrow(RangeError);
    expect(() => d.heartbeat(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(d.phi(at - 500)).toBe(d.phi(at)); // silence never negative
  });

  it('reset forgets the history and the latest heartbeat', () => {
    const d = new PhiAccrual();
    feed(d, regular(50, 3000));
    d.reset();
    expect(d.lastHeartbeat).toBeUndefined();
    expect(d.intervals()).toEqual([750, 1250]);
    expect(d.phi(1e9)).toBe(0);
  });
});

describe('PhiAccrual against Pekko', () => {
  it("the logistic tail gives Pekko's phi for Pekko's mean + pause and floored spread", () => {
    const d = new PhiAccrual({ tail: 'logistic' });
    const at = feed(d, [1000, 1200, 800, 1100, 900, 1000, 1400]);
    const { mean, stdDeviation } = d.model();
    for (let silence = 0; silence < 8000; silence += 97) {
      const expected = pekkoPhi(silence, mean, stdDeviation);
      expect(Math.abs(d.phi(at + silence) - expected)).toBeLessThan(1e-12 * Math.max(1, expected));
    }
  });

  it('the logistic horizons match the derived table of the reference (mean 1 s + 3 s pause)', () => {
    // Pekko's model (mean 1 s, 3 s acceptable pause), derived: Φ 1, 3, 5, 8, 12, 16 → 4.13, 4.31, 4.41, 4.52, 4.63, 4.71 s at σ = 100 ms
    // and 4.26, 4.61, 4.82, 5.05, 5.26, 5.42 s at σ = 200 ms.
    const table: ReadonlyArray<readonly [number, number, number]> = [
      [1, 4130, 4260], [3, 4310, 4610], [5, 4410, 4820], [8, 4520, 5050], [12, 4630, 5260], [16, 4710, 5420],
    ];
    for (const [threshold, floor100, sd200] of table) {
      const regularHistory = new PhiAccrual({ tail: 'logistic', threshold, maxSampleSize: 20 });
      feed(regularHistory, regular(40));
      expect(Math.abs(regularHistory.horizon() - floor100), `Φ ${threshold}, σ 100`).toBeLessThanOrEqual(5);
      const spread = new PhiAccrual({ tail: 'logistic', threshold, maxSampleSize: 20 });
      feed(spread, Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 800 : 1200)));
      expect(spread.model()).toEqual({ mean: 4000, stdDeviation: 200 });
      expect(Math.abs(spread.horizon() - sd200), `Φ ${threshold}, σ 200`).toBeLessThanOrEqual(5);
      expect(spread.horizon()).toBeCloseTo(4000 + 200 * logisticTailPhiInverse(threshold), 9);
    }
  });
});

describe('PhiAccrual options', () => {
  it('lists every invalid option at once', () => {
    let error: unknown;
    try {
      new PhiAccrual({
        threshold: -1,
        maxSampleSize: 0,
        minStdDeviationMs: 0,
        acceptableHeartbeatPauseMs: -5,
        firstHeartbeatEstimateMs: Number.NaN,
        maxIntervalMs: 0,
        tail: 'cauchy' as NormalTail,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DetectorOptionsError);
    expect(error).toBeInstanceOf(RangeError);
    expect((error as DetectorOptionsError).problems).toHaveLength(7);
  });
});

describe('PhiAccrual properties', () => {
  const history = fc.array(fc.double({ min: 1, max: 5000, noNaN: true }), { minLength: 0, maxLength: 40 });
  const options = fc.record({
    threshold: fc.double({ min: 0.1, max: 30, noNaN: true }),
    acceptableHeartbeatPauseMs: fc.double({ min: 0, max: 5000, noNaN: true }),
    minStdDeviationMs: fc.double({ min: 1, max: 500, noNaN: true }),
    maxSampleSize: fc.integer({ min: 1, max: 50 }),
    tail: fc.constantFrom<NormalTail>('exact', 'logistic'),
    learnWhileSuspected: fc.boolean(),
  });

  it('phi never decreases as the silence grows', () => {
    fc.assert(
      fc.property(options, history, fc.double({ min: 0, max: 60_000, noNaN: true }), fc.double({ min: 0, max: 10_000, noNaN: true }), (o, h, s, step) => {
        const d = new PhiAccrual(o);
        const at = feed(d, h);
        expect(d.phi(at + s + step)).toBeGreaterThanOrEqual(d.phi(at + s) - 1e-12);
      }),
    );
  });

  it('the horizon is where phi reaches the threshold, and isAvailable switches there', () => {
    fc.assert(
      fc.property(options, history, (o, h) => {
        const d = new PhiAccrual(o);
        const at = feed(d, h);
        const horizon = d.horizon();
        if (horizon === 0) {
          // A threshold under log10(2) with a wide spread: suspect from the start.
          expect(d.phi(at)).toBeGreaterThanOrEqual(o.threshold);
          expect(d.isAvailable(at)).toBe(false);
          return;
        }
        expect(relativeError(d.phi(at + horizon), o.threshold)).toBeLessThan(1e-9);
        const below = at + horizon - Math.max(1e-3, horizon * 1e-6);
        const above = at + horizon + Math.max(1e-3, horizon * 1e-6);
        expect(d.phi(below)).toBeLessThan(o.threshold);
        expect(d.isAvailable(below)).toBe(true);
        expect(d.phi(above)).toBeGreaterThan(o.threshold);
        expect(d.isAvailable(above)).toBe(false);
      }),
    );
  });
});
