import type { GroundTruth, Span } from './ground-truth.js';
import { percentiles, s } from './pairs.js';
import type { InvariantResult, NemesisAction, Percentiles, Timeline } from './types.js';

/** Kinds after which the cluster must converge again (besides the end of a pause, blackout or partition). */
const START_TRIGGERS = new Set(['restart', 'rejoin', 'rotate-key', 'namespace-restart']);

export interface ConvergenceTrigger {
  readonly at: number;
  readonly what: string;
  /** Until the next pause, blackout or partition started (or the run ended). */
  readonly windowEnd: number;
  /** ms from the trigger until every running member saw every other alive; null: not within the window. */
  readonly latencyMs: number | null;
}

export interface ConvergenceResult {
  readonly invariant: InvariantResult;
  readonly latencyMs: Percentiles;
  readonly triggers: readonly ConvergenceTrigger[];
  /** Triggers while another pause, blackout or partition was in effect: measured from that one's end instead. */
  readonly superseded: number;
  /** Triggers whose window was shorter than the bound and that had not converged by its end: not counted. */
  readonly censored: number;
}

type Step = { at: number; order: number; apply: () => void };

/**
 * Invariant 3: after each heal (the end of a pause, blackout or partition), restart, rejoin or key
 * rotation, every running member (not killed, not left) sees every other running member alive
 * (its last event about it was join, alive or update) within `boundMs`. Measured until the next
 * pause, blackout or partition starts; a trigger while one is in effect is measured from that
 * one's end instead. A new process starts seeing no one (or everyone, when preloaded).
 */
