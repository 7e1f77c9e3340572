import type { GroundTruth } from './ground-truth.js';
import { s } from './pairs.js';
import type { InvariantResult, Observation, ObservationKind, Timeline } from './types.js';

interface PairState {
  /** The observer's life (index into its restarts) this state belongs to. */
  life: number;
  last: ObservationKind | undefined;
  incarnation: number;
  /** Dead since the last join or alive. */
  dead: boolean;
}

/**
 * Invariant 6: each observer's events about each subject form a valid sequence, per life of the
 * observer (a new process starts over): the first is a join (unless the process started
 * preloaded); no dead twice without a join or alive between; the incarnation never decreases
 * except after a dead or left (the subject's new life, memberlist aliveNode on a dead member).
 */
export function checkSequences(timeline: Timeline, truth: GroundTruth): { invariant: InvariantResult; byRule: Record<string, number> } {
  const states = new Map<string, PairState>();
  const lifeCursor = new Map<string, number>();
  const byRule: Record<string, number> = { 'first event not a join': 0, 'dead twice': 0, 'incarnation decreased': 0 };
  let violations = 0;
  let first: string | null = null;
  const lifeOf = (observer: string, at: number): { life: number; preloaded: boolean } => {
    const lives = truth.lives(observer);
    let i = lifeCursor.get(observer) ?? 0;
    while (i < lives.length && lives[i]!.at <= at) i++;
    lifeCursor.set(observer, i);
    return { life: i, preloaded: i > 0 && lives[i - 1]!.preloaded };
  };
  const fail = (rule: string, o: Observation, text: string) => {
    byRule[rule]!++;
    violations++;
    first ??= `${o.observer} about ${o.subject} at ${s(o.at)}: ${text}`;
  };
  let checked = 0;
  for (const o of timeline.observations) {
    if (o.observer === o.subject) continue;
    checked++;
    const { life, preloaded } = lifeOf(o.observer, o.at);
    const key = `${o.observer}\u0000${o.subject}`;
    let state = states.get(key);
    if (state === undefined || state.life !== life) {
      state = { life, last: undefined, incarnation: -Infinity, dead: false };
      states.set(key, state);
      if (o.kind !== 'join' && !preloaded) fail('first event not a join', o, `first event is ${o.kind} (incarnation ${o.incarnation}), not a join`);
    } else {
      if (o.kind === 'dead' && state.dead) fail('dead twice', o, `dead again (incarnation ${o.incarnation}) without a join or alive since the last dead`);
      const afterDown = state.last === 'dead' || state.last === 'left';
      if (!afterDown && o.incarnation < state.incarnation) fail('incarnation decreased', o, `${o.kind} at incarnation ${o.incarnation} after ${state.last} at ${state.incarnation}`);
    }
    if (o.kind === 'dead') state.dead = true;
    else if (o.kind === 'join' || o.kind === 'alive') state.dead = false;
    state.last = o.kind;
    state.incarnation = o.incarnation;
  }
  return {
    invariant: {
      id: 6,
      name: 'event sequences valid per (observer, subject)',
      bound: 'first a join; no dead twice without join/alive between; incarnation never decreases except after dead/left',
      applicable: true,
      checked,
      violations,
      firstViolation: first,
    },
    byRule,
  };
}
