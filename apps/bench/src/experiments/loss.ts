import { PROFILE_NAMES, profileConfig, type ProfileName } from '../profiles.js';
import { mean } from '../stats.js';
import { silent, type ProgressHooks } from './hooks.js';
import { convergedCluster, recordDeaths, runSeeds, wallNow } from './setup.js';

/**
 * Uniform packet loss after convergence (streams are not dropped, as in the study's test network),
 * for a number of simulated minutes: false deaths per profile, with the fallback stream ping on and
 * off. The corrections study found none over 10 minutes at 30% and 40% loss with the fallback ping,
 * where its simulation without it had 0.16 per node-hour at 40%.
 */

export interface LossParams {
  readonly nodes: readonly number[];
  readonly losses: readonly number[];
  readonly minutes: number;
  readonly profiles: readonly ProfileName[];
  /** Fallback stream ping settings to compare. */
  readonly fallback: readonly boolean[];
  readonly runs: number;
  readonly seed: number;
}

export const LOSS_DEFAULTS: LossParams = { nodes: [128], losses: [0.3, 0.4], minutes: 10, profiles: PROFILE_NAMES, fallback: [true, false], runs: 3, seed: 1 };
export const LOSS_QUICK: LossParams = { nodes: [128], losses: [0.4], minutes: 1, profiles: ['memberlist', 'default'], fallback: [true, false], runs: 1, seed: 1 };

export interface LossRun {
  readonly seed: number;
  /** Every `dead` verdict (all members are healthy here). */
  readonly falseDeaths: number;
  /** Distinct (member, incarnation) pairs declared dead: members wrongly killed. */
  readonly falseVictims: number;
  /** Suspicions raised, for scale. */
  readonly suspicions: number;
  readonly nodeHours: number;
  readonly wallMs: number;
}

export interface LossCell {
  readonly nodes: number;
  readonly loss: number;
  readonly fallback: boolean;
  readonly profile: ProfileName;
  readonly minutes: number;
  readonly runs: readonly LossRun[];
  readonly meanFalseDeaths: number;
  /** Total false deaths / total node-hours over the runs. */
  readonly falseDeathsPerNodeHour: number;
  readonly falseVictimsPerNodeHour: number;
}

export interface LossResult {
  readonly experiment: 'loss';
  readonly params: LossParams;
  readonly cells: readonly LossCell[];
}

export function lossRun(options: {
  readonly nodes: number;
  readonly loss: number;
  readonly minutes: number;
  readonly fallback: boolean;
  readonly profile: ProfileName;
  readonly seed: number;
}): LossRun {
  const started = wallNow();
  const config = { ...profileConfig(options.profile), fallbackStreamPing: options.fallback };
  const { sim } = convergedCluster({ seed: options.seed, nodes: options.nodes, config });
  const recorder = recordDeaths(sim);
  let suspicions = 0;
  const stopSuspects = sim.onEvent((e) => {
    if (e.kind === 'suspect') suspicions++;
  });
  sim.setLoss(options.loss);
  sim.runFor(options.minutes * 60_000);
  recorder.stop();
  stopSuspects();
  const victims = new Set(recorder.deaths.map((e) => `${e.subject}@${e.incarnation}`));
  return {
    seed: options.seed,
    falseDeaths: recorder.deaths.length,
    falseVictims: victims.size,
    suspicions,
    nodeHours: (options.nodes * options.minutes) / 60,
    wallMs: wallNow() - started,
  };
}

export function lossCells(params: LossParams): Array<{ nodes: number; loss: number; fallback: boolean; profile: ProfileName }> {
  const cells = [];
  for (const nodes of params.nodes) {
    for (const loss of params.losses) {
      for (const fallback of params.fallback) {
        for (const profile of params.profiles) cells.push({ nodes, loss, fallback, profile });
      }
    }
  }
  return cells;
}

export function runLoss(params: LossParams, hooks: ProgressHooks = silent): LossResult {
  const cells: LossCell[] = [];
  for (const cell of lossCells(params)) {
    hooks.startCell(`n=${cell.nodes} loss=${cell.loss} fallback ${cell.fallback ? 'on' : 'off'} ${cell.profile}`);
    const runs = runSeeds(params.seed, params.runs).map((seed) => {
      const run = lossRun({ ...cell, minutes: params.minutes, seed });
      hooks.runDone();
      return run;
    });
    const nodeHours = runs.reduce((s, r) => s + r.nodeHours, 0);
    const falseDeaths = runs.reduce((s, r) => s + r.falseDeaths, 0);
    const falseVictims = runs.reduce((s, r) => s + r.falseVictims, 0);
    cells.push({
      ...cell,
      minutes: params.minutes,
      runs,
      meanFalseDeaths: mean(runs.map((r) => r.falseDeaths)),
      falseDeathsPerNodeHour: falseDeaths / nodeHours,
      falseVictimsPerNodeHour: falseVictims / nodeHours,
    });
    hooks.cellDone(`false deaths ${runs.map((r) => r.falseDeaths).join(', ')}, victims per node-hour ${(falseVictims / nodeHours).toFixed(3)}`);
  }
  return { experiment: 'loss', params, cells };
}

export function lossWork(params: LossParams): { cells: number; runs: number } {
  const cells = lossCells(params).length;
  return { cells, runs: cells * params.runs };
}
