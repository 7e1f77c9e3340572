import { describe, expect, it } from 'vitest';
import { formatDuration, formatNumber, max, mean, median, min, quantile, sum, summarize } from '../src/stats.js';

describe('stats', () => {
  it('sum, mean, min, max', () => {
    expect(sum([1, 2, 3.5])).toBe(6.5);
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(min([3, -1, 2])).toBe(-1);
    expect(max([3, -1, 2])).toBe(3);
  });

  it('empty input gives NaN, not a throw', () => {
    expect(mean([])).toBeNaN();
    expect(median([])).toBeNaN();
    expect(max([])).toBeNaN();
    expect(summarize([])).toMatchObject({ count: 0 });
  });

  it('quantiles interpolate between closest ranks (type 7)', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([5, 1, 3])).toBe(3);
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBeCloseTo(9.1);
    expect(quantile([7], 0.9)).toBe(7);
    expect(quantile([1, 2], 0)).toBe(1);
    expect(quantile([1, 2], 1)).toBe(2);
    expect(() => quantile([1], 1.5)).toThrow(RangeError);
  });

  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });

  it('summarize gives median, p90, max and mean', () => {
    const s = summarize([10, 12, 11, 14, 30]);
    expect(s).toEqual({ count: 5, median: 12, p90: quantile([10, 12, 11, 14, 30], 0.9), max: 30, mean: 15.4 });
  });

  it('formats durations and numbers for tables', () => {
    expect(formatDuration(250)).toBe('250 ms');
    expect(formatDuration(1234)).toBe('1.2 s');
    expect(formatDuration(75_000)).toBe('1m15s');
    expect(formatDuration(3_726_000)).toBe('1h02m');
    expect(formatDuration(Number.NaN)).toBe('?');
    expect(formatNumber(3)).toBe('3');
    expect(formatNumber(2.345, 2)).toBe('2.35');
    expect(formatNumber(Number.NaN)).toBe('—');
  });
});
