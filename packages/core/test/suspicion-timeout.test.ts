import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  confirmationsWanted,
  remainingSuspicionMs,
  suspicionTimeoutMs,
} from '../src/lifeguard/suspicion-timeout.js';

// Computed with memberlist's own functions (util.go suspicionTimeout). [n, LAN min, WAN min, Local min] in ms.
// LAN: mult 4, interval 1 s; WAN: mult 6, interval 5 s; Local: mult 3, interval 1 s. Max = 6 × min.
const MIN_TABLE: readonly (readonly [number, number, number, number])[] = [
  [1, 4000, 30_000, 3000],
  [9, 4000, 30_000, 3000],
  [10, 4000, 30_000, 3000],
  [32, 6020, 45_150, 4515],
  [33, 6072, 45_540, 4554],
  [64, 7224, 54_180, 5418],
  [65, 7248, 54_360, 5436],
  [100, 8000, 60_000, 6000],
  [1000, 12_000, 90_000, 9000],
  [10_000, 16_000, 120_000, 12_000],
];

// memberlist's max values (SuspicionMaxTimeoutMult × min) where given.
const MAX_TABLE: readonly (readonly [profile: 'lan' | 'wan' | 'local', n: number, maxMs: number])[] = [
  ['lan', 1, 24_000],
  ['lan', 9, 24_000],
  ['lan', 10, 24_000],
  ['lan', 32, 36_120],
  ['lan', 100, 48_000],
  ['lan', 1000, 72_000],
  ['lan', 10_000, 96_000],
  ['wan', 1, 180_000],
  ['wan', 10, 180_000],
  ['wan', 100, 360_000],
  ['local', 1, 18_000],
  ['local', 10, 18_000],
  ['local', 100, 36_000],
];

const PROFILE = { lan: [4, 1000], wan: [6, 5000], local: [3, 1000] } as const;

describe('suspicionTimeoutMs (memberlist util.go suspicionTimeout)', () => {
  it.each(MIN_TABLE)('n=%i: LAN %i ms, WAN %i ms, Local %i ms', (n, lan, wan, local) => {
    expect(suspicionTimeoutMs(4, n, 1000)).toBe(lan);
    expect(suspicionTimeoutMs(6, n, 5000)).toBe(wan);
    expect(suspicionTimeoutMs(3, n, 1000)).toBe(local);
  });

  it.each(MAX_TABLE)('%s n=%i: max = 6 × min = %i ms', (profile, n, maxMs) => {
    const [mult, interval] = PROFILE[profile];
    expect(6 * suspicionTimeoutMs(mult, n, interval)).toBe(maxMs);
  });

  it('floors n at 1 and the scale at 1 (n <= 10 is flat)', () => {
    expect(suspicionTimeoutMs(4, 0, 1000)).toBe(4000);
    expect(suspicionTimeoutMs(4, -5, 1000)).toBe(4000);
    expect(suspicionTimeoutMs(4, 11, 1000)).toBe(4164); // trunc(1041.39...) × 4
  });

  it('keeps nanosecond precision for intervals that are not whole seconds', () => {
    // Go: 4 × 1505 × 333 ms / 1000 = 2004.66 ms exactly, in integer nanoseconds.
    expect(suspicionTimeoutMs(4, 32, 333)).toBeCloseTo(2004.66, 9);
  });
});

describe('confirmationsWanted (memberlist state.go suspectNode)', () => {
  it.each([
    // [mult, n, k]
    [4, 100, 2], // LAN
    [6, 100, 4], // WAN
    [3, 100, 1], // Local
    [4, 4, 2], // n − 2 = k: enough members
    [4, 3, 0], // n − 2 < k: forced to 0
    [6, 5, 0],
    [6, 6, 4],
    [3, 2, 0],
    [3, 3, 1],
    [2, 100, 0],
    [1, 100, 0], // never negative
  ])('mult %i, n %i → k = %i', (mult, n, k) => {
    expect(confirmationsWanted(mult, n)).toBe(k);
  });
});

