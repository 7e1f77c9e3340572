import { pushPullIntervalMs, type SwimConfig } from '@swim/core';
import { Simulation } from '@swim/transport-memory';
import { profileConfig, type ProfileName } from '../profiles.js';
import { silent, type ProgressHooks } from './hooks.js';
import { cpuMsSince, heldBytesAfterGc, joinStorm, type JoinStormTiming } from './join-storm.js';
import { QUIET_LIMIT_MS, runUntilQuiet, SETTLE_MS, wallNow } from './setup.js';

/**
 * How fast the simulator runs, per cluster size. Steady state: a pre-formed cluster
 * (Simulation.formCluster: converged at once, nothing to gossip) run past its members' first
 * push-pulls (staggered over the base push-pull interval after start, memberlist pushPullTrigger),
 * then measured over one push-pull interval at that size (memberlist pushPullScale) unless a window
 * is given, so every member's full-state exchange is in it once: simulated seconds per wall-clock
 * second on one core (the process is single-threaded), traffic per member, the process's RSS and
 * the bytes held per member entry (every member holds every member: nodes² entries). Then join
 * storms, every member joining through one seed member at the same instant (and through three),
 * timed in wall, CPU and simulated time until every member sees every other alive, each given up
 * after a wall-time limit. Targets: 100× real time at 128 and 1,000 members, 1× at 10,000; a
 * 1,000-member storm within 5 s of wall time, a 10,000-member one within 10 minutes.
 *
 * From ~1,500 members on, run with NODE_OPTIONS=--max-old-space-size=12288 (or more): V8's default
 * heap (~4 GiB here) is too small and the process collects garbage without end.
 */

export interface SpeedParams {
  readonly nodes: readonly number[];
  /** Simulated seconds measured; undefined: one push-pull interval at each size. */
  readonly windowS: number | undefined;
  readonly profiles: readonly ProfileName[];
  readonly seed: number;
  /** Wall seconds a join storm may run before it is reported as not converged. */
  readonly stormWallLimitS: number;
  /** The steady state only: no join storms (at sizes where one is known to outlast any limit). */
  readonly skipStorms: boolean;
}

export const SPEED_DEFAULTS: SpeedParams = { nodes: [128, 1000], windowS: undefined, profiles: ['default'], seed: 1, stormWallLimitS: 900, skipStorms: false };
export const SPEED_QUICK: SpeedParams = { nodes: [128], windowS: 10, profiles: ['default'], seed: 1, stormWallLimitS: 900, skipStorms: false };

/** Real-time multiples the issue asks for. */
export const SPEED_TARGETS: Readonly<Record<number, number>> = { 128: 100, 1000: 100, 10000: 1 };

/** Wall time a join storm should converge in, where the issue sets one. */
export const STORM_WALL_TARGETS_MS: Readonly<Record<number, number>> = { 1000: 5_000, 10000: 600_000 };

/** The target for a cluster size: the listed one, else the nearest listed size's. */
export function speedTarget(nodes: number): number {
  const sizes = Object.keys(SPEED_TARGETS).map(Number);
  const nearest = sizes.reduce((best, s) => (Math.abs(Math.log(s / nodes)) < Math.abs(Math.log(best / nodes)) ? s : best));
  return SPEED_TARGETS[nearest]!;
}

