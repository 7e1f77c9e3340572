import { profileConfig, type ProfileName } from '../profiles.js';
import { silent, type ProgressHooks } from './hooks.js';
import { convergedCluster, wallNow } from './setup.js';

/**
 * How fast the simulator runs: simulated seconds per wall-clock second on one core (the process is
 * single-threaded), measured over a fixed simulated window after convergence, with the packets
 * delivered per simulated second. Targets: 100× real time at 128 members, 10× at 1,000.
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
export const SPEED_TARGETS: Readonly<Record<number, number>> = { 128: 100, 1000: 10 };

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
}

export interface SpeedResult {
  readonly experiment: 'speed';
  readonly params: SpeedParams;
  readonly cells: readonly SpeedCell[];
}

export function speedRun(options: { readonly nodes: number; readonly windowS: number; readonly profile: ProfileName; readonly seed: number }): SpeedCell {
  const setupStart = wallNow();
  const { sim, convergedAtMs } = convergedCluster({
    seed: options.seed,
    nodes: options.nodes,
    config: profileConfig(options.profile),
    limitMs: 120_000,
  });
  const setupWallMs = wallNow() - setupStart;
  const before = { ...sim.network.counters };
  const start = wallNow();
  sim.runFor(options.windowS * 1000);
  const wallMs = wallNow() - start;
  const after = sim.network.counters;
  const simSecondsPerWallSecond = options.windowS / (wallMs / 1000);
  const target = speedTarget(options.nodes);
  return {
    nodes: options.nodes,
    profile: options.profile,
    seed: options.seed,
    windowS: options.windowS,
    setupWallMs,
    convergedAtMs,
    wallMs,
    simSecondsPerWallSecond,
    packetsPerSimSecond: (after.packetsDelivered - before.packetsDelivered) / options.windowS,
    bytesPerSimSecond: (after.bytesDelivered - before.bytesDelivered) / options.windowS,
    streamsPerSimSecond: (after.streamsOpened - before.streamsOpened) / options.windowS,
    target,
    ratioToTarget: simSecondsPerWallSecond / target,
  };
}

export function runSpeed(params: SpeedParams, hooks: ProgressHooks = silent): SpeedResult {
  const cells: SpeedCell[] = [];
  for (const nodes of params.nodes) {
    for (const profile of params.profiles) {
      hooks.startCell(`n=${nodes} window=${params.windowS}s ${profile}`);
      const cell = speedRun({ nodes, windowS: params.windowS, profile, seed: params.seed });
      hooks.runDone();
      cells.push(cell);
      hooks.cellDone(`${cell.simSecondsPerWallSecond.toFixed(0)}× real time (target ${cell.target}×), ${Math.round(cell.packetsPerSimSecond)} packets per simulated second`);
    }
  }
  return { experiment: 'speed', params, cells };
}

export function speedWork(params: SpeedParams): { cells: number; runs: number } {
  const cells = params.nodes.length * params.profiles.length;
  return { cells, runs: cells };
}
