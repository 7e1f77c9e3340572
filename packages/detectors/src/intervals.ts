/**
 * The most recent heartbeat intervals, in a ring buffer with running sums so that the mean and the
 * variance cost O(1) however many intervals the window holds (Pekko `HeartbeatHistory`, Cassandra
 * `ArrayBackedBoundedStats`, chitchat `BoundedArrayStats`).
 *
 * The sums are plain floating-point running totals, as in Pekko. For millisecond intervals the
 * rounding they accumulate stays far below anything a detector can notice (a sum of squares near
 * 1e9 carries about 1e-7 of rounding per update); the variance is clamped at 0 so that rounding can
 * never make it negative.
 */
export class IntervalWindow {
  /** The most intervals the window holds; a push beyond it evicts the oldest. */
  readonly capacity: number;
  readonly #values: Float64Array;
  /** Index of the oldest interval. */
  #start = 0;
  #count = 0;
  #sum = 0;
  #sumOfSquares = 0;

  /** @param capacity the most intervals kept (Pekko `max-sample-size`); an integer ≥ 1. */
  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`IntervalWindow: capacity must be an integer >= 1, got ${String(capacity)}`);
    }
    this.capacity = capacity;
    this.#values = new Float64Array(capacity);
  }

  /** Adds an interval; when the window is full the oldest one leaves it, and its share of the sums with it. */
  push(interval: number): void {
    if (this.#count === this.capacity) {
      const evicted = this.#values[this.#start]!;
      this.#sum -= evicted;
      this.#sumOfSquares -= evicted * evicted;
      this.#values[this.#start] = interval;
      this.#start = (this.#start + 1) % this.capacity;
    } else {
      this.#values[(this.#start + this.#count) % this.capacity] = interval;
      this.#count += 1;
    }
    this.#sum += interval;
    this.#sumOfSquares += interval * interval;
  }

  /** Empties the window. */
  clear(): void {
    this.#start = 0;
    this.#count = 0;
    this.#sum = 0;
    this.#sumOfSquares = 0;
  }

  /** How many intervals the window holds. */
  get size(): number {
    return this.#count;
  }

  /** Running sum of the intervals held, ms (0 when empty). */
  get sum(): number {
    return this.#sum;
  }

  /** Running sum of the squared intervals held, ms² (0 when empty). */
  get sumOfSquares(): number {
    return this.#sumOfSquares;
  }

  /** Mean interval; NaN when empty. */
  get mean(): number {
    return this.#sum / this.#count;
  }

  /** Population variance, E[x²] − E[x]² (as Pekko), clamped at 0; NaN when empty. */
  get variance(): number {
    const mean = this.mean;
    return Math.max(0, this.#sumOfSquares / this.#count - mean * mean);
  }

  /** Population standard deviation; NaN when empty. */
  get stdDeviation(): number {
    return Math.sqrt(this.variance);
  }

  /** The intervals, oldest first (a copy). */
  values(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.#count; i++) out.push(this.#values[(this.#start + i) % this.capacity]!);
    return out;
  }
}