export interface SpeedCell {
  readonly nodes: number;
  readonly profile: ProfileName;
  readonly seed: number;
  /** Simulated seconds measured: the window asked for, or one push-pull interval at this size. */
  readonly windowS: number;
  /** Wall and CPU time to pre-form the cluster and run it to the window's start, ms. */
  readonly setupWallMs: number;
  readonly setupCpuMs: number;
  /** Simulated ms from the start to the window (quiet, at least one base push-pull interval in). */
  readonly windowStartMs: number;
  /** Push-pull exchanges in the window (each member's periodic full-state exchange). */
  readonly pushPulls: number;
  /** Wall time of the measured window, ms. */
  readonly wallMs: number;
  readonly simSecondsPerWallSecond: number;
  readonly packetsPerSimSecond: number;
  readonly bytesPerSimSecond: number;
  /** Streams opened per simulated second (push-pull, fallback pings). */
  readonly streamsPerSimSecond: number;
  readonly target: number;
  /** simSecondsPerWallSecond / target: ≥ 1 meets it. */
  readonly ratioToTarget: number;
  /** CPU time of the measured window (user + system), ms, and simulated seconds per CPU second. */
  readonly cpuMs: number;
  readonly simSecondsPerCpuSecond: number;
  readonly packetsPerMemberPerSecond: number;
  readonly bytesPerMemberPerSecond: number;
  /** Join storms through one seed member and through three (fewer in a cluster of under five); none with skipStorms. */
  readonly joinStorms: readonly JoinStormTiming[];
  /** The wall time the one-seed storm should take, where the issue sets one. */
  readonly stormWallTargetMs: number | undefined;
  /** The process's resident set after the window, bytes. */
  readonly rssBytes: number;
  /**
   * Heap in use after the window and a full collection, typed arrays' backing stores included
   * (the member tables keep their rows and indexes there, outside V8's heapUsed), bytes, and that
   * per member entry (nodes²).
   */
  readonly heapBytes: number;
  readonly heapBytesPerEntry: number;
}

export interface SpeedResult {
  readonly experiment: 'speed';
  readonly params: SpeedParams;
  readonly cells: readonly SpeedCell[];
}

