import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createRng,
  pickRandom,
  randomFloat,
  randomInt,
  shuffleInPlace,
  type Rng,
} from '../src/support/rng.js';

function draws(rng: Rng, count: number): number[] {
  return Array.from({ length: count }, () => rng.nextUint32());
}

/** Pearson's chi-square statistic of observed counts against a uniform expectation. */
function chiSquare(counts: readonly number[]): number {
  const total = counts.reduce((sum, c) => sum + c, 0);
  const expected = total / counts.length;
  return counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
}

describe('createRng', () => {
  it('replays the same sequence from the same seed', () => {
    for (const seed of [0, 1, -1, 42, 0.5, -0, 2 ** 40 + 3, Number.MAX_VALUE, Infinity, NaN]) {
      expect(draws(createRng(seed), 64)).toEqual(draws(createRng(seed), 64));
    }
  });

  it('gives different sequences for different seeds, fractional and huge ones included', () => {
    const seeds = [0, 1, 2, -1, 0.5, 0.25, 1.5, 2 ** 32, 2 ** 32 + 1, 2 ** 53, Infinity, -Infinity, NaN];
    const firsts = seeds.map((seed) => draws(createRng(seed), 4).join(','));
    expect(new Set(firsts).size).toBe(seeds.length);
  });

  it('returns uint32 values with all bits in play', () => {
    const rng = createRng(7);
    let orAll = 0;
    let andAll = 0xffffffff;
    for (const x of draws(rng, 10_000)) {
      expect(Number.isInteger(x) && x >= 0 && x < 2 ** 32).toBe(true);
      orAll = (orAll | x) >>> 0;
      andAll = (andAll & x) >>> 0;
    }
    expect(orAll).toBe(0xffffffff);
    expect(andAll).toBe(0);
  });

  it('is not stuck for seed 0 and has balanced bits', () => {
    const rng = createRng(0);
    const ones = new Array<number>(32).fill(0);
    const n = 20_000;
    for (const x of draws(rng, n)) for (let b = 0; b < 32; b++) ones[b]! += (x >>> b) & 1;
    for (const count of ones) expect(Math.abs(count / n - 0.5)).toBeLessThan(0.02);
  });
});

describe('randomInt', () => {
  it('stays within [0, n)', () => {
    const rng = createRng(1);
    for (const n of [1, 2, 3, 7, 10, 1000, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 32]) {
      for (let i = 0; i < 2000; i++) {
        const x = randomInt(rng, n);
        expect(Number.isInteger(x) && x >= 0 && x < n).toBe(true);
      }
    }
    expect(randomInt(rng, 1)).toBe(0);
  });

  it('is roughly uniform (chi-square, fixed seed)', () => {
    const rng = createRng(2024);
    for (const n of [2, 6, 10, 37]) {
      const counts = new Array<number>(n).fill(0);
      for (let i = 0; i < 50_000; i++) counts[randomInt(rng, n)]!++;
      // Critical values at p = 0.001: 36 dof → 67.99; fewer dof are lower, so this is loose.
      expect(chiSquare(counts)).toBeLessThan(68);
    }
  });

  it('has no modulo bias for n close to 2^32', () => {
    // With x % n, n = 3·2^30 would return values below 2^30 half the time instead of a third.
    const rng = createRng(99);
    const n = 3 * 2 ** 30;
    let low = 0;
    const trials = 30_000;
    for (let i = 0; i < trials; i++) if (randomInt(rng, n) < 2 ** 30) low++;
    expect(Math.abs(low / trials - 1 / 3)).toBeLessThan(0.02);
  });

  it('redraws values in the last, incomplete block below 2^32', () => {
    // 2^32 mod 3 = 1, so 0xffffffff is the one draw that would favour 0 and must be redrawn.
    const script = [0xffffffff, 5];
    const scripted: Rng = { nextUint32: () => script.shift() ?? 0 };
    expect(randomInt(scripted, 3)).toBe(2);
    expect(randomInt({ nextUint32: () => 0xffffffff }, 2 ** 32)).toBe(0xffffffff);
    expect(randomInt({ nextUint32: () => 0xfffffffe }, 3)).toBe(0xfffffffe % 3);
  });

  it('throws RangeError on programming errors', () => {
    const rng = createRng(3);
    for (const n of [0, -1, 0.5, 1.5, NaN, Infinity, 2 ** 32 + 1]) {
      expect(() => randomInt(rng, n)).toThrow(RangeError);
    }
  });
});

