import type { IntervalStats } from './failure-detector.js';
import { IntervalWindow } from './intervals.js';

/**
 * The latest heartbeat and the window of recent intervals, shared by the learning detectors:
 * seeding with made-up intervals, the cap above which an interval is not learned, reset.
 */
export class HeartbeatHistory {
  readonly #intervals: IntervalWindow;
  readonly #seed: readonly number[];
  readonly #maxInterval: number;
  #last: number | undefined;

  /**
   * @param maxSampleSize window capacity.
   * @param seedIntervals made-up intervals the window starts with (and restarts with on reset),
   *   so the detector has a mean before it has heard anything.
   * @param maxInterval intervals above this are not learned (Infinity: learn everything).
   */
  constructor(maxSampleSize: number, seedIntervals: readonly number[], maxInterval: number) {
    this.#intervals = new IntervalWindow(maxSampleSize);
    this.#seed = [...seedIntervals];
    this.#maxInterval = maxInterval;
    this.reset();
  }

  get last(): number | undefined {
    return this.#last;
  }

  get mean(): number {
    return this.#intervals.mean;
  }

  get stdDeviation(): number {
    return this.#intervals.stdDeviation;
  }

  /** Milliseconds since the latest heartbeat (0 if `now` is earlier); undefined before the first. */
  silence(now: number): number | undefined {
    return this.#last === undefined ? undefined : Math.max(0, now - this.#last);
  }

  /**
   * Records a heartbeat at `now`. The interval since the previous one is learned when `mayLearn` is
   * true and it is not above the cap (an interval equal to the cap is learned, as Cassandra's
   * `interArrivalTime <= MAX_INTERVAL_IN_NANO`). A heartbeat older than the latest is ignored.
   */
  record(now: number, mayLearn: boolean): void {
    if (this.#last !== undefined) {
      if (now < this.#last) return;
      const interval = now - this.#last;
      if (mayLearn && interval <= this.#maxInterval) this.#intervals.push(interval);
    }
    this.#last = now;
  }

  stats(): IntervalStats {
    return { samples: this.#intervals.size, mean: this.#intervals.mean, stdDeviation: this.#intervals.stdDeviation };
  }

  intervals(): number[] {
    return this.#intervals.values();
  }

  reset(): void {
    this.#last = undefined;
    this.#intervals.clear();
    for (const interval of this.#seed) this.#intervals.push(interval);
  }
}