export async function speedRun(options: {
  readonly nodes: number;
  readonly windowS: number | undefined;
  readonly profile: ProfileName;
  readonly seed: number;
  readonly stormWallLimitS: number;
  readonly skipStorms?: boolean;
}): Promise<SpeedCell> {
  const config = profileConfig(options.profile);
  const { nodes, seed } = options;
  const steady = measureSteady({ nodes, seed, config, windowS: options.windowS });
  // Each simulation is garbage once its run returns, but a storm's join promises keep its members
  // reachable until the event loop turns: turn it before the next one (at 10,000 members a
  // simulation holds gigabytes).
  await yieldToEventLoop();
  const stormWallTargetMs = STORM_WALL_TARGETS_MS[nodes];
  if (options.skipStorms === true) return { ...steady, profile: options.profile, seed, joinStorms: [], stormWallTargetMs };
  const wallLimitMs = options.stormWallLimitS * 1000;
  const one = joinStorm({ seed, nodes, seeds: 1, config, wallLimitMs }).timing;
  await yieldToEventLoop();
  const three = joinStorm({ seed, nodes, seeds: Math.min(3, nodes - 1), config, wallLimitMs }).timing;
  await yieldToEventLoop();
  return { ...steady, profile: options.profile, seed, joinStorms: [one, three], stormWallTargetMs };
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A pre-formed cluster, run until quiet and one base push-pull interval, then the measured window:
 * one push-pull period at this size, in which each member push-pulls once (a preloaded member draws
 * its first at a random point of that period).
 */
function measureSteady(options: { readonly nodes: number; readonly seed: number; readonly config: SwimConfig; readonly windowS: number | undefined }) {
  const { nodes, config } = options;
  const setupStart = wallNow();
  const setupCpu = process.cpuUsage();
  const sim = new Simulation({ seed: options.seed, config });
  sim.formCluster(nodes);
  if (!runUntilQuiet(sim, nodes, QUIET_LIMIT_MS)) throw new Error(`a pre-formed cluster of ${nodes} was not quiet within ${QUIET_LIMIT_MS / 1000} s (seed ${options.seed})`);
  sim.runFor(Math.max(SETTLE_MS, config.pushPullIntervalMs + SETTLE_MS - sim.now));
  const windowStartMs = sim.now;
  const setupWallMs = wallNow() - setupStart;
  const setupCpuMs = cpuMsSince(setupCpu);
  const windowS = options.windowS ?? pushPullIntervalMs(config.pushPullIntervalMs, nodes) / 1000;
  const before = { ...sim.network.counters };
  const pushPullsBefore = countPushPulls(sim);
  const start = wallNow();
  const cpuStart = process.cpuUsage();
  sim.runFor(windowS * 1000);
  const wallMs = wallNow() - start;
  const cpuMs = cpuMsSince(cpuStart);
  if (!sim.converged()) throw new Error(`a quiet cluster of ${nodes} lost its convergence in the window (seed ${options.seed})`);
  const after = sim.network.counters;
  const pushPulls = countPushPulls(sim) - pushPullsBefore;
  const rssBytes = process.memoryUsage().rss;
  const heapBytes = heldBytesAfterGc();
  const simSecondsPerWallSecond = windowS / (wallMs / 1000);
  const target = speedTarget(nodes);
  const packets = after.packetsDelivered - before.packetsDelivered;
  const bytes = after.bytesDelivered - before.bytesDelivered;
  return {
    nodes,
    windowS,
    setupWallMs,
    setupCpuMs,
    windowStartMs,
    pushPulls,
    wallMs,
    simSecondsPerWallSecond,
    packetsPerSimSecond: packets / windowS,
    bytesPerSimSecond: bytes / windowS,
    streamsPerSimSecond: (after.streamsOpened - before.streamsOpened) / windowS,
    target,
    ratioToTarget: simSecondsPerWallSecond / target,
    cpuMs,
    simSecondsPerCpuSecond: windowS / (cpuMs / 1000),
    packetsPerMemberPerSecond: packets / nodes / windowS,
    bytesPerMemberPerSecond: bytes / nodes / windowS,
    rssBytes,
    heapBytes,
    heapBytesPerEntry: heapBytes / (nodes * nodes),
  };
}

/** Push-pull exchanges so far (memberlist pushPull): each member's counter counts both ends of one. */
function countPushPulls(sim: Simulation): number {
  let ends = 0;
  for (const member of sim.members()) ends += member.counters.pushPulls;
  return ends / 2;
}

export async function runSpeed(params: SpeedParams, hooks: ProgressHooks = silent): Promise<SpeedResult> {
  const cells: SpeedCell[] = [];
  for (const nodes of params.nodes) {
    for (const profile of params.profiles) {
      hooks.startCell(`n=${nodes} window=${params.windowS === undefined ? 'one push-pull interval' : `${params.windowS}s`} ${profile}`);
      const cell = await speedRun({ nodes, windowS: params.windowS, profile, seed: params.seed, stormWallLimitS: params.stormWallLimitS, skipStorms: params.skipStorms });
      hooks.runDone();
      cells.push(cell);
      const storms = cell.joinStorms.length === 0 ? 'not run' : cell.joinStorms.map((s) => `${s.seeds} seed${s.seeds === 1 ? '' : 's'} ${stormText(s)}`).join(', ');
      hooks.cellDone(
        `${realTimeText(cell.simSecondsPerWallSecond)} real time (target ${cell.target}×, ${realTimeText(cell.simSecondsPerCpuSecond)} per CPU s), ${Math.round(cell.packetsPerSimSecond)} packets per simulated second; ` +
          `join storm ${storms}; rss ${(cell.rssBytes / 2 ** 20).toFixed(0)} MiB, ${cell.heapBytesPerEntry.toFixed(0)} heap bytes per member entry`,
      );
    }
  }
  return { experiment: 'speed', params, cells };
}

/** A multiple of real time: two decimals below 10× (0.58×, not a rounded 1×), whole above. */
export function realTimeText(multiple: number): string {
  return `${multiple < 10 ? multiple.toFixed(2) : multiple.toFixed(0)}×`;
}

/** The measured window, as the reports say it. */
export function windowText(windowS: number | undefined): string {
  return windowS === undefined ? 'over one push-pull interval at each size' : `over ${windowS} simulated s`;
}

/** A storm of a cell, or "not run" (skipStorms). */
export function stormCellText(storm: JoinStormTiming | undefined): string {
  return storm === undefined ? 'not run' : stormText(storm);
}

/** "converged in 25.7 s simulated, 33.1 s wall (30.9 s CPU)". */
export function stormText(storm: JoinStormTiming): string {
  const wall = `${(storm.wallMs / 1000).toFixed(1)} s wall (${(storm.cpuMs / 1000).toFixed(1)} s CPU)`;
  return storm.convergedSimMs === undefined
    ? `not converged after ${(storm.ranSimMs / 1000).toFixed(1)} s simulated, ${wall}`
    : `converged in ${(storm.convergedSimMs / 1000).toFixed(1)} s simulated, ${wall}`;
}

export function speedWork(params: SpeedParams): { cells: number; runs: number } {
  const cells = params.nodes.length * params.profiles.length;
  return { cells, runs: cells };
}
