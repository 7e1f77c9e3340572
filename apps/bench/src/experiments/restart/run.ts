import { createRng, randomInt, type SwimConfig } from '@swim/core';
import type { MemberSnapshot } from '@swim/runtime';
import { Simulation } from '@swim/transport-memory';
import { runUntilQuiet, QUIET_LIMIT_MS, wallNow } from '../setup.js';
import { planRestarts, type PlannedRestart, type Scenario, type ScheduleParams } from './schedule.js';
import { StalePairs } from './stale-pairs.js';

/** Members a restarted member joins through. */
export const JOIN_SEEDS = 3;
/** A restarted member whose join found no seed answering tries again this often (Serf retry-join, shortened). */
export const JOIN_RETRY_MS = 1_000;
/** Quiet time of the formed cluster before the first crash. */
export const SETTLE_MS = 10_000;

/** One run's inputs. */
export interface RestartRunInput {
  readonly scenario: Scenario;
  readonly nodes: number;
  readonly seed: number;
  readonly config: SwimConfig;
  readonly schedule: ScheduleParams;
  /** Give up on convergence this long after the last restart. */
  readonly limitMs: number;
  /** Restart each member from the snapshot it had when it crashed (`member.snapshot()`, `MemberOptions.restore`). */
  readonly snapshot: boolean;
  /** Called with the simulation once it is formed (for looking into a run). */
  readonly onStart?: (sim: Simulation) => void;
  /** Called each 5 s after the last restart while not converged (for looking into a slow run). */
  readonly inspect?: (sim: Simulation, sinceLastRestartMs: number) => void;
}

/** What one run measured. Times in ms. */
export interface RestartRunResult {
  readonly seed: number;
  /** From the first crash to the last restart. */
  readonly spanMs: number;
  /** The longest downtime of the run. */
  readonly downMsMax: number;
  /** From the last restart until every running member sees every other alive; null: not within `limitMs`. */
  readonly convergedAfterMs: number | null;
  /** Sum over ordered pairs of running members of the time one held the other dead or left (or had reaped it so), from the first crash to the end. */
  readonly stalePairSeconds: number;
  /** The longest time one running member held another running member dead or left. */
  readonly longestStaleMs: number;
  /** That pair: observer, subject, and when it began (ms after the first crash). */
  readonly longestStalePair: { readonly observer: string; readonly subject: string; readonly fromMs: number } | null;
  /** Most running members held dead or left (by some running member) at or above their own incarnation at once, sampled each second. */
  readonly heldDownPeak: number;
  /** The same at the last restart and at the end of the run. */
  readonly heldDownAtLastRestart: number;
  readonly heldDownAtEnd: number;
  /** Refutations by every process, old and new, during the run. */
  readonly refutations: number;
  /** Join attempts that found no seed answering and were retried. */
  readonly joinRetries: number;
  /** Wall-clock time of the run, ms. */
  readonly wallMs: number;
}

/**
 * One restart run: a pre-formed cluster of `nodes` (Simulation.formCluster) settles, then every
 * member is crashed and restarted once as `planRestarts` says. A restarted member is a fresh
 * process (Simulation.restart: incarnation 1, empty table) joining through {@link JOIN_SEEDS}
 * running members: in the wave the ones that restarted last (the case: seeds that never
 * heard of its death), in a rolling restart random ones. Then the run goes on until every running
 * member sees every other alive, or `limitMs` after the last restart.
 */