describe('remainingSuspicionMs (memberlist suspicion.go remainingSuspicionTime)', () => {
  it.each([
    // upstream suspicion_test.go: (n, k, elapsed, min 2 s, max 30 s) → remaining
    [0, 3, 0, 30_000],
    [1, 3, 2000, 14_000],
    [2, 3, 3000, 4810],
    [3, 3, 4000, -2000],
    [4, 3, 5000, -3000],
    [5, 3, 10_000, -8000],
  ])('upstream vector: %i confirmations of %i, elapsed %i ms → %i ms', (n, k, elapsed, expected) => {
    expect(remainingSuspicionMs(n, k, elapsed, 2000, 30_000)).toBe(expected);
  });

  it('LAN n = 100 (min 8 s, max 48 s, k 2): 48 s, 22.762 s, 8 s (memberlist remainingSuspicionTime)', () => {
    const min = suspicionTimeoutMs(4, 100, 1000);
    const max = 6 * min;
    const k = confirmationsWanted(4, 100);
    expect([0, 1, 2].map((c) => remainingSuspicionMs(c, k, 0, min, max))).toEqual([48_000, 22_762, 8000]);
  });

  it('mult 6, interval 1 s, n = 100 (min 12 s, max 72 s, k 4): 72, 46.159, 31.043, 20.318, 12 s', () => {
    const min = suspicionTimeoutMs(6, 100, 1000);
    const max = 6 * min;
    const k = confirmationsWanted(6, 100);
    expect([min, max, k]).toEqual([12_000, 72_000, 4]);
    expect([0, 1, 2, 3, 4].map((c) => remainingSuspicionMs(c, k, 0, min, max))).toEqual([
      72_000, 46_159, 31_043, 20_318, 12_000,
    ]);
  });

  it('k = 0 (forced, or Local with few members): min − elapsed, whatever the confirmations', () => {
    const k = confirmationsWanted(4, 3);
    expect(k).toBe(0);
    expect(remainingSuspicionMs(0, k, 0, 4000, 24_000)).toBe(4000);
    expect(remainingSuspicionMs(1, k, 1500, 4000, 24_000)).toBe(2500);
    expect(remainingSuspicionMs(0, k, 5000, 4000, 24_000)).toBe(-1000);
  });

  it('more confirmations than wanted clamp to min', () => {
    expect(remainingSuspicionMs(7, 2, 0, 8000, 48_000)).toBe(8000);
  });

  it('is monotone non-increasing in confirmations and within [min, max] at elapsed 0 (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }), // k
        fc.integer({ min: 1, max: 600_000 }), // min (ms)
        fc.integer({ min: 1, max: 10 }), // max multiplier
        (k, min, maxMult) => {
          const max = min * maxMult;
          let previous = Number.POSITIVE_INFINITY;
          for (let c = 0; c <= k + 2; c++) {
            const remaining = remainingSuspicionMs(c, k, 0, min, max);
            expect(remaining).toBeLessThanOrEqual(previous);
            expect(remaining).toBeGreaterThanOrEqual(min);
            expect(remaining).toBeLessThanOrEqual(max);
            previous = remaining;
          }
          // memberlist converts to float seconds and floors to whole ms, which can lose 1 ms (Go does the same).
          expect(remainingSuspicionMs(0, k, 0, min, max)).toBeGreaterThanOrEqual(max - 1);
          expect(remainingSuspicionMs(k, k, 0, min, max)).toBe(min);
        },
      ),
    );
  });

  it('elapsed time is subtracted one for one (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 100_000 }),
        (c, k, elapsed) => {
          const atZero = remainingSuspicionMs(c, k, 0, 4000, 24_000);
          expect(remainingSuspicionMs(c, k, elapsed, 4000, 24_000)).toBe(atZero - elapsed);
        },
      ),
    );
  });
});
