import { describe, expect, it } from 'vitest';
import { pushPullIntervalMs } from '../src/anti-entropy/push-pull-interval.js';
import { retransmitLimit } from '../src/dissemination/retransmit-limit.js';

describe('retransmitLimit (memberlist util.go retransmitLimit)', () => {
  const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it.each([
    [1, 9, 4],
    [10, 99, 8],
    [100, 999, 12],
    [1000, 9999, 16],
  ])('mult 4 (LAN/WAN): n = %i..%i → %i (memberlist retransmitLimit)', (from, to, limit) => {
    for (const n of range(from, to)) expect(retransmitLimit(4, n)).toBe(limit);
  });

  it('mult 2 (Local) is half (memberlist retransmitLimit)', () => {
    expect([1, 9, 10, 32, 33, 64, 65, 100, 1000, 10_000].map((n) => retransmitLimit(2, n))).toEqual([
      2, 2, 4, 4, 4, 4, 4, 6, 8, 10,
    ]);
  });

  it('memberlist LAN/WAN values (mult 4)', () => {
    expect([1, 9, 10, 32, 33, 64, 65, 100, 1000, 10_000].map((n) => retransmitLimit(4, n))).toEqual([
      4, 4, 8, 8, 8, 8, 8, 12, 16, 20,
    ]);
  });

  it('n = 0 gives 0, as memberlist; negative n counts as 0', () => {
    expect(retransmitLimit(4, 0)).toBe(0);
    expect(retransmitLimit(4, -3)).toBe(0);
  });
});

describe('pushPullIntervalMs (memberlist util.go pushPullScale)', () => {
  it.each([
    [1, 30_000],
    [10, 30_000],
    [32, 30_000],
    [33, 60_000],
    [64, 60_000],
    [65, 90_000],
    [100, 90_000],
    [128, 90_000],
    [129, 120_000],
    [200, 120_000],
    [256, 120_000],
    [257, 150_000],
    [1000, 180_000],
    [10_000, 300_000],
  ])('base 30 s, n = %i → %i ms', (n, expected) => {
    expect(pushPullIntervalMs(30_000, n)).toBe(expected);
  });

  it('4× for every n in 129..256', () => {
    for (let n = 129; n <= 256; n++) expect(pushPullIntervalMs(30_000, n)).toBe(120_000);
  });

  it('a base of 0 (push-pull off) stays 0', () => {
    expect(pushPullIntervalMs(0, 1000)).toBe(0);
  });
});
