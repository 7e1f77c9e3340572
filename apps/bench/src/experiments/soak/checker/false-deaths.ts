import type { GroundTruth } from './ground-truth.js';
import { percentiles, s } from './pairs.js';
import type { InvariantResult, Observation, Percentiles, Timeline } from './types.js';

/** A death verdict about a member that was running, a member, not paused and reachable from the declarer. */
export interface FalseVerdict {
  readonly at: number;
  readonly declarer: string;
  readonly subject: string;
  readonly incarnation: number;
  /** Other members that took this verdict (dead at this incarnation, declared by this declarer). */
  readonly reached: number;
  /** The most recent fault involving the pair: `after partition heal`, `after pause (subject)`, …, or `none`. */
  readonly cause: string;
  /** Time from that fault's end to the verdict, ms (NaN for `none`). */
  readonly sinceFaultMs: number;
}

export interface FalseDeathClass {
  readonly cause: string;
  readonly count: number;
  readonly sinceFaultMs: Percentiles;
  readonly reached: Percentiles;
}

export interface FalseDeathResult {
  readonly invariant: InvariantResult;
  /** Every death verdict (a dead observation by its own declarer). */
  readonly verdicts: number;
  /** Verdicts about a member killed within the detection bound before: possibly about its previous process, not counted as false. */
  readonly previousLife: number;
  readonly falseVerdicts: readonly FalseVerdict[];
  readonly byCause: readonly FalseDeathClass[];
}

function describeCause(fault: ReturnType<GroundTruth['lastFaultOfPair']>): string {
  if (fault === undefined) return 'none';
  return fault.kind === 'partition' ? 'after partition heal' : `after ${fault.kind} (${fault.who})`;
}

/**
 * Invariant 2: no false death. A verdict at v by d about s is false when, throughout
 * [v − graceMs, v], s ran, was a member and not paused, d was not paused, and no blackout or
 * partition separated them: the verdict came outside any fault affecting the pair. Verdicts about
 * a member killed within `previousLifeMs` (the detection bound) before the verdict are set apart:
 * they may be about the process that died, not the one running.
 */
export function checkFalseDeaths(timeline: Timeline, truth: GroundTruth, graceMs: number, previousLifeMs: number): FalseDeathResult {
  const verdicts: Observation[] = [];
  for (const o of timeline.observations) if (o.kind === 'dead' && o.verdictBy === o.observer && o.observer !== o.subject) verdicts.push(o);
  const found: Array<Omit<FalseVerdict, 'reached'> & { key: string }> = [];
  let previousLife = 0;
  for (const v of verdicts) {
    const d = v.observer;
    const subject = v.subject;
    const from = v.at - graceMs;
    const healthy =
      truth.runningThroughout(subject, from, v.at) &&
      truth.memberThroughout(subject, from, v.at) &&
      !truth.pausedDuring(subject, from, v.at) &&
      !truth.pausedDuring(d, from, v.at) &&
      truth.reachableThroughout(d, subject, from, v.at);
    if (!healthy) continue;
    if (truth.downSpans(subject).some((span) => span.from <= v.at && span.from >= v.at - previousLifeMs)) {
      previousLife++;
      continue;
    }
    const fault = truth.lastFaultOfPair(d, subject, v.at);
    found.push({
      at: v.at,
      declarer: d,
      subject,
      incarnation: v.incarnation,
      cause: describeCause(fault),
      sinceFaultMs: fault === undefined ? Number.NaN : v.at - fault.at,
      key: reachKey(subject, v.incarnation, d),
    });
  }
  // How far each false verdict spread: distinct observers holding it dead at that incarnation by that declarer.
  const keys = new Set(found.map((f) => f.key));
  const reach = new Map<string, Set<string>>();
  for (const o of timeline.observations) {
    if (o.kind !== 'dead' || o.verdictBy === undefined || o.verdictBy === o.observer) continue;
    const key = reachKey(o.subject, o.incarnation, o.verdictBy);
    if (!keys.has(key)) continue;
    let set = reach.get(key);
    if (set === undefined) reach.set(key, (set = new Set()));
    set.add(o.observer);
  }
  const falseVerdicts: FalseVerdict[] = found.map(({ key, ...f }) => ({ ...f, reached: reach.get(key)?.size ?? 0 }));
  const causes = [...new Set(falseVerdicts.map((f) => f.cause))].sort();
  const byCause = causes.map((cause) => {
    const of = falseVerdicts.filter((f) => f.cause === cause);
    return { cause, count: of.length, sinceFaultMs: percentiles(of.map((f) => f.sinceFaultMs).filter(Number.isFinite)), reached: percentiles(of.map((f) => f.reached)) };
  });
  const f0 = falseVerdicts[0];
  return {
    invariant: {
      id: 2,
      name: 'no false death verdict',
      bound: `pair healthy throughout [verdict − ${graceMs} ms, verdict] (grace: probeTimeoutMs)`,
      applicable: true,
      checked: verdicts.length,
      violations: falseVerdicts.length,
      firstViolation:
        f0 === undefined
          ? null
          : `${f0.declarer} declared ${f0.subject} dead (incarnation ${f0.incarnation}) at ${s(f0.at)}, ${f0.cause}${Number.isFinite(f0.sinceFaultMs) ? ` ${s(f0.sinceFaultMs)} before` : ''}; ${f0.subject} was running and reachable; the verdict reached ${f0.reached} other members`,
    },
    verdicts: verdicts.length,
    previousLife,
    falseVerdicts,
    byCause,
  };
}

function reachKey(subject: string, incarnation: number, declarer: string): string {
  return `${subject}\u0000${incarnation}\u0000${declarer}`;
}
