/**
 * @swim/detectors: failure detectors as pure values. No clock, timers or randomness: every call
 * takes `now` in monotonic milliseconds. Phi accrual with normal intervals (as Pekko), with
 * exponential intervals (as Cassandra), and a fixed timeout, behind one interface. Their
 * thresholds are not comparable: see {@link FailureDetector}.
 *
 * @packageDocumentation
 */
export type { FailureDetector, DetectorKind, IntervalStats } from './failure-detector.js';
export { FixedTimeout, type FixedTimeoutOptions } from './fixed-timeout.js';
export { PhiAccrual, PHI_ACCRUAL_DEFAULTS, type PhiAccrualOptions, type NormalTail } from './phi-accrual.js';
export { ExponentialPhi, EXPONENTIAL_PHI_DEFAULTS, type ExponentialPhiOptions } from './exponential-phi.js';
export { createFailureDetector, type DetectorSpec } from './create.js';
export { DetectorOptionsError } from './options.js';
export { IntervalWindow } from './intervals.js';
export { erfc, normalTailPhi, normalTailPhiInverse, inverseNormalCdf } from './normal.js';
export { logisticTailPhi, logisticTailPhiInverse, LOGISTIC_LINEAR, LOGISTIC_CUBIC } from './logistic.js';
