/**
 * Adaptive probe timeouts: each member's direct-ack round trips, and the direct-ack wait derived
 * from them, phi-accrual style (Hayashibara et al., "The φ Accrual Failure Detector", 2004, read
 * over RTTs instead of heartbeat intervals).
 *
 * Model: a member's RTTs are normal with the window's mean and standard deviation (floored at
 * `minStdDevMs`). The wait is the RTT at which phi = −log10 P(RTT > wait) reaches the threshold:
 * mean + z·max(std, minStdDevMs), z = {@link phiThresholdDeviations}(threshold), clamped to
 * [floorMs, ceilingMs]. Real RTT tails are heavier than normal, so the rate of direct acks that
 * miss the wait is higher than 10^−threshold; a miss only starts the indirect phase early (the
 * late direct ack still counts until the probe ends), so it costs messages, not accuracy.
 *
 * memberlist has no such thing: its ProbeTimeout is fixed (memberlist probeNode).
 */

/** The adaptive wait's parameters, resolved from the config once (see `SwimConfig`). */
export interface AdaptiveTimeoutParams {
  /** Lower bound of the derived wait, ms. */
  readonly floorMs: number;
  /** Upper bound of the derived wait, ms (validated < probeIntervalMs). */
  readonly ceilingMs: number;
  /** z: standard deviations past the mean, from the phi threshold. */
  readonly deviations: number;
  /** Floor on the standard deviation, ms. */
  readonly minStdDevMs: number;
  /** RTTs a member needs before its own wait is used; below it the fixed timeout applies. */
  readonly minSamples: number;
}

// Acklam's rational approximation of the inverse normal CDF (P. J. Acklam, 2003; relative error
// below 1.15e-9 over the whole range). Coefficients highest power first.
const A = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const C = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

function horner(coefficients: readonly number[], x: number): number {
  let value = 0;
  for (const c of coefficients) value = value * x + c;
  return value;
}

/**
 * The z > −∞ with P(Y > z) = tail for a standard normal Y (the upper-tail quantile), for tail in
 * (0, 1). The tail is given as its base-10 logarithm so that tiny tails (phi 20 and beyond) do not
 * lose precision. Acklam's algorithm: relative error below 1.15e-9, plenty for a timeout.
 */
function upperQuantile(log10Tail: number): number {
  const tail = 10 ** log10Tail;
  if (tail < P_LOW) {
    // Upper tail region: q = sqrt(−2 ln tail), computed from the logarithm directly.
    const q = Math.sqrt(-2 * log10Tail * Math.LN10);
    return -horner(C, q) / (horner(D, q) * q + 1);
  }
  if (tail > 1 - P_LOW) {
    const q = Math.sqrt(-2 * Math.log1p(-tail));
    return horner(C, q) / (horner(D, q) * q + 1);
  }
  // Central region, for the lower-tail probability p = 1 − tail.
  const q = 1 - tail - 0.5;
  const r = q * q;
  return (horner(A, r) * q) / (horner(B, r) * r + 1);
}

/**
 * Standard deviations past the mean at which phi (= −log10 P(Y > y), Y normal) reaches `phi`: the
 * same map as `normalTailPhiInverse` in @swim/detectors (checked against it in the core's tests),
 * kept here so that the core depends on nothing. Threshold 8 gives about 5.61, 4 about 3.72, 2
 * about 2.33 (the 99th percentile). Any finite phi > 0; NaN otherwise.
 */
export function phiThresholdDeviations(phi: number): number {
  if (!(phi > 0 && Number.isFinite(phi))) return Number.NaN;
  return upperQuantile(-phi);
}

/**
 * The direct-ack wait for a member whose RTT window has `count` samples with this mean and
 * population standard deviation: `fixedMs` below `minSamples`, else
 * clamp(mean + z·max(std, minStdDevMs), floorMs, ceilingMs).
 */
export function adaptiveTimeoutMs(
  stats: { readonly count: number; readonly mean: number; readonly stdDev: number },
  params: AdaptiveTimeoutParams,
  fixedMs: number,
): number {
  if (stats.count < params.minSamples || stats.count === 0) return fixedMs;
  const horizon = stats.mean + params.deviations * Math.max(stats.stdDev, params.minStdDevMs);
  return Math.min(params.ceilingMs, Math.max(params.floorMs, horizon));
}

