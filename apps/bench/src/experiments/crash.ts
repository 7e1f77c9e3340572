import { PROFILE_NAMES, profileConfig, type ProfileName } from '../profiles.js';
import { summarize, type Summary } from '../stats.js';
import { silent, type ProgressHooks } from './hooks.js';
import { convergedCluster, pickMembers, runSeeds, runUntilOrLimit, wallNow, type Formation, type FormationCost } from './setup.js';

/**
 * What the corrections cost in detecting real crashes: crash members one at a time, 5 s apart,
 * and time how long until the first member declares each dead; then wait until every survivor
 * has. The corrections study measured a median of about 12 s at 128 members.
 */

export const CRASH_SPACING_MS = 5_000;
/** After the last crash, wait at most this long for every survivor to see every crash. */
export const CRASH_SETTLE_LIMIT_MS = 120_000;
const CRASH_SALT = 0xc4a5;

export interface CrashParams {
  readonly nodes: readonly number[];
  readonly crashes: number;
  readonly profiles: readonly ProfileName[];
  readonly runs: number;
  readonly seed: number;
}

export const CRASH_DEFAULTS: CrashParams = { nodes: [128], crashes: 10, profiles: PROFILE_NAMES, runs: 3, seed: 1 };
export const CRASH_QUICK: CrashParams = { nodes: [128], crashes: 3, profiles: ['memberlist', 'default'], runs: 1, seed: 1 };

export interface CrashOutcome {
  readonly member: string;
  /** Crash to the first `dead` verdict about it by anyone, ms; null if nobody ever declared it. */
  readonly firstDeadMs: number | null;
  /** Crash to the last survivor's `dead` verdict, ms; null if some survivor never declared it. */
  readonly allDeadMs: number | null;
  /** Survivors that never saw it dead within the limit. */
  readonly missing: readonly string[];
}

export interface CrashRun {
  readonly seed: number;
  readonly crashes: readonly CrashOutcome[];
  /** `dead` verdicts about members that did not crash, by survivors (should be 0). */
  readonly falseDeaths: number;
  readonly wallMs: number;
  /** Pre-formed clusters only: what forming it cost (setup.ts). */
  readonly formationCost?: FormationCost;
}

export interface CrashCell {
  readonly nodes: number;
  readonly profile: ProfileName;
  readonly runs: readonly CrashRun[];
  /** Over every crash of every run, seconds. */
  readonly firstDead: Summary;
  readonly allDead: Summary;
  /** Crashes some survivor never saw dead. */
  readonly undetected: number;
}

export interface CrashResult {
  readonly experiment: 'crash';
  readonly params: CrashParams;
  readonly cells: readonly CrashCell[];
}

export function crashRun(options: {
  readonly nodes: number;
  readonly crashes: number;
  readonly profile: ProfileName;
  readonly seed: number;
  readonly formation?: Formation;
}): CrashRun {
  const started = wallNow();
  const { sim, names, formationCost } = convergedCluster({
    seed: options.seed,
    nodes: options.nodes,
    config: profileConfig(options.profile),
    ...(options.formation === undefined ? {} : { formation: options.formation }),
  });
  const victims = pickMembers(options.seed, names, options.crashes, CRASH_SALT);
  const crashed = new Set<string>();
  const crashedAt = new Map<string, number>();
  const seenBy = new Map<string, Map<string, number>>(victims.map((v) => [v, new Map()]));
  let falseDeaths = 0;
  const stop = sim.onEvent((e) => {
    if (e.kind !== 'dead' || crashed.has(e.observer)) return;
    const seen = seenBy.get(e.subject);
    if (seen === undefined || !crashed.has(e.subject)) {
      falseDeaths++;
      return;
    }
    if (!seen.has(e.observer)) seen.set(e.observer, e.at);
  });

  victims.forEach((victim, i) => {
    if (i > 0) sim.runFor(CRASH_SPACING_MS);
    crashed.add(victim);
    crashedAt.set(victim, sim.now);
    sim.crash(victim);
  });
  const survivors = names.filter((n) => !crashed.has(n));
  const everyoneSaw = () => victims.every((v) => seenBy.get(v)!.size >= survivors.length);
  runUntilOrLimit(sim, everyoneSaw, CRASH_SETTLE_LIMIT_MS, 1_000);
  stop();

  const crashes = victims.map((member): CrashOutcome => {
    const seen = seenBy.get(member)!;
    const at = crashedAt.get(member)!;
    const times = [...seen.values()];
    const missing = survivors.filter((s) => !seen.has(s));
    return {
      member,
      firstDeadMs: times.length === 0 ? null : Math.min(...times) - at,
      allDeadMs: missing.length > 0 ? null : Math.max(...times) - at,
      missing,
    };
  });
  return { seed: options.seed, crashes, falseDeaths, wallMs: wallNow() - started, ...(formationCost === undefined ? {} : { formationCost }) };
}

/** A cell: its runs, and over every crash of every run, the times to the first and the last verdict. */
export function crashCell(nodes: number, profile: ProfileName, runs: readonly CrashRun[]): CrashCell {
  const outcomes = runs.flatMap((r) => r.crashes);
  const firstDead = summarize(outcomes.flatMap((o) => (o.firstDeadMs === null ? [] : [o.firstDeadMs / 1000])));
  const allDead = summarize(outcomes.flatMap((o) => (o.allDeadMs === null ? [] : [o.allDeadMs / 1000])));
  const undetected = outcomes.filter((o) => o.missing.length > 0).length;
  return { nodes, profile, runs, firstDead, allDead, undetected };
}

export function runCrash(params: CrashParams, hooks: ProgressHooks = silent): CrashResult {
  for (const nodes of params.nodes) {
    if (params.crashes >= nodes - 1) throw new RangeError(`cannot crash ${params.crashes} of ${nodes} members`);
  }
  const cells: CrashCell[] = [];
  for (const nodes of params.nodes) {
    for (const profile of params.profiles) {
      hooks.startCell(`n=${nodes} crashes=${params.crashes} ${profile}`);
      const runs = runSeeds(params.seed, params.runs).map((seed) => {
        const run = crashRun({ nodes, crashes: params.crashes, profile, seed });
        hooks.runDone();
        return run;
      });
      const cell = crashCell(nodes, profile, runs);
      const { firstDead, undetected } = cell;
      cells.push(cell);
      hooks.cellDone(
        `first dead median ${firstDead.median.toFixed(2)} s, p90 ${firstDead.p90.toFixed(2)} s, max ${firstDead.max.toFixed(2)} s; ` +
          `${undetected === 0 ? 'every survivor saw every crash' : `${undetected} crash(es) not seen by every survivor`}`,
      );
    }
  }
  return { experiment: 'crash', params, cells };
}

export function crashWork(params: CrashParams): { cells: number; runs: number } {
  const cells = params.nodes.length * params.profiles.length;
  return { cells, runs: cells * params.runs };
}
