/**
 * The soak's invariants over the normalized timeline (pure):
 * 1 a killed agent (down past the bound) is seen dead or left by every agent under no fault within failureDetectionBoundMs;
 * 2 no false death verdicts: a verdict of an agent's own suspicion about a member when neither was under a fault;
 * 3 convergence after each heal, restart and rotation within a bound (see convergence.ts);
 * 4 no unexpected exits and no contained exceptions;
 * 5 resource slopes over the last 3/4 of the run;
 * 6 valid event sequences in each monitor stream.
 */
import type { ContainedError, ConvergenceResult, NemesisAction, Observation, ResourceSample } from './timeline.js';
import type { UnexpectedExit } from './fleet.js';

export interface Detection {
  readonly actionId: number;
  readonly subject: string;
  readonly observer: string;
  readonly latencyMs: number | undefined;
  /** The kill lasted past the bound: a detection was owed. */
  readonly required: boolean;
}

export interface FalseDeath {
  readonly at: number;
  readonly observer: string;
  readonly subject: string;
  readonly incarnation: number;
}

export interface Slope {
  readonly agent: string;
  readonly pid: number;
  readonly samples: number;
  readonly rssBytesPerHour: number;
  readonly heapBytesPerHour: number | undefined;
  readonly fdsPerHour: number;
  readonly socketsPerHour: number;
  readonly lastRssBytes: number;
  readonly lastFds: number;
}

export interface SequenceProblem {
  readonly at: number;
  readonly observer: string;
  readonly subject: string;
  readonly problem: string;
}

/** Slope limits past which a resource counts as growing (heuristic; the 10-minute run is noisy). */
export const SLOPE_LIMITS = { rssBytesPerHour: 64 * 1024 * 1024, fdsPerHour: 30, socketsPerHour: 30 };

/** Names under a fault of these kinds at `at` (from start to end + grace). */
function affectedAt(actions: readonly NemesisAction[], at: number, graceMs: number, runEnd: number): Set<string> {
  const names = new Set<string>();
  for (const a of actions) {
    if (a.targets.length === 0) continue;
    if (a.start <= at && at <= (a.end ?? runEnd) + graceMs) for (const t of a.targets) names.add(t);
  }
  return names;
}

export function detections(actions: readonly NemesisAction[], observations: readonly Observation[], agents: readonly string[], boundMs: number, runEnd: number): Detection[] {
  const out: Detection[] = [];
  for (const kill of actions.filter((a) => a.kind === 'kill')) {
    const subject = kill.targets[0]!;
    const downMs = (kill.end ?? runEnd) - kill.start;
    const required = downMs > boundMs;
    // Observers under no fault over the whole detection window.
    const busy = new Set<string>();
    for (const a of actions) if (a.start <= kill.start + boundMs && (a.end ?? runEnd) >= kill.start) for (const t of a.targets) busy.add(t);
    for (const observer of agents) {
      if (observer === subject || busy.has(observer)) continue;
      const seen = observations.find((o) => o.observer === observer && o.subject === subject && (o.kind === 'dead' || o.kind === 'left') && o.at >= kill.start && o.at <= (kill.end ?? runEnd));
      out.push({ actionId: kill.id, subject, observer, latencyMs: seen === undefined ? undefined : seen.at - kill.start, required });
    }
  }
  return out;
}

export function falseDeaths(actions: readonly NemesisAction[], observations: readonly Observation[], graceMs: number, runEnd: number): FalseDeath[] {
  const out: FalseDeath[] = [];
  for (const o of observations) {
    if (o.kind !== 'dead' || o.verdictBy !== o.observer) continue;
    const affected = affectedAt(actions, o.at, graceMs, runEnd);
    if (affected.has(o.subject) || affected.has(o.observer)) continue;
    out.push({ at: o.at, observer: o.observer, subject: o.subject, incarnation: o.incarnation });
  }
  return out;
}

export function convergenceFailures(results: readonly ConvergenceResult[]): ConvergenceResult[] {
  return results.filter((r) => !r.censored && r.ms === undefined);
}

/** Least-squares slope of y over x. */
function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Per agent: its longest-lived process's samples over the last 3/4 of the run, as slopes per hour. */
export function resourceSlopes(samples: readonly ResourceSample[], runStart: number, runEnd: number): Slope[] {
  const from = runStart + (runEnd - runStart) / 4;
  const byPid = new Map<string, ResourceSample[]>();
  for (const s of samples) {
    if (s.at < from) continue;
    const key = `${s.agent}\u0000${s.pid}`;
    const list = byPid.get(key) ?? [];
    list.push(s);
    byPid.set(key, list);
  }
  const best = new Map<string, ResourceSample[]>();
  for (const list of byPid.values()) {
    const agent = list[0]!.agent;
    if ((best.get(agent)?.length ?? 0) < list.length) best.set(agent, list);
  }
  const hour = 3_600_000;
  return [...best.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([agent, list]) => {
      const heap = list.filter((s) => s.heapUsedBytes !== undefined);
      const last = list[list.length - 1]!;
      return {
        agent,
        pid: list[0]!.pid,
        samples: list.length,
        rssBytesPerHour: slope(list.map((s) => [s.at, s.rssBytes])) * hour,
        heapBytesPerHour: heap.length >= 2 ? slope(heap.map((s) => [s.at, s.heapUsedBytes!])) * hour : undefined,
        fdsPerHour: slope(list.map((s) => [s.at, s.fds])) * hour,
        socketsPerHour: slope(list.map((s) => [s.at, s.sockets])) * hour,
        lastRssBytes: last.rssBytes,
        lastFds: last.fds,
      };
    });
}

