/**
 * `pnpm bench restart [flags]`: restarting a running cluster (issue 28) on the simulator: a
 * rolling restart and whole-cluster restart waves, our defaults beside the memberlist profile.
 */
import { Progress } from '../../progress.js';
import { runOwnFlagsExperiment } from '../own-flags.js';
import { parseRestartArgs, RESTART_USAGE, restartCells, type RestartOptions, type RestartParams } from './params.js';
import { restartConfig, usesSnapshot } from './profiles.js';
import { restartJson, restartMarkdown, restartSummary, restartSvg, type RestartCell, type RestartResult } from './report.js';
import { runRestart } from './run.js';

export function runRestartGrid(params: RestartParams, progress: Progress): RestartResult {
  const cells: RestartCell[] = [];
  for (const key of restartCells(params)) {
    progress.startCell(`${key.scenario}, ${key.nodes} members, ${key.profile}`);
    const runs = [];
    for (let i = 0; i < key.runs; i++) {
      runs.push(
        runRestart({
          scenario: key.scenario,
          nodes: key.nodes,
          seed: params.seed + i,
          config: restartConfig(key.profile),
          schedule: params.schedule,
          limitMs: params.limitMs,
          snapshot: usesSnapshot(key.profile),
        }),
      );
      progress.runDone();
    }
    const worst = Math.max(...runs.map((r) => r.convergedAfterMs ?? Infinity));
    progress.cellDone(Number.isFinite(worst) ? `worst ${(worst / 1000).toFixed(1)} s` : 'not converged in a run');
    cells.push({ ...key, results: runs });
  }
  return { experiment: 'restart', params, cells };
}

export function restartMain(argv: readonly string[]): Promise<number> {
  return runOwnFlagsExperiment<RestartOptions, RestartResult>(
    {
      name: 'restart',
      usage: RESTART_USAGE,
      parse: parseRestartArgs,
      run: (options) => {
        const keys = restartCells(options.params);
        const progress = new Progress('restart', { cells: keys.length, runs: keys.reduce((n, k) => n + k.runs, 0) });
        try {
          return Promise.resolve(runRestartGrid(options.params, progress));
        } finally {
          progress.finish();
        }
      },
      summary: restartSummary,
      json: restartJson,
      markdown: restartMarkdown,
      svg: restartSvg,
    },
    argv,
  );
}
