import type { SwimConfig } from '@swim/core';
import { encryptionOverhead } from '@swim/encryption';
import { PROFILE_NAMES, profileConfig, suspicionBoundsMs, type ProfileName } from '../profiles.js';
import { mean } from '../stats.js';
import { silent, type ProgressHooks } from './hooks.js';
import { convergedCluster, pickMembers, recordDeaths, runSeeds, wallNow, type Formation, type FormationCost } from './setup.js';

/**
 * The corrections study's blackout (docs/corrections-study.md): converge, cut K members off at once for a while (their timers
 * keep running; every packet to or from them is held and delivered when the outage ends; their
 * streams hang until they time out), then watch 90 s after they reconnect.
 */

/** Watch this long after the outage ends (seed: 90 s). */
export const WATCH_MS = 90_000;
/** Verdicts fired by cut-off members this soon after the outage ends are "overdue" (seed: 2 s). */
export const OVERDUE_WINDOW_MS = 2_000;
/** Salt of the generator that picks the cut-off members. */
const CUT_SALT = 0xb1ac;

export interface BlackoutParams {
  readonly nodes: readonly number[];
  /** Members cut off at once; crossed with `outages` unless `cells` is given. */
  readonly cuts: readonly number[];
  /** Outage lengths in seconds. */
  readonly outages: readonly number[];
  /** Explicit (cut, outage) pairs instead of the cross product (the quick subset). */
  readonly cells?: ReadonlyArray<{ readonly cut: number; readonly outage: number }>;
  readonly profiles: readonly ProfileName[];
  readonly runs: number;
  readonly seed: number;
  /**
   * Members fill packets to what an encrypted member's transport carries: the network's 1400 bytes
   * less @swim/encryption's envelope (secureTransport lowers maxPacketBytes by it). That is all
   * encryption changes for the protocol; the simulator, on virtual time, carries the core's bytes
   * and does not run the (asynchronous) cipher.
   */
  readonly encrypt?: boolean;
}

export const BLACKOUT_DEFAULTS: BlackoutParams = {
  nodes: [128],
  cuts: [1, 8, 32],
  outages: [16, 24, 33, 50, 65, 90, 130],
  profiles: PROFILE_NAMES,
  runs: 3,
  seed: 1,
};

/**
 * The quick subset: 32 of 128 cut off for 24 s (memberlist leaks, the corrections hold) and 1 cut
 * off for 16 s (safe for both), 1 run. 128 members as in the seed: with 64, half the cluster is cut
 * off, and even the default profile can lose a refutation in the reconnection storm.
 */
export const BLACKOUT_QUICK: BlackoutParams = {
  nodes: [128],
  cuts: [32, 1],
  outages: [24, 16],
  cells: [
    { cut: 32, outage: 24 },
    { cut: 1, outage: 16 },
  ],
  profiles: ['memberlist', 'default'],
  runs: 1,
  seed: 1,
};

export interface BlackoutRun {
  readonly seed: number;
  readonly cutMembers: readonly string[];
  /** `dead` verdicts about a healthy member made by healthy members: what the study counted. */
  readonly falseDeaths: number;
  /** Distinct healthy members behind `falseDeaths`. */
  readonly falseVictims: number;
  /** Timeout verdicts by cut-off members about healthy members within 2 s after the outage ended. */
  readonly overdueVerdicts: number;
  /** Of `overdueVerdicts`, those whose suspicion had at least one confirmation. */
  readonly overdueConfirmed: number;
  /** Every timeout verdict by a cut-off member about a healthy member, from the cut to the end. */
  readonly cutTimeoutVerdicts: number;
  readonly cutTimeoutVerdictsConfirmed: number;
  /** Verdicts by healthy members about cut-off members: correct for long outages, not counted. */
  readonly cutMemberDeaths: number;
  /** Healthy (observer, subject) pairs where the observer does not see the subject alive at the end. */
  readonly stillDeadAtEnd: number;
  /** `dead` events between convergence and the cut (a sanity check: should be 0). */
  readonly deathsBeforeCut: number;
  readonly convergedAtMs: number;
  readonly wallMs: number;
  /** Pre-formed clusters only: what forming it cost (setup.ts). */
  readonly formationCost?: FormationCost;
}

export interface BlackoutCell {
  readonly nodes: number;
  readonly cut: number;
  /** Seconds. */
  readonly outage: number;
  readonly profile: ProfileName;
  readonly runs: readonly BlackoutRun[];
  readonly meanFalseDeaths: number;
  readonly meanOverdueVerdicts: number;
}

export interface BlackoutResult {
  readonly experiment: 'blackout' | 'lifeguard-off';
  readonly params: BlackoutParams;
  /** Lifeguard's maximum suspicion timeout per cluster size and profile, in seconds (the dotted line). */
  readonly maxSuspicionS: Readonly<Record<number, Readonly<Partial<Record<ProfileName, number>>>>>;
  readonly cells: readonly BlackoutCell[];
}

