import { HeartbeatHistory } from './heartbeat-history.js';
import { LearnedDetector } from './learned-detector.js';
import { logisticTailPhi, logisticTailPhiInverse } from './logistic.js';
import { normalTailPhi, normalTailPhiInverse } from './normal.js';
import { assertTime, OptionChecks } from './options.js';

/** Which curve gives the normal tail: the exact one, or Pekko's logistic approximation. */
export type NormalTail = 'exact' | 'logistic';

/** Options of {@link PhiAccrual}; every field is optional and defaults to {@link PHI_ACCRUAL_DEFAULTS}. */
export interface PhiAccrualOptions {
  /** Suspect at phi ≥ threshold. Pekko `threshold`: 8. */
  readonly threshold?: number;
  /** Intervals kept in the window. Pekko `max-sample-size`: 1000. */
  readonly maxSampleSize?: number;
  /**
   * Floor on the standard deviation, ms. Pekko `min-std-deviation`: 100 ms. Without it a very
   * regular history makes a slightly late heartbeat look like certain death.
   */
  readonly minStdDeviationMs?: number;
  /**
   * Added to the learned mean, ms: silences this much longer than usual are tolerated before phi
   * starts to climb (GC pauses, a lost heartbeat or two). Pekko `acceptable-heartbeat-pause`:
   * 3000 ms. It moves the horizon by exactly its own length.
   */
  readonly acceptableHeartbeatPauseMs?: number;
  /**
   * The expected interval before anything is learned, ms. The window starts with two made-up
   * intervals, estimate − estimate/4 and estimate + estimate/4 (mean = estimate, standard
   * deviation = estimate/4), as Pekko `first-heartbeat-estimate`: 1000 ms.
   */
  readonly firstHeartbeatEstimateMs?: number;
  /**
   * Intervals longer than this are not learned, so an outage cannot teach the detector that long
   * silences are normal (Cassandra's rule; Pekko has no such cap). Default Infinity (no cap).
   */
  readonly maxIntervalMs?: number;
  /** The tail curve: 'exact' (default) or Pekko's 'logistic' approximation. */
  readonly tail?: NormalTail;
  /**
   * Pekko does not learn the interval of a heartbeat that arrives while the member is already
   * suspect ("don't use the first heartbeat after failure for the history, since a long pause will
   * skew the stats"). Default false, as Pekko; true learns every interval (as the 2004 paper).
   */
  readonly learnWhileSuspected?: boolean;
}

/** Pekko's production defaults (reference.conf `pekko.cluster.failure-detector`), exact tail, no cap. */
export const PHI_ACCRUAL_DEFAULTS: Readonly<Required<PhiAccrualOptions>> = Object.freeze({
  threshold: 8,
  maxSampleSize: 1000,
  minStdDeviationMs: 100,
  acceptableHeartbeatPauseMs: 3000,
  firstHeartbeatEstimateMs: 1000,
  maxIntervalMs: Number.POSITIVE_INFINITY,
  tail: 'exact',
  learnWhileSuspected: false,
});

/**
 * The phi accrual failure detector with normally distributed intervals (Hayashibara, Défago,
 * Yared, Katayama, "The φ Accrual Failure Detector", 2004; Apache Pekko's
 * `PhiAccrualFailureDetector`).
 *
 * Model: the intervals between heartbeats are normal with the window's mean (plus the acceptable
 * pause) and standard deviation (floored). phi(now) = −log10 P(interval > silence): a threshold Φ
 * means that, if the model were right, a healthy member would be suspected on one check in 10^Φ.
 * Lost heartbeats and rare long delays are not in the model, so the real rate is higher; measure it.
 *
 * Because the spread is learned, threshold 8 is about 5.6 standard deviations past mean + pause
 * (5.2 under the logistic tail). With a 1 s heartbeat, the 100 ms floor and no pause that is
 * 1.56 s; Pekko's 3 s pause makes it 4.56 s. The same 8 means 18.4 s to {@link ExponentialPhi}:
 * thresholds do not carry over between the two.
 */
