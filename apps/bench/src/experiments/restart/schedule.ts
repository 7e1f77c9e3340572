import { createRng, randomFloat, shuffleInPlace, type Rng } from '@swim/core';

/** The two restart scenarios of the bench. */
export type Scenario = 'rolling' | 'wave';
export const SCENARIOS: readonly Scenario[] = ['rolling', 'wave'];

/** One member's restart: crashed (kill -9) at `crashAtMs`, started again at `restartAtMs`, both from the start of the scenario. */
export interface PlannedRestart {
  readonly member: number;
  readonly crashAtMs: number;
  readonly restartAtMs: number;
}

/** How the scenarios spread restarts and downtimes. */
export interface ScheduleParams {
  /** Wave: every member crashes once, at a uniform time within this long. */
  readonly waveSpreadMs: number;
  /** Wave: downtimes are log-uniform in [min, max]: as many of a second as of well past the suspicion timeout. */
  readonly waveDownMs: readonly [min: number, max: number];
  /** Rolling: downtimes, log-uniform in [min, max]. */
  readonly rollingDownMs: readonly [min: number, max: number];
  /** Rolling: the next member is stopped this long after the previous one started again. */
  readonly rollingGapMs: number;
}

export const SCHEDULE_DEFAULTS: ScheduleParams = {
  waveSpreadMs: 30_000,
  waveDownMs: [1_000, 40_000],
  rollingDownMs: [1_000, 20_000],
  rollingGapMs: 1_000,
};

/**
 * Every member restarted once, in an order and with downtimes drawn from `seed` (its own stream,
 * not the simulation's), sorted by crash time.
 * - `rolling`: one member at a time, in a random order: stopped, started again after its downtime,
 *   the next one stopped `rollingGapMs` later.
 * - `wave`: the whole cluster within `waveSpreadMs`, each member down for its own downtime, so
 *   many are down at once and some come back before others go down.
 */
export function planRestarts(scenario: Scenario, nodes: number, seed: number, params: ScheduleParams): PlannedRestart[] {
  const rng = createRng((Math.imul(seed, 0x9e3779b1) ^ (scenario === 'wave' ? 0x5eed17 : 0x5eed29)) >>> 0);
  const order = Array.from({ length: nodes }, (_, i) => i);
  shuffleInPlace(rng, order);
  const plan: PlannedRestart[] = [];
  if (scenario === 'rolling') {
    let at = 0;
    for (const member of order) {
      const down = logUniform(rng, params.rollingDownMs);
      plan.push({ member, crashAtMs: at, restartAtMs: at + down });
      at += down + params.rollingGapMs;
    }
    return plan;
  }
  for (const member of order) {
    const crashAtMs = Math.floor(randomFloat(rng) * params.waveSpreadMs);
    plan.push({ member, crashAtMs, restartAtMs: crashAtMs + logUniform(rng, params.waveDownMs) });
  }
  return plan.sort((a, b) => a.crashAtMs - b.crashAtMs || a.member - b.member);
}

/** A whole number of ms, log-uniform in [min, max]. */
function logUniform(rng: Rng, [min, max]: readonly [number, number]): number {
  return Math.round(min * (max / min) ** randomFloat(rng));
}
