import type { FailureDetector } from '../src/index.js';

/** Heartbeats at `start`, then one after each interval; returns the time of the last one. */
export function feed(detector: FailureDetector, intervals: readonly number[], start = 0): number {
  let now = start;
  detector.heartbeat(now);
  for (const interval of intervals) {
    now += interval;
    detector.heartbeat(now);
  }
  return now;
}

/** `count` intervals of `gap` ms. */
export function regular(count: number, gap = 1000): number[] {
  return Array.from({ length: count }, () => gap);
}

/** The last heartbeat, which the tests know exists. */
export function last(detector: FailureDetector): number {
  const at = detector.lastHeartbeat;
  if (at === undefined) throw new Error('no heartbeat yet');
  return at;
}

/** Pekko's phi exactly as PhiAccrualFailureDetector.scala writes it (for comparison). */
export function pekkoPhi(timeDiff: number, mean: number, stdDeviation: number): number {
  const y = (timeDiff - mean) / stdDeviation;
  const e = Math.exp(-y * (1.5976 + 0.070566 * y * y));
  return timeDiff > mean ? -Math.log10(e / (1 + e)) : -Math.log10(1 - 1 / (1 + e));
}

export function relativeError(actual: number, expected: number): number {
  if (expected === 0) return Math.abs(actual);
  return Math.abs(actual - expected) / Math.abs(expected);
}
