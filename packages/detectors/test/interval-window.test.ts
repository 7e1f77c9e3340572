import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntervalWindow } from '../src/index.js';

function naive(values: readonly number[]) {
  const n = values.length;
  const sum = values.reduce((a, b) => a + b, 0);
  const sumOfSquares = values.reduce((a, b) => a + b * b, 0);
  const mean = sum / n;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / n;
  return { sum, sumOfSquares, mean, variance };
}

describe('IntervalWindow', () => {
  it('keeps the newest `capacity` intervals, oldest first', () => {
    const w = new IntervalWindow(3);
    for (const v of [1, 2, 3, 4, 5]) w.push(v);
    expect(w.values()).toEqual([3, 4, 5]);
    expect(w.size).toBe(3);
    expect(w.sum).toBe(12);
    expect(w.sumOfSquares).toBe(9 + 16 + 25);
    expect(w.mean).toBe(4);
    expect(w.variance).toBeCloseTo(2 / 3, 12);
  });

  it('uses the population variance, as Pekko', () => {
    const w = new IntervalWindow(10);
    w.push(750);
    w.push(1250);
    expect(w.mean).toBe(1000);
    expect(w.stdDeviation).toBe(250);
  });

  it('never reports a negative variance', () => {
    const w = new IntervalWindow(4);
    for (let i = 0; i < 100; i++) w.push(0.1 + 1e-17 * i);
    expect(w.variance).toBeGreaterThanOrEqual(0);
  });

  it('clears', () => {
    const w = new IntervalWindow(2);
    w.push(5);
    w.clear();
    expect(w.size).toBe(0);
    expect(w.mean).toBeNaN();
    w.push(7);
    expect(w.values()).toEqual([7]);
    expect(w.mean).toBe(7);
  });

  it('rejects a capacity that is not a positive integer', () => {
    expect(() => new IntervalWindow(0)).toThrow(RangeError);
    expect(() => new IntervalWindow(1.5)).toThrow(RangeError);
  });

  it('running sums equal a naive recomputation over the last `capacity` intervals, after every push', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.double({ min: 0, max: 100_000, noNaN: true }), { minLength: 1, maxLength: 60 }),
        (capacity, intervals) => {
          const w = new IntervalWindow(capacity);
          // Running sums carry the rounding of every value that passed through, so the tolerance
          // scales with the largest one seen, not with what is left.
          const largest = Math.max(1, ...intervals);
          const tolerance = 1e-12 * capacity * largest * largest;
          intervals.forEach((interval, i) => {
            w.push(interval);
            const kept = intervals.slice(Math.max(0, i + 1 - capacity), i + 1);
            const expected = naive(kept);
            expect(w.values()).toEqual(kept);
            expect(w.size).toBe(kept.length);
            expect(Math.abs(w.sum - expected.sum)).toBeLessThanOrEqual(1e-12 * capacity * largest);
            expect(Math.abs(w.sumOfSquares - expected.sumOfSquares)).toBeLessThanOrEqual(tolerance);
            expect(Math.abs(w.mean - expected.mean)).toBeLessThanOrEqual(1e-12 * largest);
            expect(Math.abs(w.variance - expected.variance)).toBeLessThanOrEqual(tolerance);
          });
        },
      ),
    );
  });
});
