/**
 * `pnpm bench scale` (issue 15): the crash experiment and one blackout cell (a quarter of the
 * members cut off for 50 s) at large cluster sizes, for the default and memberlist profiles. It
 * runs the crash and blackout experiments' own code (crash.ts, blackout.ts) on clusters formed by
 * Simulation.formCluster (pre-formed, not a join storm; setup.ts `Formation`) unless asked for
 * joins, and adds what each run cost: wall and CPU time, RSS, and (pre-formed) what forming its
 * cluster cost and weighed.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { profileConfig, suspicionBoundsMs, type ProfileName } from '../../profiles.js';
import { formatDuration } from '../../stats.js';
import { blackoutCell, blackoutRun, type BlackoutCell, type BlackoutRun } from '../blackout.js';
import { crashCell, crashRun, type CrashCell, type CrashRun } from '../crash.js';
import { cpuMsSince } from '../join-storm.js';
import { runSeeds, type Formation } from '../setup.js';
import type { SourceState } from '../source-state.js';

export interface ScaleParams {
  readonly nodes: readonly number[];
  readonly runs: number;
  readonly seed: number;
  /** Members crashed per crash run, 5 s apart (crash.ts). */
  readonly crashes: number;
  /** Share of the members cut off in the blackout cell. */
  readonly cutShare: number;
  /** Blackout length, seconds. */
  readonly outageS: number;
  readonly profiles: readonly ProfileName[];
  readonly formation: Formation;
  /** Which of the two to run (both by default): a 5,000-member blackout run alone takes most of an hour. */
  readonly experiments: readonly ScaleExperiment[];
}

export const SCALE_EXPERIMENTS = ['crash', 'blackout'] as const;
export type ScaleExperiment = (typeof SCALE_EXPERIMENTS)[number];

export const SCALE_DEFAULTS: ScaleParams = {
  nodes: [1000, 5000],
  runs: 1,
  seed: 1,
  crashes: 10,
  cutShare: 0.25,
  outageS: 50,
  profiles: ['default', 'memberlist'],
  formation: 'pre-formed',
  experiments: SCALE_EXPERIMENTS,
};

/** `--quick`: the same experiment on 128 members (the corrections study's size), in about a minute. */
export const SCALE_QUICK: ScaleParams = { ...SCALE_DEFAULTS, nodes: [128], crashes: 3 };

/** Wall and CPU time of one run (formation included), and the RSS after it. */
export interface RunCost {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly rssBytes: number;
}

export interface ScaleSize {
  readonly nodes: number;
  readonly cut: number;
  readonly crash: ReadonlyArray<CrashCell & { readonly costs: readonly RunCost[] }>;
  readonly blackout: ReadonlyArray<BlackoutCell & { readonly costs: readonly RunCost[] }>;
  /** Lifeguard's maximum suspicion timeout at this size per profile, seconds. */
  readonly maxSuspicionS: Readonly<Partial<Record<ProfileName, number>>>;
}

export interface ScaleResult {
  readonly experiment: 'scale';
  readonly params: ScaleParams;
  readonly sizes: readonly ScaleSize[];
  /** False in the reports written while the run goes on (after each cell), true at the end. */
  readonly complete: boolean;
  /** The process's peak resident set so far (getrusage maxrss). */
  readonly peakRssBytes: number;
  /** The host: other load on it slows wall time, not CPU time. */
  readonly machine: { readonly cpus: number; readonly totalMemoryBytes: number; readonly loadAverage: readonly [number, number] };
  /** The code that ran (the bench runs the packages from source): git HEAD and the source files changed from it. */
  readonly source?: SourceState;
}

/** Members cut off in the blackout cell: `cutShare` of them, at least one, leaving one healthy. */
export function cutFor(nodes: number, cutShare: number): number {
  return Math.min(nodes - 1, Math.max(1, Math.floor(nodes * cutShare)));
}

/** Let pending promise callbacks run: until they do, they keep the last simulation (gigabytes at 5,000 members) reachable. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs `run` with the wall and CPU time it took and the RSS after it. */
function timed<T>(run: () => T): { result: T; cost: RunCost } {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const result = run();
  return { result, cost: { wallMs: performance.now() - wall, cpuMs: cpuMsSince(cpu), rssBytes: process.memoryUsage().rss } };
}

/**
 * Per size: the crash experiment, then the blackout cell, a profile at a time, each run on a fresh
 * cluster (crash.ts crashRun, blackout.ts blackoutRun); `onCell` gets the result so far after each
 * cell (a 5,000-member cell takes many minutes).
 */
