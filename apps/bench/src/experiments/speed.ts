import { profileConfig, type ProfileName } from '../profiles.js';
import { silent, type ProgressHooks } from './hooks.js';
import { collectGarbage, cpuMsSince, heldBytesAfterGc, joinStorm, type JoinStormTiming } from './join-storm.js';
import { SETTLE_MS, wallNow } from './setup.js';

/**
 * How fast the simulator runs, per cluster size: a join storm (every member joins through one
 * seed member at the same instant, and through three) timed in wall, CPU and simulated time until
 * every member sees every other alive; then, after the one-seed storm has settled (10 s, and
 * on until members send no more than a quiet cluster's ~2 packets a second each),
 * simulated seconds per wall-clock second on one core (the process is single-threaded) over a
 * fixed simulated window, with the traffic per member, the process's RSS and the heap per member
 * entry (every member holds an entry for every member: nodes² entries). Targets: 100× real time
 * at 128 and 1,000 members, 1× at 10,000; a 1,000-member storm within 5 s of wall time, a
 * 10,000-member one within 10 minutes.
 *
 * From ~1,500 members on, a storm outgrows V8's default heap (~4 GiB here) and the process
 * collects garbage without end: run such sizes with NODE_OPTIONS=--max-old-space-size=12288.
 */

export interface SpeedParams {
  readonly nodes: readonly number[];
  /** Simulated seconds measured. */
  readonly windowS: number;
  readonly profiles: readonly ProfileName[];
  readonly seed: number;
}

export const SPEED_DEFAULTS: SpeedParams = { nodes: [128, 1000], windowS: 60, profiles: ['default'], seed: 1 };
export const SPEED_QUICK: SpeedParams = { nodes: [128], windowS: 10, profiles: ['default'], seed: 1 };

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
  readonly windowS: number;
  /** Wall time to start the cluster and converge (plus the settling time), ms. */
  readonly setupWallMs: number;
  readonly convergedAtMs: number;
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
  /** Join storms through one seed member and through three (fewer in a cluster of under five). */
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
  /** Simulated ms of settling after the one-seed storm before the window (10 s, more until quiet). */
  readonly settledAfterMs: number;
}

export interface SpeedResult {
  readonly experiment: 'speed';
  readonly params: SpeedParams;
  readonly cells: readonly SpeedCell[];
}

export function speedRun(options: { readonly nodes: number; readonly windowS: number; readonly profile: ProfileName; readonly seed: number }): SpeedCell {
  const config = profileConfig(options.profile);
  const { nodes, seed } = options;
  const steady = measureSteady(joinStorm({ seed, nodes, seeds: 1, config }), options.windowS);
  collectGarbage();
  // Then the same storm through three seeds, timed only (the first simulation is garbage by now).
  const three = joinStorm({ seed, nodes, seeds: Math.min(3, nodes - 1), config }).timing;
  collectGarbage();
  return { ...steady.cell, profile: options.profile, seed, setupWallMs: steady.setupWallMs, joinStorms: [steady.storm, three], stormWallTargetMs: STORM_WALL_TARGETS_MS[nodes] };
}

/** A quiet member sends a ping and answers one per probe interval (1 s): two packets a second, plus this margin. */
const QUIET_PACKETS_PER_MEMBER_SECOND = 2.1;
/** Settling gives up after this long (the window then measures whatever traffic is left). */
const SETTLE_LIMIT_MS = 180_000;

/**
 * 10 s, then more seconds until the cluster is quiet (the storm's last updates retransmitted:
 * at 2,000 members 10 s left ten times the quiet traffic); returns the simulated ms it took.
 */
function settle(sim: ReturnType<typeof joinStorm>['sim'], nodes: number): number {
  const start = sim.now;
  sim.runFor(SETTLE_MS);
  while (sim.now - start < SETTLE_LIMIT_MS) {
    const before = sim.network.counters.packetsDelivered;
    sim.runFor(1000);
    if ((sim.network.counters.packetsDelivered - before) / nodes <= QUIET_PACKETS_PER_MEMBER_SECOND) break;
  }
  return sim.now - start;
}

/** After the storm: settling (see settle), then the measured window. */
function measureSteady(storm: ReturnType<typeof joinStorm>, windowS: number) {
  const { sim, timing } = storm;
  const nodes = sim.members().length;
  if (timing.convergedSimMs === undefined) {
    throw new Error(`a join storm of ${nodes} members did not converge within its limit (seed ${sim.seed})`);
  }
  const convergedAtMs = sim.now;
  const settleStart = wallNow();
  const settledAfterMs = settle(sim, nodes);
  const setupWallMs = timing.wallMs + (wallNow() - settleStart);
  const before = { ...sim.network.counters };
  const start = wallNow();
  const cpuStart = process.cpuUsage();
  sim.runFor(windowS * 1000);
  const wallMs = wallNow() - start;
  const cpuMs = cpuMsSince(cpuStart);
  const after = sim.network.counters;
  const rssBytes = process.memoryUsage().rss;
  const heapBytes = heldBytesAfterGc();
  const simSecondsPerWallSecond = windowS / (wallMs / 1000);
  const target = speedTarget(nodes);
  const packets = after.packetsDelivered - before.packetsDelivered;
  const bytes = after.bytesDelivered - before.bytesDelivered;
  const cell = {
    nodes,
    windowS,
    convergedAtMs,
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
    settledAfterMs,
  };
  return { cell, storm: timing, setupWallMs };
}

export function runSpeed(params: SpeedParams, hooks: ProgressHooks = silent): SpeedResult {
  const cells: SpeedCell[] = [];
  for (const nodes of params.nodes) {
    for (const profile of params.profiles) {
      hooks.startCell(`n=${nodes} window=${params.windowS}s ${profile}`);
      const cell = speedRun({ nodes, windowS: params.windowS, profile, seed: params.seed });
      hooks.runDone();
      cells.push(cell);
      const storms = cell.joinStorms.map((s) => `${s.seeds} seed${s.seeds === 1 ? '' : 's'} ${stormText(s)}`).join(', ');
      hooks.cellDone(
        `${cell.simSecondsPerWallSecond.toFixed(0)}× real time (target ${cell.target}×), ${Math.round(cell.packetsPerSimSecond)} packets per simulated second; ` +
          `join storm ${storms}; rss ${(cell.rssBytes / 2 ** 20).toFixed(0)} MiB, ${cell.heapBytesPerEntry.toFixed(0)} heap bytes per member entry`,
      );
    }
  }
  return { experiment: 'speed', params, cells };
}

/** "converged in 25.7 s simulated, 33.1 s wall (30.9 s CPU)". */
export function stormText(storm: JoinStormTiming): string {
  const wall = `${(storm.wallMs / 1000).toFixed(1)} s wall (${(storm.cpuMs / 1000).toFixed(1)} s CPU)`;
  return storm.convergedSimMs === undefined ? `not converged after ${wall}` : `converged in ${(storm.convergedSimMs / 1000).toFixed(1)} s simulated, ${wall}`;
}

export function speedWork(params: SpeedParams): { cells: number; runs: number } {
  const cells = params.nodes.length * params.profiles.length;
  return { cells, runs: cells };
}
