import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  createRng,
  DEFAULT_VIVALDI_CONFIG,
  isCompatible,
  isValidCoordinate,
  newCoordinate,
  rawDistance,
  resolveVivaldiConfig,
  validateVivaldiConfig,
  VivaldiClient,
  type Coordinate,
  type VivaldiConfig,
  type VivaldiRejection,
} from '../src/index.js';
import { applyForce, magnitude, unitVectorAt } from '../src/coordinates/coordinate.js';
import { LatencyFilter } from '../src/coordinates/latency-filter.js';

const DIMS = DEFAULT_VIVALDI_CONFIG.dimensionality;

function at(components: Record<number, number>, fields: Partial<Omit<Coordinate, 'vec'>> = {}, dims = DIMS): Coordinate {
  const vec = new Array<number>(dims).fill(0);
  for (const [i, v] of Object.entries(components)) vec[Number(i)] = v;
  return { vec, error: 0.5, adjustment: 0, height: 1e-4, ...fields };
}

function client(config?: Partial<VivaldiConfig>, seed = 1): VivaldiClient {
  return new VivaldiClient({ rng: createRng(seed), ...(config === undefined ? {} : { config }) });
}

function updated(c: VivaldiClient, node: string, other: Coordinate, rttSeconds: number): Coordinate {
  const result = c.update(node, other, rttSeconds);
  if (result.kind !== 'updated') throw new Error(`sample rejected: ${result.reason}`);
  return result.coordinate;
}

const peer = at({ 0: 0.01, 3: -0.004 });

describe('VivaldiClient.update rejects (serf client.go checkCoordinate and Update), changing nothing', () => {
  const cases: [string, Coordinate, number, VivaldiRejection][] = [
    ['7 dimensions', at({ 0: 0.01 }, {}, 7), 0.01, 'incompatible-dimensions'],
    ['9 dimensions', at({ 0: 0.01 }, {}, 9), 0.01, 'incompatible-dimensions'],
    ['no dimensions', at({}, {}, 0), 0.01, 'incompatible-dimensions'],
    ['NaN in vec', at({ 0: 0.01, 5: Number.NaN }), 0.01, 'invalid-coordinate'],
    ['+Infinity in vec', at({ 0: Number.POSITIVE_INFINITY }), 0.01, 'invalid-coordinate'],
    ['-Infinity in vec', at({ 7: Number.NEGATIVE_INFINITY }), 0.01, 'invalid-coordinate'],
    ['NaN error', at({ 0: 0.01 }, { error: Number.NaN }), 0.01, 'invalid-coordinate'],
    ['infinite error', at({ 0: 0.01 }, { error: Number.POSITIVE_INFINITY }), 0.01, 'invalid-coordinate'],
    ['NaN adjustment', at({ 0: 0.01 }, { adjustment: Number.NaN }), 0.01, 'invalid-coordinate'],
    ['-Infinity adjustment', at({ 0: 0.01 }, { adjustment: Number.NEGATIVE_INFINITY }), 0.01, 'invalid-coordinate'],
    ['NaN height', at({ 0: 0.01 }, { height: Number.NaN }), 0.01, 'invalid-coordinate'],
    ['+Infinity height', at({ 0: 0.01 }, { height: Number.POSITIVE_INFINITY }), 0.01, 'invalid-coordinate'],
    ['negative error (@swim only)', at({ 0: 0.01 }, { error: -0.1 }), 0.01, 'implausible-coordinate'],
    ['negative height (@swim only)', at({ 0: 0.01 }, { height: -1e-6 }), 0.01, 'implausible-coordinate'],
    ['huge vec, 1e300 s (@swim only)', at({ 0: 1e300 }), 0.01, 'implausible-coordinate'],
    ['vec 11 s from the origin (@swim only)', at({ 2: 11 }), 0.01, 'implausible-coordinate'],
    ['vec components each within 10 s, their magnitude not (@swim only)', at({ 0: 8, 1: 8 }), 0.01, 'implausible-coordinate'],
    ['height 10.5 s (@swim only)', at({ 0: 0.01 }, { height: 10.5 }), 0.01, 'implausible-coordinate'],
    ['adjustment -1e6 s (@swim only)', at({ 0: 0.01 }, { adjustment: -1e6 }), 0.01, 'implausible-coordinate'],
    ['RTT below 0', peer, -0.001, 'rtt-out-of-range'],
    ['RTT -35 s (serf TestClient_InvalidInPingValues)', peer, -35, 'rtt-out-of-range'],
    ['RTT 11 s (serf TestClient_InvalidInPingValues)', peer, 11, 'rtt-out-of-range'],
    ['RTT MaxInt64 ns (serf TestClient_InvalidInPingValues)', peer, (2 ** 63 - 1) / 1e9, 'rtt-out-of-range'],
    ['RTT just above 10 s', peer, 10.000001, 'rtt-out-of-range'],
    ['RTT NaN', peer, Number.NaN, 'rtt-out-of-range'],
    ['RTT +Infinity', peer, Number.POSITIVE_INFINITY, 'rtt-out-of-range'],
    ['RTT -Infinity', peer, Number.NEGATIVE_INFINITY, 'rtt-out-of-range'],
  ];

  it.each(cases)('%s', (_name, other, rtt, reason) => {
    // Two clients with the same history; only one sees the bad sample. Afterwards both must agree,
    // so the bad sample left no trace: not in the coordinate, the stats, the peer's latency
    // samples, the adjustment window or the rng.
    const seen = client();
    const twin = client();
    for (const c of [seen, twin]) {
      updated(c, 'a', peer, 0.02);
      updated(c, 'b', at({ 1: 0.03 }), 0.035);
    }
    const before = seen.coordinate();
    const distance = seen.distanceTo(peer);

    expect(seen.update('a', other, rtt)).toEqual({ kind: 'rejected', reason });
    expect(seen.coordinate()).toBe(before);
    expect(seen.distanceTo(peer)).toBe(distance);
    expect(seen.stats()).toEqual(twin.stats());

    for (const [node, c, r] of [['a', peer, 0.025], ['b', at({ 1: 0.03 }), 0.031], ['a', peer, 0.019]] as const) {
      expect(updated(seen, node, c, r)).toEqual(updated(twin, node, c, r));
    }
  });

  it.each([
    ['0 s', 0],
    ['exactly 10 s', 10],
  ])('accepts an RTT of %s, the ends of Serf range', (_name, rtt) => {
    expect(client().update('a', peer, rtt).kind).toBe('updated');
  });

  it('accepts a peer exactly 10 s out, the bound of plausible coordinates', () => {
    expect(client().update('a', at({ 0: 10 }, { height: 10, adjustment: -10 }), 0.01).kind).toBe('updated');
  });

  it('accepts a peer with zero error or zero height, which Serf can send (HeightMin 0)', () => {
    expect(client().update('a', at({ 0: 0.01 }, { error: 0, height: 0 }), 0.01).kind).toBe('updated');
  });
});

