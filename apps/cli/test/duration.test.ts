import { describe, expect, it } from 'vitest';
import { DurationError, formatDuration, parseDuration } from '../src/flags/duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['1s', 1_000],
    ['30s', 30_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    ['1h2m3s4ms', 3_723_004],
    ['1.5s', 1_500],
    ['.5s', 500],
    ['0.1s', 100],
    ['0', 0],
    ['0s', 0],
  ])('%s is %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['', /empty duration/],
    ['  ', /empty duration/],
    ['30', /'30' has no unit: expected a number and a unit \(ms, s, m, h\)/],
    ['1.5', /has no unit/],
    ['10x', /'10x' is not a duration at '10x'/],
    ['1m30', /'1m30' is not a duration at '30'/],
    ['-1s', /not a duration at '-1s'/],
    ['1 s', /not a duration at '1 s'/],
    ['s', /not a duration/],
    ['1.5ms', /'1.5ms' is 1.5 ms: durations are whole milliseconds/],
    ['99999999999999999h', /too long/],
  ])('%j is refused', (text, message) => {
    expect(() => parseDuration(text)).toThrow(DurationError);
    expect(() => parseDuration(text)).toThrow(message);
  });

  it('formatDuration writes what parseDuration reads back', () => {
    for (const ms of [0, 1, 500, 1_000, 30_000, 90_000, 3_723_004]) expect(parseDuration(formatDuration(ms))).toBe(ms);
    expect(formatDuration(30_000)).toBe('30s');
    expect(formatDuration(90_500)).toBe('1m30s500ms');
  });
});
