/**
 * `pnpm bench starve [flags]`: real `swim agent` processes, k of them CPU-starved by SIGSTOP /
 * SIGCONT cycles, false positives read from every agent's log (the Lifeguard paper's Figure 1).
 */
import { killAll } from '../attack/processes.js';
import { runOwnFlagsExperiment } from '../own-flags.js';
import { parseStarveArgs, STARVE_USAGE, type StarveOptions } from './params.js';
import { starveJson, starveMarkdown, starveSummary } from './report.js';
import { runStarve, type StarveResult } from './run.js';

export function starveMain(argv: readonly string[]): Promise<number> {
  // Agents run in sessions of their own, so they are SIGKILLed on the way out, whatever ends the
  // bench; a stopped one is never left behind.
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const)[signal]);
    });
  }
  return runOwnFlagsExperiment<StarveOptions, StarveResult>(
    {
      name: 'starve',
      usage: STARVE_USAGE,
      parse: parseStarveArgs,
      run: (options) => runStarve(options.params, (line) => process.stderr.write(`${line}\n`)),
      summary: starveSummary,
      json: starveJson,
      markdown: starveMarkdown,
    },
    argv,
  );
}