export function checkConvergence(timeline: Timeline, truth: GroundTruth, boundMs: number): ConvergenceResult {
  const names = [...timeline.members];
  const index = new Map(names.map((n, i) => [n, i]));
  const idOf = (name: string): number => {
    let i = index.get(name);
    if (i === undefined) {
      i = names.length;
      names.push(name);
      index.set(name, i);
    }
    return i;
  };
  for (const o of timeline.observations) {
    idOf(o.observer);
    idOf(o.subject);
  }
  const n = names.length;
  const alive = new Uint8Array(n * n);
  const up = new Uint8Array(n);
  for (const name of timeline.members) up[index.get(name)!] = 1;
  let bad = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j && up[i] && up[j] && !alive[i * n + j]) bad++;
  const contribution = (x: number): number => {
    let c = 0;
    for (let y = 0; y < n; y++) if (y !== x && up[y]) c += (alive[x * n + y] ? 0 : 1) + (alive[y * n + x] ? 0 : 1);
    return c;
  };
  const setUp = (x: number, value: boolean) => {
    if (Boolean(up[x]) === value) return;
    if (value) {
      up[x] = 1;
      bad += contribution(x);
    } else {
      bad -= contribution(x);
      up[x] = 0;
    }
  };
  const newLife = (x: number, preloaded: boolean) => {
    const wasUp = Boolean(up[x]);
    setUp(x, false);
    for (let y = 0; y < n; y++) alive[x * n + y] = preloaded && y !== x ? 1 : 0;
    if (wasUp) setUp(x, true);
  };

  // Status changes of the ground truth, applied before observations at the same time.
  const steps: Step[] = [];
  for (const a of truth.actions) {
    for (const name of a.targets) {
      const x = idOf(name);
      if (a.kind === 'kill' || a.kind === 'leave') steps.push({ at: a.start, order: 0, apply: () => setUp(x, false) });
      if (a.kind === 'restart' || a.kind === 'rejoin') {
        steps.push({ at: a.start, order: 0, apply: () => (newLife(x, a.preloaded === true), setUp(x, truth.isRunning(name, a.start) && truth.isMember(name, a.start))) });
      }
      if (a.kind === 'kill' && a.end !== undefined) steps.push({ at: a.end, order: 0, apply: () => (newLife(x, a.preloaded === true), setUp(x, truth.isMember(name, a.end!))) });
    }
  }
  steps.sort((a, b) => a.at - b.at);

  const disruptions = truth.disruptions();
  const triggers = collectTriggers(truth.actions, disruptions);
  const results: ConvergenceTrigger[] = [];
  let superseded = 0;
  const pending: Array<{ at: number; what: string; windowEnd: number }> = [];
  for (const t of triggers) {
    if (t.at > timeline.end) continue;
    if (disruptions.some((d) => d.from <= t.at && t.at < d.to)) {
      superseded++;
      continue;
    }
    const next = disruptions.find((d) => d.from > t.at);
    pending.push({ ...t, windowEnd: Math.min(next?.from ?? Infinity, timeline.end) });
  }
  pending.sort((a, b) => a.at - b.at);
  // At each trigger's bound, what is still not converged: the count and a few pairs, for the report.
  const atBound = new Map<number, string>();
  for (const t of pending) {
    steps.push({
      at: t.at + boundMs,
      order: 1,
      apply: () => {
        if (bad === 0) return;
        const pairs: string[] = [];
        for (let x = 0; x < n && pairs.length < 3; x++) {
          for (let y = 0; y < n && pairs.length < 3; y++) if (x !== y && up[x] && up[y] && !alive[x * n + y]) pairs.push(`${names[x]} did not see ${names[y]} alive`);
        }
        atBound.set(t.at, `${bad} pairs not converged at the bound, e.g. ${pairs.join('; ')}`);
      },
    });
  }
  steps.sort((a, b) => a.at - b.at || a.order - b.order);

  let waiting: typeof pending = [];
  let p = 0;
  const settle = (now: number) => {
    // State is constant from `now` until the next step: admit the triggers up to now, resolve them if converged.
    while (p < pending.length && pending[p]!.at <= now) waiting.push(pending[p++]!);
    const still: typeof pending = [];
    for (const w of waiting) {
      if (now > w.windowEnd) results.push({ ...w, latencyMs: null });
      else if (bad === 0) results.push({ ...w, latencyMs: Math.max(0, now - w.at) });
      else still.push(w);
    }
    waiting = still;
  };
  const obs = timeline.observations;
  let si = 0;
  let oi = 0;
  let now = timeline.start;
  settle(now);
  while (si < steps.length || oi < obs.length) {
    const nextAt = Math.min(si < steps.length ? steps[si]!.at : Infinity, oi < obs.length ? obs[oi]!.at : Infinity);
    if (nextAt > now) {
      // Triggers that fall between now and the next change see the state as it is now.
      while (p < pending.length && pending[p]!.at < nextAt) {
        settle(Math.max(now, pending[p]!.at));
      }
      now = nextAt;
    }
    while (si < steps.length && steps[si]!.at === now) steps[si++]!.apply();
    while (oi < obs.length && obs[oi]!.at === now) {
      const o = obs[oi++]!;
      if (o.observer === o.subject) continue;
      const x = index.get(o.observer)!;
      const y = index.get(o.subject)!;
      const value = o.kind === 'join' || o.kind === 'alive' || o.kind === 'update' ? 1 : 0;
      const cell = x * n + y;
      if (alive[cell] === value) continue;
      alive[cell] = value;
      if (up[x] && up[y]) bad += value ? -1 : 1;
    }
    settle(now);
  }
  while (p < pending.length) waiting.push(pending[p++]!);
  for (const w of waiting) results.push({ ...w, latencyMs: bad === 0 && w.windowEnd >= timeline.end ? Math.max(0, now - w.at) : null });

  results.sort((a, b) => a.at - b.at);
  let violations = 0;
  let censored = 0;
  let first: string | null = null;
  const latencies: number[] = [];
  for (const r of results) {
    if (r.latencyMs !== null) {
      latencies.push(r.latencyMs);
      if (r.latencyMs > boundMs) {
        violations++;
        first ??= `after ${r.what} at ${s(r.at)}: converged only after ${s(r.latencyMs)} (bound ${s(boundMs)}; ${atBound.get(r.at) ?? 'converged at the bound'})`;
      }
    } else if (r.windowEnd - r.at >= boundMs) {
      violations++;
      first ??= `after ${r.what} at ${s(r.at)}: not converged within ${s(boundMs)} (undisturbed until ${s(r.windowEnd)}; ${atBound.get(r.at) ?? 'converged at the bound'})`;
    } else censored++;
  }
  return {
    invariant: {
      id: 3,
      name: 'convergence after heals, restarts, rejoins, rotations',
      bound: `every running member sees every other alive within ${s(boundMs)}`,
      applicable: results.length > 0,
      checked: results.length - censored,
      violations,
      firstViolation: first,
    },
    latencyMs: percentiles(latencies),
    triggers: results,
    superseded,
    censored,
  };
}

function collectTriggers(actions: readonly NemesisAction[], disruptions: readonly Span[]): Array<{ at: number; what: string }> {
  const triggers: Array<{ at: number; what: string }> = [];
  for (const d of disruptions) if (Number.isFinite(d.to)) triggers.push({ at: d.to, what: `${d.action.kind === 'partition' ? 'partition heal' : `end of ${d.action.kind}`} (${d.action.kind} ${d.action.id})` });
  for (const a of actions) {
    if (START_TRIGGERS.has(a.kind)) triggers.push({ at: a.start, what: `${a.kind} of ${a.targets.join(', ')} (${a.id})` });
    else if (a.kind === 'kill' && a.end !== undefined) triggers.push({ at: a.end, what: `restart of ${a.targets.join(', ')} (${a.id})` });
  }
  return triggers;
}
