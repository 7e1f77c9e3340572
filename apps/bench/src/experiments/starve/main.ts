/**
 * `pnpm bench starve [flags]`: real `swim agent` processes, k of them starved (event loop blocked
 * by a preloaded hook, or SIGSTOP / SIGCONT cycles), false positives read from every agent's log
 * (the Lifeguard paper's Figure 1).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { killAll } from '../attack/processes.js';
import type { RunInfo } from '../index.js';
import { runOwnFlagsExperiment, userPath } from '../own-flags.js';
import { parseStarveArgs, STARVE_USAGE, type StarveOptions } from './params.js';
import { starveJson, starveMarkdown, starveResultFromJson, starveSummary } from './report.js';
import { runStarve, type StarveResult } from './run.js';

/** `--render PATH`: the Markdown of a finished run again, from its JSON, with the run's own provenance. */
function render(path: string): number {
  const file = userPath(path);
  let document: Record<string, unknown>;
  try {
    document = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    process.stderr.write(`pnpm bench starve: --render ${path}: ${(error as Error).message}\n`);
    return 2;
  }
  const result = starveResultFromJson(document);
  const info: RunInfo = { command: String(document['command']), date: String(document['date']), node: String(document['node']), wallMs: Number(document['wallMs']) };
  const md = file.replace(/\.json$/, '') + '.md';
  writeFileSync(md, starveMarkdown(result, info));
  process.stdout.write(`${starveSummary(result)}\n\nwrote ${md}\n`);
  return 0;
}

export function starveMain(argv: readonly string[]): Promise<number> {
  const renderAt = argv.indexOf('--render');
  const renderEq = argv.find((a) => a.startsWith('--render='));
  const renderPath = renderEq?.slice('--render='.length) ?? (renderAt >= 0 ? argv[renderAt + 1] : undefined);
  if (renderPath !== undefined) return Promise.resolve(render(renderPath));
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
