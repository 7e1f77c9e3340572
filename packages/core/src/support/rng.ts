/**
 * Injected, seeded randomness. The core has no ambient randomness: every random choice (probe
 * order, gossip targets, indirect helpers, jitter) draws from an `Rng` the host passes in, so a
 * simulation replays exactly from its seed.
 */
export interface Rng {
  /** A uniformly distributed integer in [0, 2^32). */
  nextUint32(): number;
}

const TWO_POW_32 = 0x1_0000_0000;

/** Murmur3's fmix32 finaliser: a bijection on uint32 with full avalanche. */
export function fmix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** splitmix32: a Weyl sequence through fmix32; expands a seed word into well-mixed state words. */
class SplitMix32 {
  constructor(private state: number) {}

  next(): number {
    this.state = (this.state + 0x9e3779b9) | 0;
    return fmix32(this.state);
  }
}

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator, PractRand-clean): 128-bit state,
 * only 32-bit integer ops, so it is fast in every JS engine. The counter `d` guarantees a period
 * of at least 2^32.
 */
class Sfc32 implements Rng {
  constructor(
    private a: number,
    private b: number,
    private c: number,
    private d: number,
  ) {}

  nextUint32(): number {
    const a = this.a;
    const b = this.b;
    const c = this.c;
    const d = this.d;
    const t = (((a + b) | 0) + d) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    this.c = (((c << 21) | (c >>> 11)) + t) | 0;
    this.d = (d + 1) | 0;
    return t >>> 0;
  }
}

/**
 * The 64 bits of `seed` as an IEEE-754 double, so every number (0, -0, fractions, huge values,
 * ±Infinity) seeds deterministically and distinct numbers seed distinct states. NaN is
 * canonicalised because engines may keep different NaN payloads.
 */
function seedWords(seed: number): [lo: number, hi: number] {
  if (Number.isNaN(seed)) return [0, 0x7ff80000];
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, seed, true);
  return [view.getUint32(0, true), view.getUint32(4, true)];
}

/**
 * A deterministic sfc32 generator for `seed`. The two halves of the seed go through independent
 * splitmix32 streams, so the mapping seed → initial state is injective; the first outputs are
 * discarded as the sfc32 reference does, to let the counter diffuse.
 */
export function createRng(seed: number): Rng {
  const [lo, hi] = seedWords(seed);
  const fromLo = new SplitMix32(lo);
  const fromHi = new SplitMix32(hi ^ 0x6a09e667);
  const rng = new Sfc32(fromLo.next(), fromHi.next(), fromLo.next() ^ fromHi.next(), 1);
  for (let i = 0; i < 15; i++) rng.nextUint32();
  return rng;
}

/**
 * A uniform integer in [0, n) for an integer 1 ≤ n ≤ 2^32. Rejection sampling removes the modulo
 * bias: a draw in the last, incomplete block of n values below 2^32 (x − x mod n + n > 2^32) is
 * redrawn, which happens with probability < n/2^32. Anything else is a programming error and
 * throws RangeError.
 */
export function randomInt(rng: Rng, n: number): number {
  if (!(n >= 1 && n <= TWO_POW_32 && Number.isInteger(n))) {
    throw new RangeError(`randomInt: n must be an integer in [1, 2^32], got ${n}`);
  }
  for (;;) {
    const x = rng.nextUint32();
    const r = x % n;
    if (x - r + n <= TWO_POW_32) return r;
  }
}

/** A uniform float in [0, 1) with 32 bits of resolution (one draw; ample for jitter and sampling). */
export function randomFloat(rng: Rng): number {
  return rng.nextUint32() / TWO_POW_32;
}

/** Fisher–Yates (Durstenfeld) shuffle: every permutation equally likely. memberlist shuffleNodes. */
export function shuffleInPlace<T>(rng: Rng, items: { readonly length: number; [index: number]: T }): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randomInt(rng, i + 1);
    const tmp = items[i] as T;
    items[i] = items[j] as T;
    items[j] = tmp;
  }
}

/** Rejection sampling is only used while k is this small (its duplicate check is O(k²))… */
const REJECTION_MAX_K = 32;
/** …and while n ≥ this × k, where random picks rarely collide (memberlist #350 uses 3k). */
const REJECTION_MIN_N_PER_K = 4;

/**
 * Up to `k` distinct items for which `eligible` holds, as a uniformly random k-subset of the
 * eligible items in random order — memberlist kRandomNodes, but always exhaustive: the result has
 * exactly min(k, #eligible) items (v0.2.2's 3n random picks could miss the one eligible peer of a
 * 3-node cluster; memberlist #350).
 *
 * Cheap path (k small, n ≥ 4k): random index picks, skipping ineligible items and duplicates, for
 * a bounded number of attempts — O(k) expected when most items are eligible. If that does not
 * finish (sparse eligibility), the picks are discarded and the exhaustive path runs: collect the
 * eligible items (one O(n) pass) and take a partial Fisher–Yates. Discarding keeps the result
 * uniform: whether the cheap path finishes does not depend on which items it picked.
 *
 * `eligible` must be a pure predicate; it may be called more than once per item.
 */
export function pickRandom<T>(
  rng: Rng,
  items: ArrayLike<T>,
  k: number,
  eligible: (item: T) => boolean,
): T[] {
  const n = items.length;
  if (!(k >= 1) || n === 0) return [];
  const want = Math.min(Math.floor(k), n);

  if (want <= REJECTION_MAX_K && n >= REJECTION_MIN_N_PER_K * want) {
    const picked = pickByRejection(rng, items, want, eligible);
    if (picked !== undefined) return picked;
  }
  return pickExhaustively(rng, items, want, eligible);
}

/** Random index picks; undefined when the attempt budget runs out before `want` items are found. */
function pickByRejection<T>(
  rng: Rng,
  items: ArrayLike<T>,
  want: number,
  eligible: (item: T) => boolean,
): T[] | undefined {
  const n = items.length;
  const chosen: number[] = [];
  const result: T[] = [];
  // Enough for ~90% of draws to be ineligible or duplicates before falling back.
  const maxAttempts = 8 * want + 8;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const index = randomInt(rng, n);
    if (chosen.includes(index)) continue;
    const item = items[index] as T;
    if (!eligible(item)) continue;
    chosen.push(index);
    result.push(item);
    if (result.length === want) return result;
  }
  return undefined;
}

/** One pass to collect the eligible items, then a partial Fisher–Yates over them. */
function pickExhaustively<T>(
  rng: Rng,
  items: ArrayLike<T>,
  want: number,
  eligible: (item: T) => boolean,
): T[] {
  const pool: T[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as T;
    if (eligible(item)) pool.push(item);
  }
  const take = Math.min(want, pool.length);
  for (let i = 0; i < take; i++) {
    const j = i + randomInt(rng, pool.length - i);
    const tmp = pool[i] as T;
    pool[i] = pool[j] as T;
    pool[j] = tmp;
  }
  pool.length = take;
  return pool;
}
