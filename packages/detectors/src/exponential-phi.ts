import { HeartbeatHistory } from './heartbeat-history.js';
import { LearnedDetector } from './learned-detector.js';
import { assertTime, OptionChecks } from './options.js';

/** Options of {@link ExponentialPhi}; every field is optional and defaults to {@link EXPONENTIAL_PHI_DEFAULTS}. */
export interface ExponentialPhiOptions {
  /** Suspect at phi ≥ threshold. Cassandra `phi_convict_threshold`: 8. */
  readonly threshold?: number;
  /** Intervals kept in the window. Cassandra `SAMPLE_SIZE`: 1000. */
  readonly maxSampleSize?: number;
  /**
   * The interval the window starts with, ms. Cassandra records one deliberately large interval at
   * the first heartbeat (`fd_initial_value_ms`, two gossip intervals: 2000 ms), erring towards
   * suspecting late rather than flapping.
   */
  readonly firstIntervalEstimateMs?: number;
  /**
   * Intervals longer than this are not learned; an interval equal to it is. Cassandra
   * `fd_max_interval_ms`, which defaults to the initial value: 2000 ms.
   */
  readonly maxIntervalMs?: number;
}

/** Cassandra's defaults (`FailureDetector`, `ArrivalWindow`; 1 s gossip interval). */
export const EXPONENTIAL_PHI_DEFAULTS: Readonly<Required<ExponentialPhiOptions>> = Object.freeze({
  threshold: 8,
  maxSampleSize: 1000,
  firstIntervalEstimateMs: 2000,
  maxIntervalMs: 2000,
});

/**
 * Phi accrual with exponentially distributed intervals, as Apache Cassandra's `FailureDetector`.
 *
 * Model: intervals are exponential with the window's mean, so P(interval > t) = e^(−t/mean) and
 * phi = −log10 e^(−t/mean) = t / mean / ln 10 (Cassandra: PHI_FACTOR = 1/ln 10 times t/mean). Only
 * the mean is learned; the spread plays no part. Intervals above the cap are not learned.
 *
 * The exponential has a long tail, so its phi climbs slowly: threshold 8 is reached after
 * 8·ln 10 ≈ 18.4 mean intervals, where {@link PhiAccrual} (normal) reaches 8 about 5.6 standard
 * deviations past the mean. Already at a silence of one mean interval the two disagree (1/ln 10 ≈
 * 0.434 here, log10 2 ≈ 0.301 there). Do not reuse a threshold across the two.
 */
export class ExponentialPhi extends LearnedDetector {
  /** Always `'exponential-phi'`. */
  readonly kind = 'exponential-phi' as const;
  /** Phi at which the member counts as suspect: `options.threshold` (default 8). */
  readonly threshold: number;
  /** The options in use: the ones given, completed with {@link EXPONENTIAL_PHI_DEFAULTS}; frozen. */
  readonly options: Readonly<Required<ExponentialPhiOptions>>;

  constructor(options: ExponentialPhiOptions = {}) {
    const o = { ...EXPONENTIAL_PHI_DEFAULTS, ...options };
    const check = new OptionChecks('ExponentialPhi');
    check.finitePositive('threshold', o.threshold);
    check.positiveInteger('maxSampleSize', o.maxSampleSize);
    check.finitePositive('firstIntervalEstimateMs', o.firstIntervalEstimateMs);
    check.positive('maxIntervalMs', o.maxIntervalMs);
    check.done();
    super(new HeartbeatHistory(o.maxSampleSize, [o.firstIntervalEstimateMs], o.maxIntervalMs));
    this.options = Object.freeze(o);
    this.threshold = o.threshold;
  }

  /**
   * A heartbeat at `now` (monotonic ms). The interval since the previous one is learned unless it
   * is above `maxIntervalMs`. An earlier time than the latest heartbeat is ignored; a time that is
   * not finite throws a RangeError.
   */
  heartbeat(now: number): void {
    assertTime(now, 'ExponentialPhi.heartbeat');
    this.history.record(now, true);
  }

  /** The exponential distribution phi is read against: its mean, the window mean. */
  model(): {
    /** Mean interval of the window, ms. */
    readonly mean: number;
  } {
    return { mean: this.history.mean };
  }

  /** silence / mean / ln 10. */
  phi(now: number): number {
    const silence = this.history.silence(now);
    if (silence === undefined) return 0;
    return silence / this.history.mean / Math.LN10;
  }

  /** threshold · ln 10 · mean. */
  horizon(): number {
    return this.threshold * Math.LN10 * this.history.mean;
  }


}