/** One blackout run: the unit the matrix repeats. */
export function blackoutRun(options: {
  readonly nodes: number;
  readonly cut: number;
  /** Seconds. */
  readonly outage: number;
  readonly profile: ProfileName;
  readonly seed: number;
  readonly encrypt?: boolean;
  readonly formation?: Formation;
}): BlackoutRun {
  const started = wallNow();
  const config = options.encrypt === true ? encryptedBudget(profileConfig(options.profile)) : profileConfig(options.profile);
  const formation = options.formation === undefined ? {} : { formation: options.formation };
  const { sim, members, names, convergedAtMs, formationCost } = convergedCluster({ seed: options.seed, nodes: options.nodes, config, ...formation });
  const cut = new Set(pickMembers(options.seed, names, options.cut, CUT_SALT));
  const healthy = (name: string) => !cut.has(name);

  const recorder = recordDeaths(sim);
  // Deaths from convergence to now were not recorded; count them through the member tables instead.
  const deathsBeforeCut = members.reduce((n, m) => n + m.allMembers().filter((v) => v.state === 'dead').length, 0);

  sim.blackout([...cut]);
  sim.runFor(options.outage * 1000);
  sim.endBlackout([...cut]);
  const outageEnd = sim.now;
  sim.runFor(WATCH_MS);
  recorder.stop();

  let falseDeaths = 0;
  const victims = new Set<string>();
  let overdueVerdicts = 0;
  let overdueConfirmed = 0;
  let cutTimeoutVerdicts = 0;
  let cutTimeoutVerdictsConfirmed = 0;
  let cutMemberDeaths = 0;
  for (const e of recorder.deaths) {
    if (healthy(e.observer) && healthy(e.subject)) {
      falseDeaths++;
      victims.add(e.subject);
    } else if (healthy(e.observer)) {
      cutMemberDeaths++;
    } else if (healthy(e.subject) && e.cause?.kind === 'timeout') {
      const confirmed = e.cause.confirmations > 0;
      cutTimeoutVerdicts++;
      if (confirmed) cutTimeoutVerdictsConfirmed++;
      if (e.at >= outageEnd && e.at <= outageEnd + OVERDUE_WINDOW_MS) {
        overdueVerdicts++;
        if (confirmed) overdueConfirmed++;
      }
    }
  }

  let stillDeadAtEnd = 0;
  for (const observer of members) {
    if (!healthy(observer.name)) continue;
    for (const subject of names) {
      if (subject === observer.name || !healthy(subject)) continue;
      const state = observer.member(subject)?.state;
      if (state !== 'alive' && state !== 'suspect') stillDeadAtEnd++;
    }
  }

  return {
    seed: options.seed,
    cutMembers: [...cut],
    falseDeaths,
    falseVictims: victims.size,
    overdueVerdicts,
    overdueConfirmed,
    cutTimeoutVerdicts,
    cutTimeoutVerdictsConfirmed,
    cutMemberDeaths,
    stillDeadAtEnd,
    deathsBeforeCut,
    convergedAtMs,
    wallMs: wallNow() - started,
    ...(formationCost === undefined ? {} : { formationCost }),
  };
}

/** The (nodes, cut, outage, profile) cells of a matrix, in the order they run. */
export function blackoutCells(params: BlackoutParams): Array<{ nodes: number; cut: number; outage: number; profile: ProfileName }> {
  const pairs = params.cells ?? params.cuts.flatMap((cut) => params.outages.map((outage) => ({ cut, outage })));
  const cells = [];
  for (const nodes of params.nodes) {
    for (const { cut, outage } of pairs) {
      for (const profile of params.profiles) cells.push({ nodes, cut, outage, profile });
    }
  }
  return cells;
}

/** A cell of the matrix with its runs and their means. */
export function blackoutCell(cell: { nodes: number; cut: number; outage: number; profile: ProfileName }, runs: readonly BlackoutRun[]): BlackoutCell {
  return { ...cell, runs, meanFalseDeaths: mean(runs.map((r) => r.falseDeaths)), meanOverdueVerdicts: mean(runs.map((r) => r.overdueVerdicts)) };
}

/** Every cell × `runs` runs; seeds `seed … seed + runs − 1`, the same for every profile. */
export function runBlackout(params: BlackoutParams, hooks: ProgressHooks = silent, experiment: BlackoutResult['experiment'] = 'blackout'): BlackoutResult {
  for (const nodes of params.nodes) {
    for (const cell of params.cells ?? params.cuts.map((cut) => ({ cut }))) {
      if (cell.cut >= nodes) throw new RangeError(`cannot cut off ${cell.cut} of ${nodes} members`);
    }
  }
  const cells: BlackoutCell[] = [];
  for (const cell of blackoutCells(params)) {
    hooks.startCell(`n=${cell.nodes} cut=${cell.cut} outage=${cell.outage}s ${cell.profile}`);
    const runs = runSeeds(params.seed, params.runs).map((seed) => {
      const run = blackoutRun({ ...cell, seed, ...(params.encrypt === true ? { encrypt: true } : {}) });
      hooks.runDone();
      return run;
    });
    const done = blackoutCell(cell, runs);
    cells.push(done);
    const { meanFalseDeaths } = done;
    hooks.cellDone(`false deaths ${runs.map((r) => r.falseDeaths).join(', ')} (mean ${meanFalseDeaths.toFixed(1)}), overdue verdicts ${runs.map((r) => r.overdueVerdicts).join(', ')}`);
  }
  const maxSuspicionS: Record<number, Partial<Record<ProfileName, number>>> = {};
  for (const nodes of params.nodes) {
    const row: Partial<Record<ProfileName, number>> = {};
    for (const profile of params.profiles) row[profile] = suspicionBoundsMs(profileConfig(profile), nodes).maxMs / 1000;
    maxSuspicionS[nodes] = row;
  }
  return { experiment, params, maxSuspicionS, cells };
}

/** Runs the matrix will do, for the progress display. */
export function blackoutWork(params: BlackoutParams): { cells: number; runs: number } {
  const cells = blackoutCells(params).length;
  return { cells, runs: cells * params.runs };
}

/** `config` with the packet budget of a member behind secureTransport with a keyring. */
export function encryptedBudget(config: SwimConfig): SwimConfig {
  return { ...config, maxPacketBytes: config.maxPacketBytes - encryptionOverhead(1) };
}
