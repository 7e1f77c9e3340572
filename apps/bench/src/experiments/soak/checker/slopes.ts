import { s } from './pairs.js';
import { DEFAULT_SLOPE_BOUNDS, RESOURCE_METRICS, type InvariantResult, type ResourceMetric, type ResourceSample, type SlopeBounds, type Timeline } from './types.js';

export interface SlopeRow {
  readonly metric: ResourceMetric;
  readonly members: number;
  /** The steepest member and its slope per hour (bytes or counts). */
  readonly worstMember: string;
  readonly worstPerHour: number;
  readonly boundPerHour: number;
  readonly violations: number;
}

/** Least-squares slope of y over x; NaN with fewer than two distinct x. */
export function leastSquaresSlope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  let sx = 0;
  let sy = 0;
  for (const [x, y] of points) {
    sx += x;
    sy += y;
  }
  const mx = sx / n;
  const my = sy / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) * (x - mx);
  }
  return den === 0 ? Number.NaN : num / den;
}

const HOUR = 3_600_000;

/**
 * Invariant 5: no resource grows. Per member and metric, the least-squares slope over the last
 * three quarters of the run (the first quarter is warm-up: tables fill, JIT settles), per hour,
 * against the bound. Needs three samples of a member in that window.
 */
export function checkSlopes(timeline: Timeline, bounds: SlopeBounds = DEFAULT_SLOPE_BOUNDS): { invariant: InvariantResult; rows: SlopeRow[] } {
  const from = timeline.start + (timeline.end - timeline.start) / 4;
  const samples = (timeline.samples ?? []).filter((x) => x.at >= from);
  const rows: SlopeRow[] = [];
  let checked = 0;
  let violations = 0;
  let first: string | null = null;
  for (const metric of RESOURCE_METRICS) {
    const bound = bounds[metric];
    if (bound === undefined) continue;
    const byMember = new Map<string, Array<[number, number]>>();
    for (const x of samples as ResourceSample[]) {
      const v = x[metric];
      if (v === undefined) continue;
      let list = byMember.get(x.member);
      if (list === undefined) byMember.set(x.member, (list = []));
      list.push([x.at / HOUR, v]);
    }
    let worst = { member: '', slope: -Infinity };
    let over = 0;
    let members = 0;
    for (const [member, points] of byMember) {
      if (points.length < 3) continue;
      const slope = leastSquaresSlope(points);
      if (!Number.isFinite(slope)) continue;
      members++;
      checked++;
      if (slope > worst.slope) worst = { member, slope };
      if (slope > bound) {
        over++;
        violations++;
        first ??= `${member}: ${metric} grows ${formatPerHour(metric, slope)} over the last three quarters (from ${s(from)}), bound ${formatPerHour(metric, bound)}`;
      }
    }
    if (members > 0) rows.push({ metric, members, worstMember: worst.member, worstPerHour: worst.slope, boundPerHour: bound, violations: over });
  }
  return {
    invariant: {
      id: 5,
      name: 'resource slopes',
      bound: Object.entries(bounds)
        .map(([m, b]) => `${m} ≤ ${formatPerHour(m as ResourceMetric, b)}`)
        .join(', '),
      applicable: checked > 0,
      checked,
      violations,
      firstViolation: first,
    },
    rows,
  };
}

export function formatPerHour(metric: ResourceMetric, perHour: number): string {
  return metric === 'rss' || metric === 'heapUsed' ? `${(perHour / (1024 * 1024)).toFixed(2)} MiB/h` : `${perHour.toFixed(2)}/h`;
}
