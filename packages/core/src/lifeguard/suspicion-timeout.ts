/**
 * Lifeguard dynamic suspicion timeout (Lifeguard §IV.B "Local Health Aware Suspicion"; memberlist
 * util.go `suspicionTimeout`, suspicion.go `remainingSuspicionTime`, state.go `suspectNode`).
 *
 * memberlist computes with Go's integer-nanosecond `time.Duration`; these functions emulate its
 * truncations exactly so that the values memberlist derives from its defaults come out the same, but take
 * and return milliseconds (which may carry a fraction, down to nanosecond precision).
 */

import { goLog10 } from '../support/go-math.js';

/** Milliseconds to a Go `time.Duration` (integer nanoseconds). */
function toNanos(ms: number): number {
  return Math.round(ms * 1e6);
}

/** Go `time.Duration.Seconds()`: whole seconds plus the nanosecond remainder / 1e9. */
function goSeconds(ms: number): number {
  const ns = toNanos(ms);
  const sec = Math.trunc(ns / 1e9);
  return sec + (ns - sec * 1e9) / 1e9;
}

/**
 * Minimum suspicion timeout (memberlist util.go `suspicionTimeout`):
 * nodeScale = max(1, log10(max(1, n))); timeout = mult × trunc(nodeScale × 1000) × interval / 1000
 * in integer nanoseconds. memberlist's doc comment says log(N+1); the code is log10(n) floored at
 * 1, so n ≤ 10 gives a flat mult × interval (LAN: n = 32 → 6020 ms, n = 100 → 8000 ms).
 *
 * @param mult `suspicionMult` (a Go int; truncated).
 * @param n estimated cluster size (memberlist `estNumNodes`: includes self and unreaped dead).
 * @param probeIntervalMs the unscaled probe interval; awareness never changes this value in
 *   memberlist (correction 2 scales the armed timeout instead, not this minimum).
 * The maximum is `suspicionMaxTimeoutMult × min` (state.go suspectNode).
 */
export function suspicionTimeoutMs(mult: number, n: number, probeIntervalMs: number): number {
  if (!Number.isFinite(mult) || !Number.isFinite(n) || !Number.isFinite(probeIntervalMs)) return Number.NaN;
  const nodeScale = Math.max(1, goLog10(Math.max(1, n)));
  const scaleMilli = BigInt(Math.trunc(nodeScale * 1000)); // time.Duration(nodeScale*1000)
  const ns = (BigInt(Math.trunc(mult)) * scaleMilli * BigInt(toNanos(probeIntervalMs))) / 1000n;
  return Number(ns) / 1e6;
}

/**
 * Independent confirmations wanted before the suspicion timeout has shrunk to its minimum
 * (memberlist state.go `suspectNode`): k = mult − 2, "subtract 2 for ourselves and the node being
 * probed"; forced to 0 when n − 2 < k, since there are not enough other members to confirm.
 * Never negative (memberlist treats k < 1 as 0: the timer starts at min and Confirm refuses all).
 */
export function confirmationsWanted(mult: number, n: number): number {
  const k = mult - 2;
  if (n - 2 < k) return 0;
  return Math.max(0, k);
}

/**
 * Time left on a suspicion after `confirmations` independent confirmations (memberlist
 * suspicion.go `remainingSuspicionTime`; Lifeguard §IV.B):
 * frac = ln(n + 1) / ln(k + 1); raw = max − frac × (max − min) in seconds; floored to whole
 * milliseconds; clamped to ≥ min; minus elapsed. The result may be negative: the suspicion is
 * then overdue (memberlist fires it at once; correction 1 waits `overdueGraceMs`).
 *
 * With k ≤ 0 (no confirmations wanted) the timeout is min, so the result is min − elapsed;
 * memberlist never calls the formula then (ln 1 = 0 would divide by zero).
 *
 * Examples (elapsed 0): LAN n = 100 (min 8 s, max 48 s, k 2) → 48 s, 22.762 s, 8 s.
 */
export function remainingSuspicionMs(
  confirmations: number,
  k: number,
  elapsedMs: number,
  minMs: number,
  maxMs: number,
): number {
  if (k <= 0) return minMs - elapsedMs;
  const frac = Math.log(confirmations + 1) / Math.log(k + 1);
  const maxSec = goSeconds(maxMs);
  const raw = maxSec - frac * (maxSec - goSeconds(minMs));
  const timeoutMs = Math.max(Math.floor(1000 * raw), minMs);
  return timeoutMs - elapsedMs;
}
