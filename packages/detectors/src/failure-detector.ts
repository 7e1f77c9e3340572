/**
 * The one interface every detector in this package implements, so a shell or the core can swap
 * them. Time is always a parameter: monotonic milliseconds, the same clock for every call.
 *
 * The numbers behind `phi` and `threshold` are NOT comparable between detectors. Each detector
 * reads a silence against its own model of how long healthy silences are:
 *
 * - `PhiAccrual` assumes the intervals are normally distributed and learns their mean and
 *   standard deviation, so threshold 8 sits about 5.6 standard deviations past the mean plus the
 *   acceptable pause: with a regular 1 s heartbeat and the 100 ms floor, 1.56 s of silence without
 *   a pause, 4.56 s with Pekko's 3 s.
 * - `ExponentialPhi` assumes exponential intervals and learns only their mean, so threshold 8
 *   is 8·ln 10 ≈ 18.4 mean intervals: 18.4 s for the same heartbeat.
 * - `FixedTimeout` assumes nothing; its level is silence / timeout and its threshold is 1.
 *
 * Copy a threshold between systems only together with the distribution it was chosen for.
 */
export interface FailureDetector {
  /** Which model this detector uses (see the interface comment). */
  readonly kind: DetectorKind;
  /** The suspicion level at which the monitored member counts as suspect. */
  readonly threshold: number;
  /** Time of the latest heartbeat, or undefined before the first one (and after `reset`). */
  readonly lastHeartbeat: number | undefined;

  /**
   * A heartbeat (or any sign of life) arrived at `now`. A time earlier than the latest heartbeat is
   * ignored; a time that is not finite is a programming error and throws a RangeError.
   */
  heartbeat(now: number): void;

  /**
   * The suspicion level at `now`, growing with the silence since the latest heartbeat (never
   * decreasing as `now` grows). 0 before the first heartbeat: a member never heard from is not
   * suspected (as Pekko).
   */
  phi(now: number): number;

  /**
   * The silence after the latest heartbeat at which the level reaches the threshold, given what
   * the detector has learned so far: phi(lastHeartbeat + horizon()) = threshold.
   */
  horizon(): number;

  /**
   * When the member becomes suspect if nothing more arrives: lastHeartbeat + horizon(), or
   * undefined before the first heartbeat. The one deadline a shell or the core arms a timer for.
   */
  deadline(): number | undefined;

  /**
   * Whether the member counts as available at `now`: exactly `now < deadline()` (true before the
   * first heartbeat). This is phi(now) < threshold without rounding at the boundary, so a timer
   * armed at deadline() always finds the member suspect.
   */
  isAvailable(now: number): boolean;

  /** Forgets everything learned and the latest heartbeat, as a new detector (e.g. when the member dies). */
  reset(): void;
}

/**
 * Which model a detector uses: `fixed-timeout` ({@link FixedTimeout}), `phi-accrual` ({@link PhiAccrual},
 * normal intervals) or `exponential-phi` ({@link ExponentialPhi}, exponential intervals).
 */
export type DetectorKind = 'fixed-timeout' | 'phi-accrual' | 'exponential-phi';

/** Summary of the intervals a learning detector holds in its window. */
export interface IntervalStats {
  /** Intervals in the window (including the made-up seed intervals until they are pushed out). */
  readonly samples: number;
  /** Mean interval, ms. */
  readonly mean: number;
  /** Population standard deviation of the intervals, ms (before any floor). */
  readonly stdDeviation: number;
}