export async function runScale(params: ScaleParams, log: (line: string) => void = () => {}, onCell: (partial: ScaleResult) => void = () => {}): Promise<ScaleResult> {
  const loadAtStart = loadavg()[0]!;
  const sizes: ScaleSize[] = [];
  const result = (complete: boolean): ScaleResult => ({
    experiment: 'scale',
    params,
    sizes: [...sizes],
    complete,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    machine: { cpus: cpus().length, totalMemoryBytes: totalmem(), loadAverage: [loadAtStart, loadavg()[0]!] },
  });
  const { formation } = params;
  const seeds = runSeeds(params.seed, params.runs);
  const done = (what: string, i: number, cost: RunCost) =>
    log(`${what}: run ${i + 1} of ${seeds.length} done in ${formatDuration(cost.wallMs)} wall, ${formatDuration(cost.cpuMs)} CPU, RSS ${(cost.rssBytes / 2 ** 20).toFixed(0)} MiB`);
  for (const nodes of params.nodes) {
    const cut = cutFor(nodes, params.cutShare);
    const maxSuspicionS: Partial<Record<ProfileName, number>> = {};
    for (const profile of params.profiles) maxSuspicionS[profile] = suspicionBoundsMs(profileConfig(profile), nodes).maxMs / 1000;
    const size = { nodes, cut, crash: [] as Array<ScaleSize['crash'][number]>, blackout: [] as Array<ScaleSize['blackout'][number]>, maxSuspicionS };
    sizes.push(size);
    for (const profile of params.experiments.includes('crash') ? params.profiles : []) {
      const what = `n=${nodes} crashes=${params.crashes} ${profile}`;
      log(`${what} ...`);
      const runs: CrashRun[] = [];
      const costs: RunCost[] = [];
      for (const [i, seed] of seeds.entries()) {
        const { result: run, cost } = timed(() => crashRun({ nodes, crashes: params.crashes, profile, seed, formation }));
        runs.push(run);
        costs.push(cost);
        done(what, i, cost);
        await yieldToEventLoop();
      }
      const cell = crashCell(nodes, profile, runs);
      size.crash.push({ ...cell, costs });
      log(`${what}: first dead median ${cell.firstDead.median.toFixed(2)} s, max ${cell.firstDead.max.toFixed(2)} s; ${cell.undetected} crash(es) not seen dead by every survivor`);
      onCell(result(false));
    }
    for (const profile of params.experiments.includes('blackout') ? params.profiles : []) {
      const what = `n=${nodes} cut=${cut} outage=${params.outageS}s ${profile}`;
      log(`${what} ...`);
      const runs: BlackoutRun[] = [];
      const costs: RunCost[] = [];
      for (const [i, seed] of seeds.entries()) {
        const { result: run, cost } = timed(() => blackoutRun({ nodes, cut, outage: params.outageS, profile, seed, formation }));
        runs.push(run);
        costs.push(cost);
        done(what, i, cost);
        await yieldToEventLoop();
      }
      const cell = blackoutCell({ nodes, cut, outage: params.outageS, profile }, runs);
      size.blackout.push({ ...cell, costs });
      log(`${what}: false deaths ${runs.map((r) => r.falseDeaths).join(', ')}, overdue verdicts ${runs.map((r) => r.overdueVerdicts).join(', ')}`);
      onCell(result(false));
    }
  }
  return result(true);
}

/** The targets, read at one size: every crash detected; 0 false deaths for default, some for memberlist. */
export interface ScaleVerdicts {
  readonly nodes: number;
  /** Per profile: crashes some survivor never saw dead (0 = every crash detected by every survivor). */
  readonly undetected: Readonly<Partial<Record<ProfileName, number>>>;
  /** Undefined when no crash cell ran at this size. */
  readonly everyCrashDetected: boolean | undefined;
  /** Per profile: false deaths summed over the runs. */
  readonly falseDeaths: Readonly<Partial<Record<ProfileName, number>>>;
  /** default had 0 false deaths in every run (undefined if default was not run). */
  readonly defaultClean: boolean | undefined;
  /** memberlist had false deaths in some run (undefined if memberlist was not run). */
  readonly memberlistLeaks: boolean | undefined;
}

export function verdicts(size: ScaleSize): ScaleVerdicts {
  const undetected: Partial<Record<ProfileName, number>> = {};
  for (const cell of size.crash) undetected[cell.profile] = cell.undetected;
  const falseDeaths: Partial<Record<ProfileName, number>> = {};
  for (const cell of size.blackout) falseDeaths[cell.profile] = cell.runs.reduce((n, r) => n + r.falseDeaths, 0);
  return {
    nodes: size.nodes,
    undetected,
    everyCrashDetected: size.crash.length === 0 ? undefined : size.crash.every((c) => c.undetected === 0 && c.firstDead.count === c.runs.length * c.runs[0]!.crashes.length),
    falseDeaths,
    defaultClean: falseDeaths.default === undefined ? undefined : falseDeaths.default === 0,
    memberlistLeaks: falseDeaths.memberlist === undefined ? undefined : falseDeaths.memberlist > 0,
  };
}