describe('latency filter (serf client_test.go TestClient_latencyFilter)', () => {
  it('returns the moving median of the last 3, so a glitch is never seen', () => {
    const filter = new LatencyFilter(3, 100);
    const steps: [string, number, number][] = [
      ['alice', 0.201, 0.201],
      ['alice', 0.2, 0.201], // the larger of two
      ['alice', 0.207, 0.201],
      ['alice', 1.9, 0.207], // the glitch is medianed out
      ['alice', 0.203, 0.207],
      ['alice', 0.199, 0.203],
      ['alice', 0.211, 0.203],
      ['bob', 0.31, 0.31], // peers are not coupled
    ];
    for (const [node, rtt, median] of steps) expect(filter.sample(node, rtt)).toBe(median);
    filter.forget('alice');
    expect(filter.sample('alice', 0.888)).toBe(0.888); // forgotten: starts over
    expect(filter.trackedNodes).toBe(2);
  });

  it.each([
    [1, [0.5, 0.1, 0.9], [0.5, 0.1, 0.9]],
    [2, [0.5, 0.1, 0.9], [0.5, 0.5, 0.9]],
    [3, [0.3, 0.1, 0.2, 0.05, 0.9], [0.3, 0.3, 0.2, 0.1, 0.2]],
    [4, [0.3, 0.1, 0.2, 0.05, 0.9], [0.3, 0.3, 0.2, 0.2, 0.2]],
  ])('with %i samples: the element at floor(n/2) of the sorted samples', (size, rtts, medians) => {
    const filter = new LatencyFilter(size, 10);
    expect(rtts.map((rtt) => filter.sample('p', rtt))).toEqual(medians);
  });

  it('keeps at most maxNodes peers, forgetting the one heard from least recently', () => {
    const filter = new LatencyFilter(3, 3);
    filter.sample('a', 0.1);
    filter.sample('b', 0.2);
    filter.sample('c', 0.3);
    filter.sample('a', 0.1); // a is now the most recent
    filter.sample('d', 0.4); // evicts b
    expect(filter.trackedNodes).toBe(3);
    expect(filter.evictedNodes).toBe(1);
    expect(filter.sample('a', 0.9)).toBe(0.1); // a kept its samples: median of 0.1, 0.1, 0.9
    expect(filter.sample('b', 0.9)).toBe(0.9); // b starts over (and evicts c)
    expect(filter.evictedNodes).toBe(2);
  });

  it('the client hands Vivaldi the median: same coordinates as a client without a filter fed the medians', () => {
    const filtered = client({ latencyFilterSize: 3 });
    const plain = client({ latencyFilterSize: 1 });
    const raw = [0.201, 0.2, 0.207, 1.9, 0.203, 0.199, 0.211];
    const medians = [0.201, 0.201, 0.201, 0.207, 0.207, 0.203, 0.203];
    const far = at({ 0: 0.2, 2: 0.05 });
    for (let i = 0; i < raw.length; i++) {
      expect(updated(filtered, 'alice', far, raw[i]!)).toEqual(updated(plain, 'alice', far, medians[i]!));
    }
  });

  it('forgetNode drops a peer\'s samples (serf client.go ForgetNode)', () => {
    const c = client();
    updated(c, 'alice', peer, 0.02);
    updated(c, 'bob', peer, 0.02);
    expect(c.stats().trackedNodes).toBe(2);
    c.forgetNode('alice');
    c.forgetNode('nobody');
    expect(c.stats().trackedNodes).toBe(1);
  });

  it('a stream of new names keeps the client within maxTrackedNodes', () => {
    const c = client({ maxTrackedNodes: 50 });
    for (let i = 0; i < 1000; i++) updated(c, `n${i}`, peer, 0.01 + (i % 7) / 1000);
    expect(c.stats()).toMatchObject({ trackedNodes: 50, evictedNodes: 950 });
  });
});