export function runRestart(input: RestartRunInput): RestartRunResult {
  const wallStart = wallNow();
  const { nodes, seed } = input;
  const sim = new Simulation({ seed, config: input.config });
  const members = sim.formCluster(nodes);
  const names = members.map((m) => m.name);
  const indexOf = new Map(names.map((name, i) => [name, i]));
  if (!runUntilQuiet(sim, nodes, QUIET_LIMIT_MS)) throw new Error(`restart: a pre-formed cluster of ${nodes} was not quiet (seed ${seed})`);
  sim.runFor(SETTLE_MS);
  input.onStart?.(sim);

  const stale = new StalePairs(nodes);
  sim.onEvent((event) => {
    const o = indexOf.get(event.observer);
    const s = indexOf.get(event.subject);
    if (o !== undefined && s !== undefined) stale.onEvent(o, s, event);
  });
  const running = names.map(() => true);
  const restartedOrder: number[] = [];
  let refutations = 0;
  let joinRetries = 0;
  const plan = planRestarts(input.scenario, nodes, seed, input.schedule);
  const start = sim.now;
  const seedRng = seedPicker(seed);

  const snapshots = new Map<number, MemberSnapshot>();
  const crash = (step: PlannedRestart) => {
    const old = sim.member(names[step.member]!);
    refutations += old.counters.refutations;
    if (input.snapshot) snapshots.set(step.member, old.snapshot());
    sim.crash(names[step.member]!);
    running[step.member] = false;
    stale.crashed(step.member, sim.now);
  };
  const restart = (step: PlannedRestart) => {
    const name = names[step.member]!;
    const seeds = input.scenario !== 'rolling' ? latestRunning(restartedOrder, running, step.member) : [];
    for (const candidate of seedRng(nodes, running, step.member, JOIN_SEEDS - seeds.length, seeds)) seeds.push(candidate);
    const restore = snapshots.get(step.member);
    const member = sim.restart(name, restore === undefined ? {} : { restore });
    running[step.member] = true;
    restartedOrder.push(step.member);
    stale.restarted(step.member, sim.now);
    member
      .join(
        seeds.map((i) => sim.addressOf(names[i]!)),
        { retry: { intervalMs: JOIN_RETRY_MS, max: 0, onRetry: () => joinRetries++ } },
      )
      .catch(() => undefined);
  };
  for (const step of plan) {
    sim.clock.schedule(start + step.crashAtMs, () => crash(step));
    sim.clock.schedule(start + step.restartAtMs, () => restart(step));
  }
  const lastRestartMs = Math.max(...plan.map((p) => p.restartAtMs));
  const incarnationOf = (i: number) => sim.member(names[i]!).incarnation;
  const heldAt = (o: number, s: number) => {
    const view = sim.member(names[o]!).member(names[s]!);
    return view !== undefined && (view.state === 'dead' || view.state === 'left') ? view.incarnation : undefined;
  };
  let heldDownPeak = 0;
  // Until the last restart, a second at a time, sampling the members held down.
  while (sim.now < start + lastRestartMs) {
    sim.runFor(Math.min(1_000, start + lastRestartMs - sim.now));
    heldDownPeak = Math.max(heldDownPeak, stale.heldDownAtOrAbove(incarnationOf, heldAt));
  }
  const heldDownAtLastRestart = stale.heldDownAtOrAbove(incarnationOf, heldAt);
  const lastAt = sim.now;
  let convergedAfterMs: number | null = null;
  let nextSample = sim.now + 1_000;
  while (sim.now - lastAt < input.limitMs) {
    if (sim.converged()) {
      convergedAfterMs = sim.now - lastAt;
      break;
    }
    sim.runFor(100);
    if (input.inspect !== undefined && (sim.now - lastAt) % 5_000 === 0) input.inspect(sim, sim.now - lastAt);
    if (sim.now >= nextSample) {
      heldDownPeak = Math.max(heldDownPeak, stale.heldDownAtOrAbove(incarnationOf, heldAt));
      nextSample += 1_000;
    }
  }
  for (const member of sim.liveMembers()) refutations += member.counters.refutations;
  const longestPair = stale.longestPair(sim.now);
  return {
    seed,
    spanMs: lastRestartMs,
    downMsMax: Math.max(...plan.map((p) => p.restartAtMs - p.crashAtMs)),
    convergedAfterMs,
    stalePairSeconds: stale.pairMs(sim.now) / 1000,
    longestStaleMs: stale.longestMs(sim.now),
    longestStalePair: longestPair === undefined ? null : { observer: names[longestPair[0]]!, subject: names[longestPair[1]]!, fromMs: longestPair[2] - start },
    heldDownPeak,
    heldDownAtLastRestart,
    heldDownAtEnd: stale.heldDownAtOrAbove(incarnationOf, heldAt),
    refutations,
    joinRetries,
    wallMs: wallNow() - wallStart,
  };
}

/** The running members that restarted last, newest first, at most {@link JOIN_SEEDS}. */
function latestRunning(order: readonly number[], running: readonly boolean[], self: number): number[] {
  const seeds: number[] = [];
  for (let i = order.length - 1; i >= 0 && seeds.length < JOIN_SEEDS; i--) {
    const m = order[i]!;
    if (m !== self && running[m] && !seeds.includes(m)) seeds.push(m);
  }
  return seeds;
}

/**
 * Random seeds for a restarted member, from the run's own stream: running members first; when
 * fewer run than needed, any others (the join retries until one is back).
 */
function seedPicker(seed: number): (nodes: number, running: readonly boolean[], self: number, k: number, taken: readonly number[]) => number[] {
  // The bench's own stream, apart from the simulation's randomness.
  const rng = createRng((Math.imul(seed, 0x85ebca6b) ^ 0xc2b2ae35) >>> 0);
  return (nodes, running, self, k, taken) => {
    const picked: number[] = [];
    if (k <= 0) return picked;
    const up: number[] = [];
    const down: number[] = [];
    for (let i = 0; i < nodes; i++) {
      if (i === self || taken.includes(i)) continue;
      (running[i] ? up : down).push(i);
    }
    for (const pool of [up, down]) {
      while (picked.length < k && pool.length > 0) {
        const j = randomInt(rng, pool.length);
        picked.push(pool[j]!);
        pool[j] = pool[pool.length - 1]!;
        pool.pop();
      }
    }
    return picked;
  };
}
