import type { FailureDetector } from '@swim/detectors';
import { createRng, randomFloat } from '@swim/core';
import type { Trace } from './model.js';

/**
 * The scorer (the detector lab, "build the scorer first"): replay a trace through a detector and
 * judge it on false alarms while the sender is alive and on how long a real crash takes to notice.
 *
 * Nothing is sampled on a grid. After each heartbeat the detector's `deadline()` says when it will
 * turn suspect if nothing more arrives, and `isAvailable(now)` is exactly `now < deadline()`, so:
 *
 * - a false alarm is a transition into suspect: heartbeat i's deadline comes before or at the
 *   moment heartbeat i + 1 arrives (a heartbeat arriving exactly at the deadline is too late,
 *   since the detector is suspect from the deadline on). The lab counts a gap equal to the
 *   horizon as no alarm; with continuous delays the two never differ in a generated trace.
 * - detection time of a crash at time c: the sender sends nothing after c, but what it sent up to
 *   c still arrives (it was in flight). It is the first moment from c on at which the detector is
 *   suspect: 0 if it already is, else the first deadline that passes before the next of those
 *   heartbeats arrives, else the last one's deadline. Two things differ from the lab's rule
 *   (the deadline of the last counted heartbeat sent before c, reported as `labRule`):
 *   a suspicion that falls between the crash and the last in-flight heartbeat counts (the
 *   detector did say suspect then), and a heartbeat sent before c that the live trace dropped
 *   because a newer one, sent after c, overtook it does arrive and count after a crash. The
 *   second lengthens the tail on the busy network: a very late last heartbeat delays detection.
 *   For such overtaken heartbeats the detector's horizon is held at its value after the last
 *   counted one (exact for fixed timeouts; a learning detector would have learned one or two
 *   more intervals of its 100–1,000).
 */
export interface Replay {
  readonly arrived: Float64Array;
  readonly sent: Float64Array;
  readonly seq: Int32Array;
  readonly arrivalBySeq: Float64Array | undefined;
  readonly intervalMs: number;
  /** deadline()[i]: the detector's deadline right after heartbeat i arrived. */
  readonly deadline: Float64Array;
}

/** Feeds the trace's heartbeats to a fresh detector in arrival order and records each deadline. */
export function replay(detector: FailureDetector, trace: Trace): Replay {
  const n = trace.arrived.length;
  const deadline = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const now = trace.arrived[i]!;
    detector.heartbeat(now);
    deadline[i] = detector.deadline()!;
  }
  return { arrived: trace.arrived, sent: trace.sent, seq: trace.seq, arrivalBySeq: trace.arrivalBySeq, intervalMs: trace.intervalMs, deadline };
}

/** Silence tolerated after heartbeat i: deadline − arrival (the detector's horizon then). */
export function horizonAt(r: Replay, i: number): number {
  return r.deadline[i]! - r.arrived[i]!;
}

/**
 * The moments a live sender's detector turns suspect: deadline i when heartbeat i + 1 arrives at
 * or after it. The last heartbeat has no successor in the trace and is not judged.
 */
export function alarmTimes(r: Replay): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < r.arrived.length; i++) {
    if (r.arrived[i + 1]! >= r.deadline[i]!) out.push(r.deadline[i]!);
  }
  return out;
}

/** Transitions into suspect at times in [startMs, endMs). */
export function countAlarms(times: readonly number[], startMs: number, endMs: number): number {
  let n = 0;
  for (const t of times) if (t >= startMs && t < endMs) n++;
  return n;
}

/** Index of the last element ≤ x in a sorted array, or −1. */
function lastAtOrBefore(values: Float64Array, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Arrival times, in arrival order, of the heartbeats sent up to `crashMs` that the live trace dropped as overtaken, keeping only ones newer than every earlier arrival. */
function inFlightOvertaken(r: Replay, last: number, crashMs: number): number[] {
  if (r.arrivalBySeq === undefined) return [];
  const lastSent = Math.min(Math.floor(crashMs / r.intervalMs), r.arrivalBySeq.length - 1);
  const beats: Array<[arrival: number, seq: number]> = [];
  for (let q = r.seq[last]! + 1; q <= lastSent; q++) {
    const a = r.arrivalBySeq[q]!;
    if (!Number.isNaN(a)) beats.push([a, q]);
  }
  if (beats.length === 0) return [];
  beats.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: number[] = [];
  let newest = r.seq[last]!;
  for (const [a, q] of beats) {
    if (q <= newest) continue;
    newest = q;
    out.push(a);
  }
  return out;
}

/**
 * How long after a crash at `crashMs` the detector first says suspect (ms), if the sender stops
 * sending at `crashMs` (heartbeats sent up to then still arrive). Undefined before the first
 * heartbeat is sent.
 */
export function detectionTime(r: Replay, crashMs: number): number | undefined {
  const last = lastAtOrBefore(r.sent, crashMs);
  if (last < 0) return undefined;
  // The detector's state at the crash: after the last heartbeat that has arrived by then.
  const k = Math.min(lastAtOrBefore(r.arrived, crashMs), last);
  if (k >= 0 && r.deadline[k]! <= crashMs) return 0;
  for (let j = Math.max(k, 0); j < last; j++) {
    if (r.arrived[j + 1]! >= r.deadline[j]!) return r.deadline[j]! - crashMs;
  }
  let deadline = r.deadline[last]!;
  const horizon = deadline - r.arrived[last]!;
  for (const arrival of inFlightOvertaken(r, last, crashMs)) {
    if (arrival >= deadline) break;
    deadline = arrival + horizon;
  }
  return deadline - crashMs;
}

/** The lab's rule: the deadline after the last counted heartbeat sent up to the crash, minus the crash time, at least 0. */
export function detectionTimeLabRule(r: Replay, crashMs: number): number | undefined {
  const last = lastAtOrBefore(r.sent, crashMs);
  return last < 0 ? undefined : Math.max(0, r.deadline[last]! - crashMs);
}

export interface Score {
  /** False alarms (transitions into suspect) in the window. */
  readonly alarms: number;
  /** Length of the window, hours. */
  readonly hours: number;
  /** Detection times of the crashes, ms, in the order drawn. */
  readonly detections: number[];
  /** The same crashes under the lab's rule (see {@link Replay}). */
  readonly labRule: number[];
}

/**
 * Scores a replay over [startMs, endMs): the alarms in the window, and `crashes` crashes at
 * uniformly random moments of the window (drawn from `crashSeed`).
 */
export function score(r: Replay, window: { readonly startMs: number; readonly endMs: number }, crashes: number, crashSeed: number, alarms: readonly number[] = alarmTimes(r)): Score {
  const { startMs, endMs } = window;
  const rng = createRng(crashSeed);
  const detections: number[] = [];
  const labRule: number[] = [];
  for (let c = 0; c < crashes; c++) {
    const at = startMs + (endMs - startMs) * randomFloat(rng);
    const d = detectionTime(r, at);
    const s = detectionTimeLabRule(r, at);
    if (d !== undefined && s !== undefined) {
      detections.push(d);
      labRule.push(s);
    }
  }
  return { alarms: countAlarms(alarms, startMs, endMs), hours: (endMs - startMs) / 3_600_000, detections, labRule };
}
