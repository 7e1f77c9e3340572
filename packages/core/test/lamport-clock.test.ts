import { describe, expect, it } from 'vitest';
import { isLamportTime, LamportClock, MAX_LAMPORT_TIME } from '../src/index.js';

describe('LamportClock (serf lamport.go)', () => {
  it('starts at 0, and increment returns the new time', () => {
    const clock = new LamportClock();
    expect(clock.time()).toBe(0);
    expect(clock.increment()).toBe(1);
    expect(clock.increment()).toBe(2);
    expect(clock.time()).toBe(2);
  });

  it.each([
    // [start, witnessed, after]: Witness moves to t + 1 only when t >= the current time
    [0, 0, 1],
    [5, 4, 5],
    [5, 5, 6],
    [5, 6, 7],
    [5, 1_000_000, 1_000_001],
    [1_000_000, 5, 1_000_000],
  ])('at %i, witnessing %i gives %i', (start, witnessed, after) => {
    const clock = new LamportClock(start);
    expect(clock.witness(witnessed)).toBe(true);
    expect(clock.time()).toBe(after);
  });

  it('sends as Serf: stamp with time(), then witness it, so the next query has a new time', () => {
    // serf serf.go Query uses queryClock.Time(); its local handleQuery witnesses it.
    const clock = new LamportClock(1);
    const stamps: number[] = [];
    for (let i = 0; i < 3; i++) {
      stamps.push(clock.time());
      clock.witness(clock.time());
    }
    expect(stamps).toEqual([1, 2, 3]);
    expect(clock.time()).toBe(4);
  });

  it.each([
    ['a negative time', -1],
    ['a fraction', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['2^53 − 1, whose successor is not exact', MAX_LAMPORT_TIME],
    ['2^53', 2 ** 53],
    ['2^64 − 1 as a double', 2 ** 64],
    ['a string', '7' as unknown as number],
    ['a bigint', 7n as unknown as number],
  ])('refuses to witness %s, and does not move', (_, t) => {
    const clock = new LamportClock(10);
    expect(clock.witness(t)).toBe(false);
    expect(clock.time()).toBe(10);
  });

  it('reaches 2^53 − 1 at most, then stamps nothing more instead of wrapping or rounding', () => {
    const clock = new LamportClock();
    expect(clock.witness(MAX_LAMPORT_TIME - 1)).toBe(true);
    expect(clock.time()).toBe(MAX_LAMPORT_TIME);
    expect(clock.exhausted).toBe(true);
    expect(clock.increment()).toBeUndefined();
    expect(clock.time()).toBe(MAX_LAMPORT_TIME);
    expect(clock.witness(MAX_LAMPORT_TIME - 1)).toBe(true); // old news: no move
    expect(clock.time()).toBe(MAX_LAMPORT_TIME);
  });

  it('one below the top still increments exactly', () => {
    const clock = new LamportClock(MAX_LAMPORT_TIME - 1);
    expect(clock.exhausted).toBe(false);
    expect(clock.increment()).toBe(MAX_LAMPORT_TIME);
    expect(clock.increment()).toBeUndefined();
  });

  it('ignores a start that is not a safe non-negative integer', () => {
    for (const start of [-1, 0.5, Number.NaN, 2 ** 60]) expect(new LamportClock(start).time()).toBe(0);
    expect(new LamportClock(MAX_LAMPORT_TIME).exhausted).toBe(true);
  });

  it('isLamportTime: integers in [0, 2^53 − 1)', () => {
    expect([0, 1, MAX_LAMPORT_TIME - 1].every(isLamportTime)).toBe(true);
    expect([-1, 0.5, MAX_LAMPORT_TIME, Number.NaN, '1', null].some(isLamportTime)).toBe(false);
  });
});
