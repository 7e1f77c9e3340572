import { createRng, shuffleInPlace, type SwimConfig } from '@swim/core';
import type { Member } from '@swim/runtime';
import { Simulation, type SimEvent } from '@swim/transport-memory';
import { cpuMsSince, heldBytesAfterGc } from './join-storm.js';

export type { SimEvent };

/** How long a fresh cluster may take to converge before the run is abandoned as broken. */
export const CONVERGE_LIMIT_MS = 60_000;
/** Settling time after convergence, so every run measures from the same kind of steady state. */
export const SETTLE_MS = 10_000;

/**
 * How a cluster comes to be: `joins`, every member joining n0 over the first second (every
 * experiment's default); or `pre-formed` (Simulation.formCluster), every member preloading every
 * other alive: converged at once and quiet once each member's own first alive is out, without
 * the n² gossip of joins (one storm through one seed took 270 s of wall time at 2,000 members).
 */
export type Formation = 'joins' | 'pre-formed';

/** A quiet member sends a ping and answers one per probe interval (1 s): two packets a second, plus this margin. */
export const QUIET_PACKETS_PER_MEMBER_SECOND = 2.1;
/** A pre-formed cluster waits at most this long to be quiet before the run is abandoned as broken. */
export const QUIET_LIMIT_MS = 300_000;

export interface ConvergedCluster {
  readonly sim: Simulation;
  readonly members: readonly Member[];
  readonly names: readonly string[];
  /** Simulated time the cluster converged at (ms since the start). */
  readonly convergedAtMs: number;
  /** Pre-formed only: what forming it cost. */
  readonly formationCost?: FormationCost;
}

/** What forming a pre-formed cluster cost, from its start to the end of settling, and what it weighs then. */
export interface FormationCost {
  /** Simulated ms until every member saw every other alive, and until the cluster was quiet. */
  readonly convergedAtMs: number;
  readonly quietAtMs: number;
  readonly wallMs: number;
  /** CPU time of the process meanwhile (user + system; GC threads included), ms. */
  readonly cpuMs: number;
  readonly rssBytes: number;
  /** Heap plus ArrayBuffer bytes after a full collection (heldBytesAfterGc), the formed cluster live (every member holds an entry for every member). */
  readonly heapBytes: number;
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
  /** Default `joins`. A pre-formed cluster settles from the time it is quiet (see {@link Formation}). */
  readonly formation?: Formation;
}): ConvergedCluster {
  const wallStart = wallNow();
  const cpuStart = process.cpuUsage();
  const sim = new Simulation({ seed: options.seed, config: options.config });
  const preFormed = options.formation === 'pre-formed';
  const members = preFormed ? sim.formCluster(options.nodes) : sim.startCluster(options.nodes);
  const limitMs = options.limitMs ?? CONVERGE_LIMIT_MS;
  if (!runUntilOrLimit(sim, () => sim.converged(), limitMs, preFormed ? 10 : 250)) {
    throw new Error(`a cluster of ${options.nodes} did not converge within ${limitMs / 1000} s (seed ${options.seed})`);
  }
  const convergedAtMs = sim.now;
  if (preFormed && !runUntilQuiet(sim, options.nodes, QUIET_LIMIT_MS)) {
    throw new Error(`a pre-formed cluster of ${options.nodes} was not quiet within ${QUIET_LIMIT_MS / 1000} s (seed ${options.seed})`);
  }
  const quietAtMs = sim.now;
  sim.runFor(options.settleMs ?? SETTLE_MS);
  const cluster = { sim, members, names: members.map((m) => m.name), convergedAtMs };
  if (!preFormed) return cluster;
  const wallMs = wallNow() - wallStart;
  const cpuMs = cpuMsSince(cpuStart);
  const rssBytes = process.memoryUsage().rss;
  const formationCost = { convergedAtMs, quietAtMs, wallMs, cpuMs, rssBytes, heapBytes: heldBytesAfterGc() };
  return { ...cluster, formationCost };
}

/**
 * Run whole seconds until the members send no more packets than a quiet cluster (gossip has
 * nothing left to retransmit), or `limitMs` has passed; returns whether it got quiet.
 */
export function runUntilQuiet(sim: Simulation, nodes: number, limitMs: number): boolean {
  const start = sim.now;
  while (sim.now - start < limitMs) {
    const before = sim.network.counters.packetsDelivered;
    sim.runFor(1000);
    if ((sim.network.counters.packetsDelivered - before) / nodes <= QUIET_PACKETS_PER_MEMBER_SECOND) return true;
  }
  return false;
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