/**
 * The last `capacity` RTTs of one member in a ring buffer with running sums, so the mean and the
 * standard deviation cost O(1) (as Pekko's HeartbeatHistory and @swim/detectors' IntervalWindow).
 * The sums are recomputed from the buffer once per `capacity` pushes, so rounding from adding and
 * removing cannot build up however long the member lives.
 */
export class RttWindow {
  /** The most RTTs held; a push beyond it evicts the oldest. */
  readonly capacity: number;
  readonly #values: Float64Array;
  #next = 0;
  #count = 0;
  #sum = 0;
  #sumOfSquares = 0;
  #sinceResum = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`RttWindow: capacity must be an integer >= 1, got ${String(capacity)}`);
    this.capacity = capacity;
    this.#values = new Float64Array(capacity);
  }

  /** Adds an RTT (ms, finite and >= 0; anything else is ignored); the oldest leaves a full window. */
  push(rttMs: number): void {
    if (!(rttMs >= 0 && Number.isFinite(rttMs))) return;
    if (this.#count === this.capacity) {
      const evicted = this.#values[this.#next]!;
      this.#sum -= evicted;
      this.#sumOfSquares -= evicted * evicted;
    } else {
      this.#count++;
    }
    this.#values[this.#next] = rttMs;
    this.#next = (this.#next + 1) % this.capacity;
    this.#sum += rttMs;
    this.#sumOfSquares += rttMs * rttMs;
    if (++this.#sinceResum >= this.capacity) this.#resum();
  }

  /** RTTs held, from 0 to `capacity`. */
  get count(): number {
    return this.#count;
  }

  /** NaN when empty. */
  get mean(): number {
    return this.#sum / this.#count;
  }

  /** Population standard deviation (as Pekko), never negative; NaN when empty. */
  get stdDev(): number {
    const mean = this.mean;
    return Math.sqrt(Math.max(0, this.#sumOfSquares / this.#count - mean * mean));
  }

  /** The RTTs held, oldest first (a copy). */
  values(): number[] {
    const out: number[] = [];
    const start = this.#count === this.capacity ? this.#next : 0;
    for (let i = 0; i < this.#count; i++) out.push(this.#values[(start + i) % this.capacity]!);
    return out;
  }

  #resum(): void {
    this.#sinceResum = 0;
    let sum = 0;
    let sumOfSquares = 0;
    for (let i = 0; i < this.#count; i++) {
      const v = this.#values[i]!;
      sum += v;
      sumOfSquares += v * v;
    }
    this.#sum = sum;
    this.#sumOfSquares = sumOfSquares;
  }
}

/**
 * Every member's RTT window, created on a member's first direct ack and dropped when the member is
 * declared dead, leaves, is reaped or changes address (its old RTTs say nothing about the new path).
 */
export class RttHistory {
  readonly #windows = new Map<string, RttWindow>();

  constructor(
    /** RTTs kept per member (`adaptiveTimeoutWindow`). */
    readonly windowSize: number,
    /** How a member's RTTs become its wait. */
    readonly params: AdaptiveTimeoutParams,
  ) {}

  /** Adds a direct-ack RTT (ms) to `name`'s window, making the window on its first. */
  record(name: string, rttMs: number): void {
    let samples = this.#windows.get(name);
    if (samples === undefined) {
      samples = new RttWindow(this.windowSize);
      this.#windows.set(name, samples);
    }
    samples.push(rttMs);
  }

  /** Drops `name`'s window: it died, left, was reaped or changed address. */
  forget(name: string): void {
    this.#windows.delete(name);
  }

  /** The RTT window of `name`, if it has one (read-only use). */
  samplesOf(name: string): RttWindow | undefined {
    return this.#windows.get(name);
  }

  /** Members with a window. */
  get size(): number {
    return this.#windows.size;
  }

  /** The direct-ack wait for `name`: derived from its RTTs, or `fixedMs` while it has too few. */
  timeoutFor(name: string, fixedMs: number): number {
    const samples = this.#windows.get(name);
    return samples === undefined ? fixedMs : adaptiveTimeoutMs(samples, this.params, fixedMs);
  }

  /** Whether `name` has enough RTTs for its own wait. */
  isAdaptive(name: string): boolean {
    return (this.#windows.get(name)?.count ?? 0) >= Math.max(1, this.params.minSamples);
  }
}
