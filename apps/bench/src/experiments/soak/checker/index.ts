/**
 * The soak invariant checker (issue 29): pure and deterministic over a normalized {@link Timeline},
 * shared by the simulated day (`pnpm bench soak --simulator`) and the real-agent soak.
 */
import { table } from '../../../report/table.js';
import { checkConvergence, type ConvergenceResult } from './convergence.js';
import { checkDetection, type DetectionResult } from './detection.js';
import { checkExits } from './exits.js';
import { checkFalseDeaths, type FalseDeathResult } from './false-deaths.js';
import { GroundTruth } from './ground-truth.js';
import { PairIndex } from './pairs.js';
import { checkSequences } from './sequences.js';
import { checkSlopes, type SlopeRow } from './slopes.js';
import type { CheckOptions, InvariantResult, Observation, Timeline } from './types.js';

export * from './types.js';
export { GroundTruth } from './ground-truth.js';
export { percentiles } from './pairs.js';
export { leastSquaresSlope, formatPerHour, type SlopeRow } from './slopes.js';
export type { FalseVerdict, FalseDeathClass, FalseDeathResult } from './false-deaths.js';
export type { ConvergenceResult, ConvergenceTrigger } from './convergence.js';
export type { DetectionResult } from './detection.js';

export interface CheckReport {
  readonly options: CheckOptions;
  /** One row per invariant, 1 to 6. */
  readonly invariants: readonly InvariantResult[];
  readonly detection: DetectionResult;
  readonly falseDeaths: FalseDeathResult;
  readonly convergence: ConvergenceResult;
  readonly slopes: readonly SlopeRow[];
  readonly sequenceViolationsByRule: Readonly<Record<string, number>>;
  /** Observations dropped as malformed (a non-finite time or incarnation, an unknown kind, an empty name). */
  readonly malformed: number;
}

const KINDS = new Set(['join', 'update', 'suspect', 'alive', 'dead', 'left']);

function wellFormed(o: Observation): boolean {
  return Number.isFinite(o.at) && Number.isFinite(o.incarnation) && KINDS.has(o.kind) && typeof o.observer === 'string' && o.observer !== '' && typeof o.subject === 'string' && o.subject !== '';
}

/** Malformed observations dropped (counted); the rest sorted by time, stably, if they are not already. */
function normalize(timeline: Timeline): { timeline: Timeline; malformed: number } {
  let malformed = 0;
  let sorted = true;
  let previous = -Infinity;
  for (const o of timeline.observations) {
    if (!wellFormed(o)) malformed++;
    else {
      if (o.at < previous) sorted = false;
      previous = o.at;
    }
  }
  if (malformed === 0 && sorted) return { timeline, malformed };
  const observations = timeline.observations.filter(wellFormed);
  if (!sorted) observations.sort((a, b) => a.at - b.at);
  return { timeline: { ...timeline, observations }, malformed };
}

export function checkTimeline(input: Timeline, options: CheckOptions): CheckReport {
  const { timeline, malformed } = normalize(input);
  const truth = new GroundTruth(timeline);
  const pairs = new PairIndex(timeline.observations);
  const detection = checkDetection(timeline, truth, pairs, options.detectionBoundMs);
  const falseDeaths = checkFalseDeaths(timeline, truth, options.graceMs, options.detectionBoundMs);
  const convergence = checkConvergence(timeline, truth, options.convergenceBoundMs);
  const exits = checkExits(timeline);
  const slopes = checkSlopes(timeline, options.slopeBounds);
  const sequences = checkSequences(timeline, truth);
  return {
    options,
    invariants: [detection.invariant, falseDeaths.invariant, convergence.invariant, exits, slopes.invariant, sequences.invariant],
    detection,
    falseDeaths,
    convergence,
    slopes: slopes.rows,
    sequenceViolationsByRule: sequences.byRule,
    malformed,
  };
}

/** The invariants as a Markdown table: checked, violations, the first violation in words. */
export function invariantTable(report: CheckReport): string {
  return table(
    ['#', 'invariant', 'bound', 'checked', 'violations', 'first violation'],
    report.invariants.map((i) => [String(i.id), i.name, i.bound, i.applicable ? String(i.checked) : 'n/a', i.applicable ? String(i.violations) : 'n/a', i.firstViolation ?? '—']),
    ['r', 'l', 'l', 'r', 'r', 'l'],
  );
}