describe('randomFloat', () => {
  it('is in [0, 1) with a mean near 1/2', () => {
    const rng = createRng(5);
    let sum = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const x = randomFloat(rng);
      expect(x >= 0 && x < 1).toBe(true);
      sum += x;
    }
    expect(Math.abs(sum / n - 0.5)).toBeLessThan(0.01);
  });

  it('maps the largest draw below 1', () => {
    expect(randomFloat({ nextUint32: () => 0xffffffff })).toBeLessThan(1);
    expect(randomFloat({ nextUint32: () => 0 })).toBe(0);
  });
});

describe('shuffleInPlace', () => {
  it('produces a permutation', () => {
    fc.assert(
      fc.property(fc.integer(), fc.array(fc.integer(), { maxLength: 50 }), (seed, items) => {
        const shuffled = [...items];
        shuffleInPlace(createRng(seed), shuffled);
        expect([...shuffled].sort((a, b) => a - b)).toEqual([...items].sort((a, b) => a - b));
      }),
    );
  });

  it('makes every permutation of 3 items about equally likely', () => {
    const rng = createRng(11);
    const counts = new Map<string, number>();
    for (let i = 0; i < 60_000; i++) {
      const items = ['a', 'b', 'c'];
      shuffleInPlace(rng, items);
      const key = items.join('');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(counts.size).toBe(6);
    expect(chiSquare([...counts.values()])).toBeLessThan(20.5); // 5 dof, p = 0.001
  });
});

describe('pickRandom', () => {
  it('returns min(k, #eligible) distinct eligible items (property)', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.array(fc.boolean(), { maxLength: 300 }),
        fc.integer({ min: -2, max: 40 }),
        (seed, eligibility, k) => {
          const items = eligibility.map((_, i) => i);
          let calls = 0;
          const picked = pickRandom(createRng(seed), items, k, (i) => {
            calls++;
            return eligibility[i] === true;
          });
          const eligibleCount = eligibility.filter(Boolean).length;
          expect(picked.length).toBe(Math.max(0, Math.min(k, eligibleCount)));
          expect(new Set(picked).size).toBe(picked.length);
          for (const i of picked) expect(eligibility[i]).toBe(true);
          // O(n) at worst: the random-pick phase is bounded, then one pass.
          expect(calls).toBeLessThanOrEqual(items.length + 8 * Math.max(k, 0) + 8);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('always finds the single eligible peer of a 3-node cluster (memberlist #350)', () => {
    const nodes = ['self', 'dead', 'peer'];
    for (let seed = 0; seed < 5000; seed++) {
      const picked = pickRandom(createRng(seed), nodes, 3, (n) => n === 'peer');
      expect(picked).toEqual(['peer']);
    }
  });

  it('is cheap when k is small relative to n', () => {
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const rng = createRng(8);
    let calls = 0;
    for (let round = 0; round < 100; round++) {
      const picked = pickRandom(rng, items, 3, (i) => {
        calls++;
        return i !== 0;
      });
      expect(picked).toHaveLength(3);
    }
    expect(calls / 100).toBeLessThan(10);
  });

  it('still finds sparse eligible items in a large list', () => {
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const rng = createRng(9);
    for (let round = 0; round < 100; round++) {
      const picked = pickRandom(rng, items, 3, (i) => i === 500 || i === 999);
      expect([...picked].sort((a, b) => a - b)).toEqual([500, 999]);
    }
  });

  it('picks uniformly on both the random-pick and the exhaustive path', () => {
    const rng = createRng(12);
    for (const [n, k] of [
      [40, 2], // random picks
      [6, 2], // exhaustive
    ] as const) {
      const items = Array.from({ length: n }, (_, i) => i);
      const counts = new Array<number>(n).fill(0);
      // Every third item ineligible, to exercise skipping.
      const eligible = (i: number) => i % 3 !== 0;
      for (let round = 0; round < 30_000; round++) {
        for (const i of pickRandom(rng, items, k, eligible)) counts[i]!++;
      }
      const eligibleCounts = counts.filter((_, i) => eligible(i));
      expect(counts.filter((_, i) => !eligible(i)).every((c) => c === 0)).toBe(true);
      expect(chiSquare(eligibleCounts)).toBeLessThan(60); // ≤ 26 dof, p = 0.001 is 54.05
    }
  });

  it('returns every eligible item when k exceeds them, in random order', () => {
    const rng = createRng(13);
    const firsts = new Set<number>();
    for (let round = 0; round < 200; round++) {
      const picked = pickRandom(rng, [0, 1, 2, 3, 4], 10, () => true);
      expect([...picked].sort()).toEqual([0, 1, 2, 3, 4]);
      firsts.add(picked[0]!);
    }
    expect(firsts.size).toBe(5);
  });
});
