import { describe, expect, it } from 'vitest';
import { LamportClock, SeenQueries, type QueryAdmission } from '../src/index.js';

/** A buffer of `size` slots whose clock the test sets, as handleQuery's witness would. */
function buffer(size: number, maxIdsPerLTime = 64) {
  const clock = new LamportClock(1);
  const seen = new SeenQueries({ size, maxIdsPerLTime, clock });
  /** Witness then admit, as serf serf.go handleQuery does. */
  const receive = (ltime: number, id: number): QueryAdmission => {
    clock.witness(ltime);
    return seen.admit(ltime, id);
  };
  return { clock, seen, receive };
}

describe('SeenQueries (serf serf.go handleQuery, queryBuffer)', () => {
  it('takes a query once: a repeat of (ltime, id) is a duplicate', () => {
    const { receive } = buffer(512);
    expect(receive(5, 42)).toBe('new');
    expect(receive(5, 42)).toBe('duplicate');
    expect(receive(5, 42)).toBe('duplicate');
  });

  it('takes a different id at the same ltime: two members asked at once', () => {
    const { receive } = buffer(512);
    expect(receive(5, 42)).toBe('new');
    expect(receive(5, 43)).toBe('new');
    expect(receive(5, 43)).toBe('duplicate');
    expect(receive(5, 42)).toBe('duplicate');
  });

  it('takes the same id at another ltime', () => {
    const { receive } = buffer(512);
    expect(receive(5, 42)).toBe('new');
    expect(receive(6, 42)).toBe('new');
  });

  it.each([
    // [clock after witnessing, ltime, admission]: too old is ltime < clock − size (size 512)
    [512, 0, 'new'],
    [513, 0, 'too-old'],
    [513, 1, 'new'],
    [514, 1, 'too-old'],
    [514, 2, 'new'],
    [1000, 487, 'too-old'],
    [1000, 488, 'new'],
    [1000, 999, 'new'],
  ] as const)('clock %i, ltime %i: %s', (clockTime, ltime, admission) => {
    const { clock, seen } = buffer(512);
    clock.witness(clockTime - 1);
    expect(clock.time()).toBe(clockTime);
    expect(seen.admit(ltime, 1)).toBe(admission);
  });

  it('drops a query made old by a newer one witnessed in between', () => {
    const { receive } = buffer(512);
    expect(receive(10, 1)).toBe('new');
    expect(receive(1000, 2)).toBe('new'); // the clock is now 1001
    expect(receive(10, 3)).toBe('too-old');
    expect(receive(488, 4)).toBe('too-old'); // 488 < 1001 − 512
    expect(receive(489, 4)).toBe('new');
    expect(receive(489, 4)).toBe('duplicate');
  });

  it('recycles a slot when the buffer wraps: the older time is forgotten', () => {
    // Size 4: ltimes 1 and 5 share slot 1. Once 5 is there, 1 is too old anyway (1 < 6 − 4).
    const { receive, seen } = buffer(4);
    expect(receive(1, 7)).toBe('new');
    expect(receive(5, 8)).toBe('new'); // slot 1 recycled: ltime 1's ids are gone
    expect(seen.idsHeld).toBe(1);
    expect(receive(1, 7)).toBe('too-old');
    expect(receive(5, 8)).toBe('duplicate');
    expect(receive(6, 8)).toBe('new'); // slot 2
    expect(receive(9, 7)).toBe('new'); // slot 1 again, another time: recycled
    expect(seen.idsHeld).toBe(2);
  });

  it('recycles a slot for a time within the window, as Serf does (a time from the future, then one from the past)', () => {
    const { seen, clock } = buffer(4);
    clock.witness(10); // clock 11: times 7..11 are in the window
    expect(seen.admit(9, 1)).toBe('new'); // slot 1
    expect(seen.admit(13, 2)).toBe('new'); // slot 1, recycled (not witnessed: the test stands in for a reorder)
    expect(seen.admit(9, 1)).toBe('new'); // forgotten: Serf too would take it again
  });

  it('bounds the ids per ltime: past maxIdsPerLTime a new id is refused, a known one still a duplicate', () => {
    const { receive, seen } = buffer(512, 3);
    expect([1, 2, 3].map((id) => receive(5, id))).toEqual(['new', 'new', 'new']);
    expect(receive(5, 4)).toBe('full');
    expect(receive(5, 2)).toBe('duplicate');
    expect(receive(6, 4)).toBe('new');
    expect(seen.idsHeld).toBe(4);
  });

  it.each([
    ['a negative ltime', -1, 1],
    ['a fractional ltime', 1.5, 1],
    ['an ltime past 2^53 − 2', 2 ** 53, 1],
    ['a negative id', 1, -1],
    ['an id past uint32', 1, 2 ** 32],
    ['a fractional id', 1, 0.5],
    ['a NaN id', 1, Number.NaN],
  ])('refuses %s as invalid, holding nothing', (_, ltime, id) => {
    const { seen } = buffer(8);
    expect(seen.admit(ltime, id)).toBe('invalid');
    expect(seen.idsHeld).toBe(0);
  });

  it('seen() is admit() as a yes/no', () => {
    const { seen } = buffer(8);
    expect(seen.seen(3, 1)).toBe(false);
    expect(seen.seen(3, 1)).toBe(true);
  });

  it('refuses a size or bound that is not a positive integer', () => {
    const clock = new LamportClock();
    expect(() => new SeenQueries({ size: 0, maxIdsPerLTime: 1, clock })).toThrow(RangeError);
    expect(() => new SeenQueries({ size: 8, maxIdsPerLTime: 0.5, clock })).toThrow(RangeError);
  });
});