export function growing(slopes: readonly Slope[], minSamples: number): Slope[] {
  return slopes.filter(
    (s) => s.samples >= minSamples && (s.rssBytesPerHour > SLOPE_LIMITS.rssBytesPerHour || s.fdsPerHour > SLOPE_LIMITS.fdsPerHour || s.socketsPerHour > SLOPE_LIMITS.socketsPerHour),
  );
}

/**
 * Event sequences each stream must follow, per subject: `alive` (refuted) only after `suspect`;
 * nothing but `join` after `dead` or `left`; no `join` of a member held alive; the incarnation
 * never goes down except at a `join`. A stream's first event about a subject may be anything (the
 * stream opened after the agent started).
 */
export function sequenceProblems(observations: readonly Observation[]): SequenceProblem[] {
  const state = new Map<string, { kind: string; incarnation: number }>();
  const out: SequenceProblem[] = [];
  for (const o of observations) {
    const key = `${o.observer}\u0000${o.epoch}\u0000${o.subject}`;
    const prev = state.get(key);
    state.set(key, { kind: o.kind, incarnation: o.incarnation });
    if (prev === undefined) continue;
    const down = prev.kind === 'dead' || prev.kind === 'left';
    let problem: string | undefined;
    if (down && o.kind !== 'join' && !(o.kind === 'left' && prev.kind === 'dead') && !(o.kind === 'dead' && prev.kind === 'left')) problem = `${o.kind} after ${prev.kind} without a join`;
    else if (!down && o.kind === 'join') problem = `join of a member held ${prev.kind}`;
    else if (o.kind === 'alive' && prev.kind !== 'suspect') problem = `alive (refuted) after ${prev.kind}, not suspect`;
    else if (o.kind !== 'join' && o.incarnation < prev.incarnation) problem = `incarnation went down ${prev.incarnation} -> ${o.incarnation} on ${o.kind}`;
    if (problem !== undefined) out.push({ at: o.at, observer: o.observer, subject: o.subject, problem });
  }
  return out;
}

export interface Verdict {
  readonly detections: Detection[];
  readonly missedDetections: Detection[];
  readonly falseDeaths: FalseDeath[];
  readonly convergenceFailures: ConvergenceResult[];
  readonly unexpectedExits: readonly UnexpectedExit[];
  readonly containedErrors: readonly ContainedError[];
  readonly slopes: Slope[];
  readonly growing: Slope[];
  readonly sequenceProblems: SequenceProblem[];
  readonly held: Record<string, boolean>;
}

export function check(input: {
  readonly actions: readonly NemesisAction[];
  readonly observations: readonly Observation[];
  readonly agents: readonly string[];
  readonly boundMs: number;
  readonly runEnd: number;
  readonly convergence: readonly ConvergenceResult[];
  readonly unexpectedExits: readonly UnexpectedExit[];
  readonly containedErrors: readonly ContainedError[];
  readonly promContainedErrors: number;
  readonly samples: readonly ResourceSample[];
  readonly slopeFrom: number;
}): Verdict {
  const all = detections(input.actions, input.observations, input.agents, input.boundMs, input.runEnd);
  const missed = all.filter((d) => d.required && (d.latencyMs === undefined || d.latencyMs > input.boundMs));
  const fd = falseDeaths(input.actions, input.observations, input.boundMs, input.runEnd);
  const conv = convergenceFailures(input.convergence);
  const slopes = resourceSlopes(input.samples, input.slopeFrom, input.runEnd);
  const grow = growing(slopes, 6);
  const seq = sequenceProblems(input.observations);
  return {
    detections: all,
    missedDetections: missed,
    falseDeaths: fd,
    convergenceFailures: conv,
    unexpectedExits: input.unexpectedExits,
    containedErrors: input.containedErrors,
    slopes,
    growing: grow,
    sequenceProblems: seq,
    held: {
      '1 killed agents seen dead within the bound': missed.length === 0,
      '2 no false death verdicts': fd.length === 0,
      '3 convergence after each heal, restart, rotation': conv.length === 0,
      '4 no unexpected exits, no contained exceptions': input.unexpectedExits.length === 0 && input.containedErrors.length === 0 && input.promContainedErrors === 0,
      '5 resource slopes within limits': grow.length === 0,
      '6 valid event sequences': seq.length === 0,
    },
  };
}