describe('adjustment window (serf client.go updateAdjustment)', () => {
  // Gravity off (a huge rho makes its force 0, and a push of 0 changes nothing), so the returned
  // coordinate is the one the adjustment sample was taken from: the test can recompute the window.
  const noGravity = { gravityRho: 1e300 };

  it('is the sum of the last 20 (filtered RTT - raw distance) over 2 x 20, the ring starting at zeros', () => {
    const c = client(noGravity);
    const ring = new Array<number>(20).fill(0);
    const history = new Map<number, number[]>();
    const medianOfLast3 = (node: number, rtt: number): number => {
      const samples = [...(history.get(node) ?? []), rtt].slice(-3);
      history.set(node, samples);
      return [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
    };
    const peers = [at({ 0: 0.01 }), at({ 1: 0.02 }, { height: 2e-4 }), at({ 2: -0.015 }, { adjustment: 0.001 })];
    for (let i = 0; i < 47; i++) {
      const node = i % 3;
      const rtt = (12 + ((i * 7) % 11)) / 1000; // whole nanoseconds, as the client takes them
      const coord = updated(c, `p${node}`, peers[node]!, rtt);
      // Distinct peers: each keeps its own latency samples; the ring holds filtered RTTs.
      const filtered = medianOfLast3(node, rtt);
      ring[i % 20] = filtered - rawDistance(coord, peers[node]!);
      let sum = 0;
      for (const sample of ring) sum += sample;
      expect(coord.adjustment).toBe(sum / 40);
    }
  });

  it('window 0 turns it off: the adjustment stays 0', () => {
    const c = client({ adjustmentWindowSize: 0 });
    for (let i = 0; i < 10; i++) expect(updated(c, 'a', peer, 0.05).adjustment).toBe(0);
  });

  it('the first sample counts for 1/40 of itself: the window is averaged over all 20 slots from the start', () => {
    const c = client(noGravity);
    const coord = updated(c, 'a', peer, 0.03);
    expect(coord.adjustment).toBe((0.03 - rawDistance(coord, peer)) / 40);
  });
});

describe('reset (serf client_test.go TestClient_NaN_Defense)', () => {
  it('a coordinate that goes NaN starts over at the origin and is counted', () => {
    const c = client();
    // Our own coordinate may be that far out (a peer's may not: implausible-coordinate); gravity's
    // pull, (1e308 / 150)², overflows to an infinite force and the coordinate to NaN.
    expect(c.setCoordinate(at({ 0: 1e308 }))).toBeUndefined();
    const result = c.update('far', at({ 0: -0.01 }), 0.25);
    expect(result).toEqual({ kind: 'updated', coordinate: newCoordinate(DEFAULT_VIVALDI_CONFIG) });
    expect(c.stats().resets).toBe(1);
    expect(c.error).toBe(DEFAULT_VIVALDI_CONFIG.vivaldiErrorMax);
    // And carries on exactly as a fresh client: the adjustment window started over too. Serf would
    // reset again on each of the next 19 samples, as its window keeps the non-finite sample taken
    // from the broken coordinate (client.go Update resets only the coordinate).
    const fresh = client();
    for (let i = 0; i < 25; i++) expect(updated(c, 'a', peer, 0.02 + i / 1000)).toEqual(updated(fresh, 'a', peer, 0.02 + i / 1000));
    expect(c.stats().resets).toBe(1);
  });

  it('setCoordinate refuses what Serf refuses, and a negative error or height, and copies what it takes', () => {
    const c = client();
    expect(c.setCoordinate(at({ 0: Number.NaN }))).toBe('invalid-coordinate');
    expect(c.setCoordinate(at({}, {}, 4))).toBe('incompatible-dimensions');
    expect(c.setCoordinate(at({}, { error: -1 }))).toBe('implausible-coordinate');
    const mine = { vec: [0, 0, 99, 0, 0, 0, 0, 0], error: 0.4, adjustment: 0.001, height: 2e-5 };
    expect(c.setCoordinate(mine)).toBeUndefined();
    mine.vec[2] = 5;
    expect(c.coordinate().vec[2]).toBe(99);
    expect(Object.isFrozen(c.coordinate()) && Object.isFrozen(c.coordinate().vec)).toBe(true);
  });
});

describe('Vivaldi steps (serf client_test.go, coordinate_test.go)', () => {
  it('moves away from a node that answers slower than its distance (TestClient_Update)', () => {
    const c = client({ dimensionality: 3 });
    const above = at({ 2: 0.001 }, { error: 1.5, height: 1e-5 }, 3);
    const coord = updated(c, 'node', above, 2 * 0.001);
    expect(coord.vec[2]).toBeLessThan(0);
  });

  it('ApplyForce pushes along the unit vector and scales the height (TestCoordinate_ApplyForce)', () => {
    const rng = createRng(1);
    const origin = newCoordinate({ dimensionality: 3, vivaldiErrorMax: 1.5, heightMin: 0 });
    const above = { ...origin, vec: [0, 0, 2.9] };
    let c = applyForce(rng, 0, origin, 5.3, above);
    expect(c.vec).toEqual([0, 0, -5.3]);
    c = applyForce(rng, 0, c, 2.0, { ...origin, vec: [3.4, 0, -5.3] });
    expect(c.vec).toEqual([-2.0, 0, -5.3]);
    // Coinciding points: a random direction, one unit away.
    c = applyForce(rng, 0, origin, 1.0, origin);
    expect(magnitude(c.vec)).toBeCloseTo(1.0, 12);

    const heightMin = 10.0e-6;
    const low = newCoordinate({ dimensionality: 3, vivaldiErrorMax: 1.5, heightMin });
    c = applyForce(rng, heightMin, low, 5.3, above); // above was made with HeightMin 0: height 0
    expect(c.vec).toEqual([0, 0, -5.3]);
    expect(c.height).toBe(heightMin + (5.3 * heightMin) / 2.9);
    c = applyForce(rng, heightMin, low, -5.3, above);
    expect(c.vec).toEqual([0, 0, 5.3]);
    expect(c.height).toBe(heightMin); // the floor holds
  });

  it('unitVectorAt normalises by multiplying by 1/|d|, as Serf mul(ret, 1.0/mag) (dividing differs in the last bit)', () => {
    const [u, mag] = unitVectorAt(createRng(1), [1, 2, 3], [0.5, 0.6, 0.7]);
    expect(u).toEqual([0.18257418583505536, 0.511207720338155, 0.8398412548412546]); // serf TestCoordinate_unitVectorAt
    expect(mag).toBe(magnitude([0.5, 1.4, 2.3]));
    const [v] = unitVectorAt(createRng(1), [1.2, -2.787, 0.466], [0, 0, 0]);
    expect(v[0]).toBe(0.39088725525887896); // 1.2 / |d| is 0.390887255258879
  });

  it('unitVectorAt on coinciding points draws the direction from the rng: same seed, same direction', () => {
    const [a, magA] = unitVectorAt(createRng(7), [1, 2, 3], [1, 2, 3]);
    const [b] = unitVectorAt(createRng(7), [1, 2, 3], [1, 2, 3]);
    const [c] = unitVectorAt(createRng(8), [1, 2, 3], [1, 2, 3]);
    expect(magA).toBe(0);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(magnitude(a)).toBeCloseTo(1, 12);
  });

  it('a degenerate random draw falls back to the first axis', () => {
    const zeros = { nextUint32: () => 0x8000_0000 }; // every component 0.5 - 0.5 = 0
    expect(unitVectorAt(zeros, [1, 2], [1, 2])).toEqual([[1, 0], 0]);
  });

  describe('no ambient randomness', () => {
    afterEach(() => vi.restoreAllMocks());
    it('never calls Math.random, even on coinciding points', () => {
      const random = vi.spyOn(Math, 'random');
      const a = client({}, 3);
      const b = client({}, 3);
      const fresh = newCoordinate(DEFAULT_VIVALDI_CONFIG);
      // Our point and the peer's are both the origin: the direction is random.
      expect(updated(a, 'p', fresh, 0.01)).toEqual(updated(b, 'p', fresh, 0.01));
      expect(updated(a, 'p', fresh, 0.01)).not.toEqual(updated(client({}, 4), 'p', fresh, 0.01));
      expect(random).not.toHaveBeenCalled();
    });
  });

  it('isCompatible compares dimensions (TestCoordinate_IsCompatibleWith)', () => {
    expect(isCompatible(at({}, {}, 3), at({}, {}, 3))).toBe(true);
    expect(isCompatible(at({}, {}, 3), at({}, {}, 2))).toBe(false);
  });

  it('isValidCoordinate checks every field (TestCoordinate_IsValid)', () => {
    const base = newCoordinate(DEFAULT_VIVALDI_CONFIG);
    expect(isValidCoordinate(base)).toBe(true);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      for (let i = 0; i < DIMS; i++) expect(isValidCoordinate(at({ [i]: bad }))).toBe(false);
      for (const field of ['error', 'adjustment', 'height'] as const) expect(isValidCoordinate({ ...base, [field]: bad })).toBe(false);
    }
    expect(isValidCoordinate({ ...base, vec: 'abcdefgh' as unknown as number[] })).toBe(false);
  });
});

