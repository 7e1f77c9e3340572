import { describe, expect, it } from 'vitest';
import {
  createRng,
  DEFAULT_VIVALDI_CONFIG,
  distanceNanoseconds,
  distanceSeconds,
  newCoordinate,
  rawDistance,
  VivaldiClient,
  type Coordinate,
} from '../src/index.js';
import { goDuration, goDurationSeconds } from '../src/support/go-math.js';

// Serf v0.9.4's coordinate package, compiled and run on this sequence (docs/design.md, "Network
// coordinates"): a fresh client with DefaultConfig, two peers, eight samples. The peers never sit
// on our point, so no random direction is drawn and the result does not depend on the rng.
// Every float is compared with toBe: the port must round exactly as Go does.

function peer(axis: number, at: number, height: number): Coordinate {
  const vec = new Array<number>(8).fill(0);
  vec[axis] = at;
  return { vec, error: 0.5, adjustment: 0, height };
}

const p1 = peer(0, 0.01, 1e-4);
const p2 = peer(1, 0.02, 2e-4);

function updated(client: VivaldiClient, node: string, other: Coordinate, rttMs: number): Coordinate {
  const result = client.update(node, other, rttMs / 1000);
  if (result.kind !== 'updated') throw new Error(`sample rejected: ${result.reason}`);
  return result.coordinate;
}

