import { createRng, randomFloat, shuffleInPlace, type Rng } from '@swim/core';

/** The two restart scenarios of the bench. */
export type Scenario = 'rolling' | 'wave' | 'wave-long';
export const SCENARIOS: readonly Scenario[] = ['rolling', 'wave', 'wave-long'];

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
  /** Wave-long (the report): every member crashes within this long... */
  readonly longWaveSpreadMs: number;
  /** ...and is down for a uniform time in [min, max], mostly past the suspicion timeout. */
  readonly longWaveDownMs: readonly [min: number, max: number];
  /** Rolling: downtimes, log-uniform in [min, max]. */
  readonly rollingDownMs: readonly [min: number, max: number];
  /** Rolling: the next member is stopped this long after the previous one started again. */
  readonly rollingGapMs: number;
}

export const SCHEDULE_DEFAULTS: ScheduleParams = {
  waveSpreadMs: 30_000,
  waveDownMs: [1_000, 40_000],
  longWaveSpreadMs: 25_000,
  longWaveDownMs: [10_000, 30_000],
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
 * - `wave-long`: as `wave`, with the downtimes of the report: uniform, mostly longer than
 *   the suspicion timeout, so most members are declared dead while down.
 */
export function planRestarts(scenario: Scenario, nodes: number, seed: number, params: ScheduleParams): PlannedRestart[] {
  const salt = scenario === 'wave' ? 0x5eed17 : scenario === 'wave-long' ? 0x5eed23 : 0x5eed29;
  const rng = createRng((Math.imul(seed, 0x9e3779b1) ^ salt) >>> 0);
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
  const long = scenario === 'wave-long';
  for (const member of order) {
    const crashAtMs = Math.floor(randomFloat(rng) * (long ? params.longWaveSpreadMs : params.waveSpreadMs));
    const down = long ? uniform(rng, params.longWaveDownMs) : logUniform(rng, params.waveDownMs);
    plan.push({ member, crashAtMs, restartAtMs: crashAtMs + down });
  }
  return plan.sort((a, b) => a.crashAtMs - b.crashAtMs || a.member - b.member);
}

/** A whole number of ms, log-uniform in [min, max]. */
function logUniform(rng: Rng, [min, max]: readonly [number, number]): number {
  return Math.round(min * (max / min) ** randomFloat(rng));
}

/** A whole number of ms, uniform in [min, max]. */
function uniform(rng: Rng, [min, max]: readonly [number, number]): number {
  return Math.round(min + (max - min) * randomFloat(rng));
}
