import { createFailureDetector, type DetectorSpec, type FailureDetector } from '@swim/detectors';

/**
 * The detector settings of the detector lab's tables, built from @swim/detectors with the options
 * that make each one the lab's detector:
 *
 * - phi accrual: exact normal tail, 100 ms floor on the spread, a first estimate of 1 s (window
 *   seeded with 0.75 s and 1.25 s, as the lab and Pekko), no cap on learned intervals, and
 *   `learnWhileSuspected: true` because the lab's window learns every interval (Pekko, the
 *   package default, skips the interval of a heartbeat that arrives while suspect).
 * - exponential phi: the lab's window, not Cassandra's defaults: first estimate 1 s and no cap
 *   (Cassandra starts at 2 s and does not learn intervals above 2 s).
 */
export interface DetectorSetting {
  /** Row label, as in the lab's tables. */
  readonly label: string;
  /** Stable key for JSON and the lab's figures. */
  readonly key: string;
  readonly spec: DetectorSpec;
}

function phi(pauseS: number, window = 1000): DetectorSpec {
  return {
    kind: 'phi-accrual',
    threshold: 8,
    maxSampleSize: window,
    minStdDeviationMs: 100,
    acceptableHeartbeatPauseMs: pauseS * 1000,
    firstHeartbeatEstimateMs: 1000,
    maxIntervalMs: Number.POSITIVE_INFINITY,
    tail: 'exact',
    learnWhileSuspected: true,
  };
}

function exponential(threshold: number): DetectorSpec {
  return { kind: 'exponential-phi', threshold, maxSampleSize: 1000, firstIntervalEstimateMs: 1000, maxIntervalMs: Number.POSITIVE_INFINITY };
}

function fixed(timeoutS: number): DetectorSpec {
  return { kind: 'fixed-timeout', timeoutMs: timeoutS * 1000 };
}

/** Rows of the calm and busy tables: the lab's step 2 (fixed) and step 4 (phi, exponential phi). */
export const TABLE_SETTINGS: readonly DetectorSetting[] = [
  { key: 'fixed-1.5', label: 'fixed 1.5 s', spec: fixed(1.5) },
  { key: 'fixed-2.5', label: 'fixed 2.5 s', spec: fixed(2.5) },
  { key: 'fixed-3.5', label: 'fixed 3.5 s', spec: fixed(3.5) },
  { key: 'fixed-5.5', label: 'fixed 5.5 s', spec: fixed(5.5) },
  { key: 'phi-8-pause-0', label: 'phi 8, no pause', spec: phi(0) },
  { key: 'phi-8-pause-1', label: 'phi 8, 1 s pause', spec: phi(1) },
  { key: 'phi-8-pause-3', label: 'phi 8, 3 s pause', spec: phi(3) },
  { key: 'exp-phi-8', label: 'exponential phi 8', spec: exponential(8) },
  { key: 'exp-phi-3', label: 'exponential phi 3', spec: exponential(3) },
];

/** The detectors of the calm → busy → calm trace (the lab's step 5). */
export const ADAPTATION_SETTINGS: readonly DetectorSetting[] = [
  { key: 'fixed-2.5', label: 'fixed 2.5 s', spec: fixed(2.5) },
  { key: 'fixed-5.5', label: 'fixed 5.5 s', spec: fixed(5.5) },
  { key: 'phi-8-pause-1', label: 'phi 8, 1 s pause, window 1,000', spec: phi(1, 1000) },
  { key: 'phi-8-pause-1-window-100', label: 'phi 8, 1 s pause, window 100', spec: phi(1, 100) },
];

export function build(setting: DetectorSetting): FailureDetector {
  return createFailureDetector(setting.spec);
}

/** The spec as plain data for JSON (Infinity becomes the string "Infinity"). */
export function specJson(spec: DetectorSpec): Record<string, unknown> {
  return Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, typeof v === 'number' && !Number.isFinite(v) ? String(v) : v]));
}
