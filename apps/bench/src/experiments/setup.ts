import { createRng, shuffleInPlace, type SwimConfig } from '@swim/core';
import type { Member } from '@swim/runtime';
import { Simulation, type SimEvent } from '@swim/transport-memory';

export type { SimEvent };

/** How long a fresh cluster may take to converge before the run is abandoned as broken. */
export const CONVERGE_LIMIT_MS = 60_000;
/** Settling time after convergence, so every run measures from the same kind of steady state. */
export const SETTLE_MS = 10_000;

export interface ConvergedCluster {
  readonly sim: Simulation;
  readonly members: readonly Member[];
  readonly names: readonly string[];
  /** Simulated time the cluster converged at (ms since the start). */
  readonly convergedAtMs: number;
}

/**
 * A cluster of `nodes` members (n0 … n(nodes−1), all joining through n0) run until every member
 * sees every other alive, then `settleMs` more: the fixed starting point every run measures from.
 * Throws if the cluster does not converge within `limitMs`.
 */
export function convergedCluster(options: {
  readonly seed: number;
  readonly nodes: number;
  readonly config: SwimConfig;
  readonly limitMs?: number;
  readonly settleMs?: number;
}): ConvergedCluster {
  const sim = new Simulation({ seed: options.seed, config: options.config });
  const members = sim.startCluster(options.nodes);
  const limitMs = options.limitMs ?? CONVERGE_LIMIT_MS;
  if (!runUntilOrLimit(sim, () => sim.converged(), limitMs, 250)) {
    throw new Error(`a cluster of ${options.nodes} did not converge within ${limitMs / 1000} s (seed ${options.seed})`);
  }
  const convergedAtMs = sim.now;
  sim.runFor(options.settleMs ?? SETTLE_MS);
  return { sim, members, names: members.map((m) => m.name), convergedAtMs };
}

/**
 * `k` distinct names drawn uniformly from `names` with a generator seeded from the run's seed and a
 * per-purpose salt (so the choice does not share a stream with the simulation), in cluster order.
 * Any member can be drawn, the seed member n0 included.
 */
export function pickMembers(seed: number, names: readonly string[], k: number, salt: number): string[] {
  if (k > names.length) throw new RangeError(`cannot pick ${k} of ${names.length} members`);
  const rng = createRng(seed * 1_000_003 + salt);
  const order = names.map((_, i) => i);
  shuffleInPlace(rng, order);
  return order
    .slice(0, k)
    .sort((a, b) => a - b)
    .map((i) => names[i]!);
}

/**
 * Run until `predicate` holds, checking every `checkEveryMs` of virtual time, or until `limitMs`
 * has passed; returns whether it held. (`Simulation.runUntil` throws at the limit instead.)
 */
export function runUntilOrLimit(sim: Simulation, predicate: () => boolean, limitMs: number, checkEveryMs: number): boolean {
  const start = sim.now;
  while (!predicate()) {
    const elapsed = sim.now - start;
    if (elapsed >= limitMs) return false;
    sim.runFor(Math.min(checkEveryMs, limitMs - elapsed));
  }
  return true;
}

/** Collects every `dead` event from now until `stop()`. */
export function recordDeaths(sim: Simulation): { readonly deaths: SimEvent[]; stop(): void } {
  const deaths: SimEvent[] = [];
  const stop = sim.onEvent((event) => {
    if (event.kind === 'dead') deaths.push(event);
  });
  return { deaths, stop };
}

/** Wall-clock milliseconds, for timing runs (never used inside the simulation). */
export function wallNow(): number {
  return performance.now();
}

/** The seeds of `runs` runs starting at `seed`: run i uses seed + i. */
export function runSeeds(seed: number, runs: number): number[] {
  return Array.from({ length: runs }, (_, i) => seed + i);
}
