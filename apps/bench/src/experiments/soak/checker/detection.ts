import type { GroundTruth } from './ground-truth.js';
import { percentiles, s, type PairIndex } from './pairs.js';
import type { InvariantResult, Percentiles, Timeline } from './types.js';

export interface DetectionResult {
  readonly invariant: InvariantResult;
  /** From each kill to each running member's dead (or left), over every detection made while the member was down, ms. */
  readonly latencyMs: Percentiles;
  /** (kill, observer) pairs where the member came back (or the run ended) before the bound: not required, not counted as checked. */
  readonly notRequired: number;
  readonly kills: number;
}

/**
 * Invariant 1: every killed member is seen dead (or left) by every member that ran throughout the
 * bound after the kill (not killed, restarted, paused or left in it), within `boundMs` — checked
 * where the member stayed down for the whole bound. A member already held dead at the kill counts
 * as detected at once.
 */
export function checkDetection(timeline: Timeline, truth: GroundTruth, pairs: PairIndex, boundMs: number): DetectionResult {
  const latencies: number[] = [];
  let checked = 0;
  let violations = 0;
  let notRequired = 0;
  let kills = 0;
  let first: string | null = null;
  for (const action of truth.actions) {
    if (action.kind !== 'kill') continue;
    for (const subject of action.targets) {
      kills++;
      const span = truth.downSpans(subject).find((d) => d.action === action);
      const t0 = action.start;
      const upAt = span?.to ?? Infinity;
      const deadline = t0 + boundMs;
      const required = upAt >= deadline && deadline <= timeline.end;
      const windowEnd = Math.min(deadline, upAt, timeline.end);
      for (const observer of timeline.members) {
        if (observer === subject) continue;
        if (!truth.runningThroughout(observer, t0, windowEnd) || !truth.memberThroughout(observer, t0, windowEnd) || truth.pausedDuring(observer, t0, windowEnd)) continue;
        if (truth.lives(observer).some((l) => l.at >= t0 && l.at <= windowEnd)) continue;
        const seen = pairs.of(observer, subject);
        let detectedAt: number | undefined;
        let before: (typeof seen)[number] | undefined;
        for (const o of seen) {
          if (o.at < t0) before = o;
          else if (o.at <= windowEnd && (o.kind === 'dead' || o.kind === 'left')) {
            detectedAt = o.at;
            break;
          } else if (o.at > windowEnd) break;
        }
        if (detectedAt === undefined && before !== undefined && (before.kind === 'dead' || before.kind === 'left')) detectedAt = t0;
        if (detectedAt !== undefined) latencies.push(detectedAt - t0);
        if (!required) {
          notRequired++;
          continue;
        }
        checked++;
        if (detectedAt === undefined) {
          violations++;
          first ??= `${subject} killed at ${s(t0)} (down until ${Number.isFinite(upAt) ? s(upAt) : 'the end'}): ${observer} did not see it dead or left within ${s(boundMs)} (by ${s(deadline)})`;
        }
      }
    }
  }
  return {
    invariant: {
      id: 1,
      name: 'every crash seen dead by every running member',
      bound: `within ${s(boundMs)} (failureDetectionBoundMs), for crashes down that long`,
      applicable: kills > 0,
      checked,
      violations,
      firstViolation: first,
    },
    latencyMs: percentiles(latencies),
    notRequired,
    kills,
  };
}