export class PhiAccrual extends LearnedDetector {
  /** Always `'phi-accrual'`. */
  readonly kind = 'phi-accrual' as const;
  /** Phi at which the member counts as suspect: `options.threshold` (default 8). */
  readonly threshold: number;
  /** The options in use: the ones given, completed with {@link PHI_ACCRUAL_DEFAULTS}; frozen. */
  readonly options: Readonly<Required<PhiAccrualOptions>>;
  readonly #tailPhi: (y: number) => number;
  /** Standard deviations past mean + pause at which phi reaches the threshold. */
  readonly #thresholdDeviations: number;

  constructor(options: PhiAccrualOptions = {}) {
    const o = { ...PHI_ACCRUAL_DEFAULTS, ...options };
    const check = new OptionChecks('PhiAccrual');
    check.finitePositive('threshold', o.threshold);
    check.positiveInteger('maxSampleSize', o.maxSampleSize);
    check.finitePositive('minStdDeviationMs', o.minStdDeviationMs);
    check.finiteNonNegative('acceptableHeartbeatPauseMs', o.acceptableHeartbeatPauseMs);
    check.finitePositive('firstHeartbeatEstimateMs', o.firstHeartbeatEstimateMs);
    check.positive('maxIntervalMs', o.maxIntervalMs);
    check.oneOf('tail', o.tail, ['exact', 'logistic']);
    check.oneOf('learnWhileSuspected', o.learnWhileSuspected, [true, false]);
    check.done();
    const estimate = o.firstHeartbeatEstimateMs;
    const spread = estimate / 4;
    super(new HeartbeatHistory(o.maxSampleSize, [estimate - spread, estimate + spread], o.maxIntervalMs));
    this.options = Object.freeze(o);
    this.threshold = o.threshold;
    const logistic = o.tail === 'logistic';
    this.#tailPhi = logistic ? logisticTailPhi : normalTailPhi;
    this.#thresholdDeviations = logistic ? logisticTailPhiInverse(o.threshold) : normalTailPhiInverse(o.threshold);
  }

  /**
   * A heartbeat at `now` (monotonic ms). The interval since the previous one is learned only if
   * the member was still available at `now` (or `learnWhileSuspected` is set) and the interval is
   * not above `maxIntervalMs`. An earlier time than the latest heartbeat is ignored; a time that is
   * not finite throws a RangeError.
   */
  heartbeat(now: number): void {
    assertTime(now, 'PhiAccrual.heartbeat');
    this.history.record(now, this.options.learnWhileSuspected || this.isAvailable(now));
  }

  /**
   * The normal distribution phi is read against: mean = window mean + acceptable pause,
   * stdDeviation = max(window standard deviation, floor).
   */
  model(): {
    /** Window mean plus `acceptableHeartbeatPauseMs`, ms. */
    readonly mean: number;
    /** Window standard deviation, at least `minStdDeviationMs`, ms. */
    readonly stdDeviation: number;
  } {
    return {
      mean: this.history.mean + this.options.acceptableHeartbeatPauseMs,
      stdDeviation: Math.max(this.history.stdDeviation, this.options.minStdDeviationMs),
    };
  }

  /**
   * −log10 P(interval > silence) under {@link PhiAccrual.model}, with the exact or the logistic tail
   * (`options.tail`); 0 before the first heartbeat.
   */
  phi(now: number): number {
    const silence = this.history.silence(now);
    if (silence === undefined) return 0;
    const { mean, stdDeviation } = this.model();
    return this.#tailPhi((silence - mean) / stdDeviation);
  }

  /**
   * mean + pause + z·stdDeviation, z the point where the tail's phi equals the threshold. Never
   * below 0: with a threshold under log10(2) and a wide spread, phi can exceed the threshold at
   * a silence of 0, and then the member is suspect as soon as its heartbeat is old at all.
   */
  horizon(): number {
    const { mean, stdDeviation } = this.model();
    return Math.max(0, mean + stdDeviation * this.#thresholdDeviations);
  }


}
