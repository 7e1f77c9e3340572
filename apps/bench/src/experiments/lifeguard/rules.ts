import type { LifeguardProfile } from './profiles.js';

/**
 * The Lifeguard paper's counting rules (arXiv 1707.00788 §V-E) and its published figures
 * (Tables IV, V, VI), for the report to set ours beside.
 */

/** How a failure (dead) event counts, given which members were anomalous in the run. */
export interface FailureClass {
  /** FP: about a member that was never anomalous, raised anywhere. */
  readonly fp: boolean;
  /** FP-: an FP raised by a member that was never anomalous either (both parties healthy). */
  readonly fpMinus: boolean;
}

export function classifyFailure(observer: string, subject: string, anomalous: ReadonlySet<string>): FailureClass {
  const fp = !anomalous.has(subject);
  return { fp, fpMinus: fp && !anomalous.has(observer) };
}

/** `value` as a percentage of the SWIM baseline's; NaN when the baseline is 0 (no ratio to speak of). */
export function percentOfSwim(value: number, swim: number): number {
  if (!Number.isFinite(value) || !Number.isFinite(swim) || swim === 0) return Number.NaN;
  return (100 * value) / swim;
}

/** Table IV: false positives over all Interval runs, α 5 β 6 (counts, and % of SWIM). */
export const PAPER_TABLE_IV: Readonly<Partial<Record<LifeguardProfile, { fp: number; fpMinus: number; fpPct: number; fpMinusPct: number }>>> = {
  swim: { fp: 339_002, fpMinus: 1326, fpPct: 100, fpMinusPct: 100 },
  'lha-probe': { fp: 229_574, fpMinus: 436, fpPct: 67.72, fpMinusPct: 32.88 },
  'lha-suspicion': { fp: 10_174, fpMinus: 89, fpPct: 3.0, fpMinusPct: 6.71 },
  buddy: { fp: 318_935, fpMinus: 591, fpPct: 94.08, fpMinusPct: 44.57 },
  lifeguard: { fp: 5193, fpMinus: 25, fpPct: 1.53, fpMinusPct: 1.89 },
};

/** Table V: latency of the Threshold runs in seconds, first detection and full dissemination. */
export const PAPER_TABLE_V: Readonly<
  Partial<Record<LifeguardProfile, { firstDetect: { p50: number; p99: number; p999: number }; fullDissemination: { p50: number; p99: number; p999: number } }>>
> = {
  swim: { firstDetect: { p50: 12.44, p99: 16.96, p999: 19.4 }, fullDissemination: { p50: 12.9, p99: 16.93, p999: 20.17 } },
  'lha-probe': { firstDetect: { p50: 12.42, p99: 17.75, p999: 20.1 }, fullDissemination: { p50: 12.9, p99: 17.98, p999: 20.56 } },
  'lha-suspicion': { firstDetect: { p50: 12.42, p99: 17.47, p999: 25.41 }, fullDissemination: { p50: 12.89, p99: 17.33, p999: 23.8 } },
  buddy: { firstDetect: { p50: 12.45, p99: 17.12, p999: 19.16 }, fullDissemination: { p50: 12.92, p99: 17.18, p999: 19.81 } },
  lifeguard: { firstDetect: { p50: 12.45, p99: 17.9, p999: 21.2 }, fullDissemination: { p50: 12.91, p99: 18.05, p999: 21.68 } },
};

/** Table VI: messages and bytes sent over all Interval runs, % of SWIM (compound messages count once). */
export const PAPER_TABLE_VI: Readonly<Partial<Record<LifeguardProfile, { messagesPct: number; bytesPct: number }>>> = {
  swim: { messagesPct: 100, bytesPct: 100 },
  'lha-probe': { messagesPct: 98.46, bytesPct: 90.03 },
  'lha-suspicion': { messagesPct: 111.31, bytesPct: 106.52 },
  buddy: { messagesPct: 100.07, bytesPct: 99.01 },
  lifeguard: { messagesPct: 110.59, bytesPct: 97.97 },
};

/** The goal for our defaults: FP at most Lifeguard's share of SWIM's (Table IV). */
export const GOAL_FP_PCT = 1.53;
/** The goal for our defaults: median first detection at most this much later than SWIM's, seconds. */
export const GOAL_MEDIAN_DELAY_S = 0.5;