describe('Vivaldi config', () => {
  it('defaults to Serf v0.9.4 DefaultConfig', () => {
    expect(DEFAULT_VIVALDI_CONFIG).toEqual({
      dimensionality: 8,
      vivaldiErrorMax: 1.5,
      vivaldiCE: 0.25,
      vivaldiCC: 0.25,
      adjustmentWindowSize: 20,
      heightMin: 10.0e-6,
      latencyFilterSize: 3,
      gravityRho: 150.0,
      maxTrackedNodes: 16_384,
      maxCoordinateSeconds: 10, // not in Serf: peers further out are implausible
    });
    expect(client().config).toEqual(DEFAULT_VIVALDI_CONFIG);
    expect(resolveVivaldiConfig({ dimensionality: 3, heightMin: undefined } as unknown as Partial<VivaldiConfig>)).toEqual({ ...DEFAULT_VIVALDI_CONFIG, dimensionality: 3 });
  });

  it('lists every problem at once, unknown keys included', () => {
    const bad = {
      dimensionality: 0,
      vivaldiErrorMax: -1,
      vivaldiCE: 1.5,
      vivaldiCC: Number.NaN,
      adjustmentWindowSize: 2.5,
      heightMin: -1e-6,
      latencyFilterSize: 0,
      gravityRho: 0,
      maxTrackedNodes: Number.POSITIVE_INFINITY,
      maxCoordinateSeconds: 0,
      gravityRoh: 100,
    } as unknown as Partial<VivaldiConfig>;
    let error: unknown;
    try {
      new VivaldiClient({ rng: createRng(1), config: bad });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(11);
    for (const field of Object.keys(DEFAULT_VIVALDI_CONFIG)) expect(problems.some((p) => p.startsWith(`${field} must be`))).toBe(true);
    expect(problems).toContain(`unknown option "gravityRoh" (did you mean 'gravityRho'?)`);
    expect((error as Error).message).toMatch(/^Invalid Vivaldi client options \(11 problems\)/);
  });

  it('validateVivaldiConfig returns [] for the defaults and never throws', () => {
    expect(validateVivaldiConfig(DEFAULT_VIVALDI_CONFIG)).toEqual([]);
    expect(validateVivaldiConfig(null as unknown as VivaldiConfig)).toEqual(['Vivaldi config must be an object, got null']);
  });

  it('needs an rng: the core has no randomness of its own', () => {
    expect(() => new VivaldiClient({} as unknown as { rng: never })).toThrow(/rng must be an Rng/);
    expect(() => new VivaldiClient({ rng: undefined as never, config: { dimensionality: -1 } })).toThrow(/2 problems/);
  });
});
