/** `pnpm bench soak [flags]`: real encrypted agents under a seeded nemesis (issue 29). */
import { runOwnFlagsExperiment, userPath } from '../own-flags.js';
import { parseSoakArgs, SOAK_USAGE, type SoakOptions } from './params.js';
import { soakJson, soakMarkdown, soakSummary, soakSvg } from './report.js';
import { runSoak, type SoakResult } from './run.js';

export function soakMain(argv: readonly string[]): Promise<number> {
  return runOwnFlagsExperiment<SoakOptions, SoakResult>(
    {
      name: 'soak',
      usage: SOAK_USAGE,
      parse: parseSoakArgs,
      run: (options) => runSoak(options.params, userPath(options.out ?? 'apps/bench/results/soak')),
      summary: soakSummary,
      json: soakJson,
      markdown: soakMarkdown,
      svg: soakSvg,
      exitCode: (result) => (result.check.invariants.every((i) => i.violations === 0) ? 0 : 1),
    },
    argv,
  );
}
