import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { SwimConfig } from '@swim/core';
import { Simulation } from '@swim/transport-memory';
import { runUntilOrLimit, wallNow } from './setup.js';

/** Simulated time a join storm may take before the run is reported as not converged. */
export const STORM_LIMIT_MS = 600_000;

export interface JoinStormTiming {
  /** Members everyone else joins through (they first join each other). */
  readonly seeds: number;
  /** Simulated ms from the storm's start until every member sees every other alive; undefined if it did not within the limits. */
  readonly convergedSimMs: number | undefined;
  /** Simulated ms the storm ran (until it converged or a limit stopped it). */
  readonly ranSimMs: number;
  readonly wallMs: number;
  /** CPU time of the process meanwhile (user + system; GC threads included), ms: less sensitive to other load on the host than wall time. */
  readonly cpuMs: number;
}

/**
 * n0 … n(nodes−1) are created; n1 … n(seeds−1) join n0 and settle; then every other member
 * joins through all `seeds` seed members at the same instant (memberlist users restarting a
 * fleet). Runs until every member sees every other alive, or `limitMs` of simulated time, or
 * `wallLimitMs` of wall time.
 */
export function joinStorm(options: {
  readonly seed: number;
  readonly nodes: number;
  readonly seeds: number;
  readonly config: SwimConfig;
  readonly limitMs?: number;
  readonly wallLimitMs?: number;
}): {
  readonly sim: Simulation;
  readonly timing: JoinStormTiming;
} {
  const { nodes, seeds } = options;
  if (!(seeds >= 1 && seeds < nodes)) throw new RangeError(`a join storm needs 1 to ${nodes - 1} seeds, got ${seeds}`);
  const sim = new Simulation({ seed: options.seed, config: options.config });
  for (let i = 0; i < nodes; i++) sim.addMember(`n${i}`);
  const seedNames = Array.from({ length: seeds }, (_, i) => `n${i}`);
  for (const name of seedNames.slice(1)) sim.join(name, ['n0']);
  const seedsMet = () => seedNames.every((s) => seedNames.every((o) => o === s || sim.stateOf(s, o) === 'alive'));
  if (!runUntilOrLimit(sim, seedsMet, 30_000, 10)) throw new Error(`the ${seeds} seed members did not meet within 30 s (seed ${options.seed})`);
  for (let i = seeds; i < nodes; i++) sim.join(`n${i}`, seedNames);
  const start = sim.now;
  const wallStart = wallNow();
  const cpuStart = process.cpuUsage();
  const wallLimitMs = options.wallLimitMs ?? Infinity;
  const converged = runUntilOrLimit(sim, () => sim.converged() || wallNow() - wallStart > wallLimitMs, options.limitMs ?? STORM_LIMIT_MS, 100) && sim.converged();
  const cpu = process.cpuUsage(cpuStart);
  return {
    sim,
    timing: { seeds, convergedSimMs: converged ? sim.now - start : undefined, ranSimMs: sim.now - start, wallMs: wallNow() - wallStart, cpuMs: (cpu.user + cpu.system) / 1000 },
  };
}

/** A full garbage collection, for heap figures that count only what is reachable. */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * Bytes the process holds for JS after a full collection: V8's heap plus ArrayBuffer backing
 * stores, where the member tables keep their rows and indexes (outside heapUsed).
 */
export function heldBytesAfterGc(): number {
  collectGarbage();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/** CPU ms (user + system) since `from` (a process.cpuUsage() reading). */
export function cpuMsSince(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
}
