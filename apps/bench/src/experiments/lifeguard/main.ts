/**
 * `pnpm bench lifeguard [flags]`: the Lifeguard paper's Threshold and Interval experiments
 * (arXiv 1707.00788, §V) on the simulator, each Lifeguard component on its own, beside the paper's
 * Tables IV-VI.
 */
import { Progress } from '../../progress.js';
import { runOwnFlagsExperiment } from '../own-flags.js';
import { LIFEGUARD_USAGE, parseLifeguardArgs, type LifeguardOptions } from './params.js';
import { lifeguardJson, lifeguardMarkdown, lifeguardSummary, lifeguardSvg } from './report.js';
import { lifeguardWork, runLifeguard, type LifeguardResult } from './run.js';

export function lifeguardMain(argv: readonly string[]): Promise<number> {
  return runOwnFlagsExperiment<LifeguardOptions, LifeguardResult>(
    {
      name: 'lifeguard',
      usage: LIFEGUARD_USAGE,
      parse: parseLifeguardArgs,
      run: (options) => {
        const progress = new Progress('lifeguard', lifeguardWork(options.params));
        try {
          return Promise.resolve(runLifeguard(options.params, progress));
        } finally {
          progress.finish();
        }
      },
      summary: lifeguardSummary,
      json: lifeguardJson,
      markdown: lifeguardMarkdown,
      svg: lifeguardSvg,
    },
    argv,
  );
}