describe('Vivaldi test vector (serf coordinate v0.9.4)', () => {
  it('a fresh coordinate is Serf NewCoordinate: Vec zeros, Error 1.5, Height 1e-5, Adjustment 0', () => {
    const client = new VivaldiClient({ rng: createRng(1) });
    for (const c of [client.coordinate(), newCoordinate(DEFAULT_VIVALDI_CONFIG)]) {
      expect(c.vec).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
      expect(c.error).toBe(1.5);
      expect(c.height).toBe(1e-5);
      expect(c.adjustment).toBe(0);
    }
    expect(client.error).toBe(1.5);
    expect(client.stats()).toEqual({ resets: 0, trackedNodes: 0, evictedNodes: 0 });
  });

  it('reproduces Serf step by step, bit for bit', () => {
    const client = new VivaldiClient({ rng: createRng(1) });

    const step1 = updated(client, 'p1', p1, 12);
    expect(step1.vec).toEqual([-0.00035437499228767875, 0, 0, 0, 0, 0, 0, 0]);
    expect(step1.vec[0]).toBe(-0.00035437499228767875);
    expect(step1.error).toBe(1.24828125);
    expect(step1.adjustment).toBe(0.000038293171875000005);
    expect(step1.height).toBe(0.000013898124479901177);

    const step2 = updated(client, 'p2', p2, 25);
    expect(step2.vec[0]).toBe(-0.000369379144478014);
    expect(step2.vec[1]).toBe(-0.0008467963537884601);
    expect(step2.vec.slice(2)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(step2.error).toBe(1.0593387135568415);
    expect(step2.adjustment).toBe(0.00013646759320651864);
    expect(step2.height).toBe(0.000022954530700330436);

    updated(client, 'p1', p1, 11);
    updated(client, 'p1', p1, 30);
    updated(client, 'p2', p2, 22);
    updated(client, 'p1', p1, 13);
    updated(client, 'p2', p2, 24);
    const final = updated(client, 'p2', p2, 60);
    expect(final.vec[0]).toBe(-0.0010538119822914255);
    expect(final.vec[1]).toBe(-0.001942861170742119);
    expect(final.vec.slice(2)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(final.error).toBe(0.4675745928514101);
    expect(final.adjustment).toBe(0.00041528263008959557);
    expect(final.height).toBe(0.00004199195918564159);
    expect(client.coordinate()).toBe(final);
    expect(client.error).toBe(0.4675745928514101);

    // Serf DistanceTo: whole nanoseconds, truncated; before truncation they are 11,780,530.305 and
    // 22,625,425.992 ns, so rounding would give 22,625,426 for p2.
    expect(distanceNanoseconds(final, p1)).toBe(11_780_530);
    expect(distanceNanoseconds(final, p2)).toBe(22_625_425);
    expect(distanceSeconds(final, p1)).toBe(0.01178053);
    expect(client.distanceTo(p2)).toBe(0.022625425);
    expect(client.stats()).toEqual({ resets: 0, trackedNodes: 2, evictedNodes: 0 });
  });

  it('the random direction is not drawn when points differ: any rng gives the same result', () => {
    const run = (seed: number): Coordinate => {
      const client = new VivaldiClient({ rng: createRng(seed) });
      for (const [node, other, ms] of [['p1', p1, 12], ['p2', p2, 25], ['p1', p1, 11]] as const) updated(client, node, other, ms);
      return client.coordinate();
    };
    expect(run(2)).toEqual(run(99));
  });
});

describe('DistanceTo (serf coordinate_test.go TestCoordinate_DistanceTo, HeightMin 0)', () => {
  const c1: Coordinate = { vec: [-0.5, 1.3, 2.4], error: 1.5, adjustment: 0, height: 0 };
  const c2: Coordinate = { vec: [1.2, -2.3, 3.4], error: 1.5, adjustment: 0, height: 0 };
  // 4.104875150354758 s, truncated to whole nanoseconds as Go's time.Duration.
  const base = goDuration(4.104875150354758e9);

  it.each([
    ['plain', c1, c2, base],
    ['to itself', c1, c1, 0],
    ['symmetric', c2, c1, base],
    ['a negative adjustment sum is ignored', { ...c1, adjustment: -1e6 }, c2, base],
    ['positive adjustments add', { ...c1, adjustment: 0.1 }, { ...c2, adjustment: 0.2 }, goDuration((4.104875150354758 + 0.1 + 0.2) * 1e9)],
    ['heights add', { ...c1, adjustment: 0.1, height: 0.7 }, { ...c2, adjustment: 0.2, height: 0.1 }, goDuration((4.104875150354758 + 0.7 + 0.1 + 0.1 + 0.2) * 1e9)],
  ] as const)('%s', (_name, a, b, ns) => {
    expect(distanceNanoseconds(a, b)).toBe(ns);
    expect(Math.abs(distanceSeconds(a, b)! - ns / 1e9)).toBeLessThan(1e-9);
  });

  it('rawDistance leaves the adjustments out and adds the heights', () => {
    expect(rawDistance({ ...c1, adjustment: 1e6 }, c2)).toBe(4.104875150354758);
    expect(rawDistance({ ...c1, height: 0.7 }, { ...c2, height: 0.1 })).toBe(4.104875150354758 + 0.7 + 0.1);
  });

  it('is undefined between coordinates of different dimensions, or with an invalid one (Serf panics or computes garbage)', () => {
    expect(distanceNanoseconds(c1, { ...c2, vec: [1, 2] })).toBeUndefined();
    expect(distanceSeconds(c1, { ...c2, height: Number.NaN })).toBeUndefined();
    expect(new VivaldiClient({ rng: createRng(1) }).distanceTo(c1)).toBeUndefined();
  });
});

describe('Go duration arithmetic', () => {
  it('time.Duration(x) truncates toward zero, never gives -0, and saturates past int64', () => {
    expect(goDuration(11_780_530.63)).toBe(11_780_530);
    expect(goDuration(-2.9)).toBe(-2);
    expect(Object.is(goDuration(-0.5), 0)).toBe(true);
    expect(goDuration(Number.POSITIVE_INFINITY)).toBe(2 ** 63);
    expect(goDuration(-1e300)).toBe(-(2 ** 63));
    expect(goDuration(Number.NaN)).toBe(0);
  });

  it('Duration.Seconds() adds whole seconds and the remaining ns / 1e9, as Go does', () => {
    expect(goDurationSeconds(11_780_530)).toBe(0.01178053);
    // From 1 s up the two roundings can differ in the last bit from ns / 1e9 (1.000064438).
    expect(goDurationSeconds(1_000_064_438)).toBe(1.0000644379999999);
    expect(goDurationSeconds(1_000_064_438)).not.toBe(1_000_064_438 / 1e9);
    expect(goDurationSeconds(-1_500_000_000)).toBe(-1.5);
    // Past 2^53 ns the integer part goes through BigInt: (2^63 ns) = 9223372036 s + 854775808 ns.
    expect(goDurationSeconds(2 ** 63)).toBe(9_223_372_036 + 0.854775808);
  });

  it('an RTT is taken in whole nanoseconds, as Serf gets a time.Duration', () => {
    const a = new VivaldiClient({ rng: createRng(1) });
    const b = new VivaldiClient({ rng: createRng(1) });
    a.update('p1', p1, 0.012);
    b.update('p1', p1, 0.0120000000004); // rounds to the same 12,000,000 ns
    expect(b.coordinate()).toEqual(a.coordinate());
  });
});
