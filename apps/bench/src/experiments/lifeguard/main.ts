/**
 * `pnpm bench lifeguard [flags]`: the Lifeguard paper's Threshold and Interval experiments
 * (arXiv 1707.00788, §V) on the simulator, each Lifeguard component on its own, beside the paper's
 * Tables IV-VI.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Progress } from '../../progress.js';
import type { RunInfo } from '../index.js';
import { runOwnFlagsExperiment, userPath } from '../own-flags.js';
import { LIFEGUARD_USAGE, parseLifeguardArgs, type LifeguardOptions } from './params.js';
import { lifeguardJson, lifeguardMarkdown, lifeguardSummary, lifeguardSvg, resultFromJson } from './report.js';
import { lifeguardWork, runLifeguard, type LifeguardResult } from './run.js';

/** `--render PATH`: the Markdown and SVG of a finished run again, from its JSON, with the run's own provenance. */
function render(path: string): number {
  const file = userPath(path);
  let document: Record<string, unknown>;
  try {
    document = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    process.stderr.write(`pnpm bench lifeguard: --render ${path}: ${(error as Error).message}\n`);
    return 2;
  }
  const result = resultFromJson(document);
  const info: RunInfo = { command: String(document['command']), date: String(document['date']), node: String(document['node']), wallMs: Number(document['wallMs']) };
  // Beside the JSON, under its name: lifeguard.json gives lifeguard.md and lifeguard.svg.
  const base = file.replace(/\.json$/, '');
  writeFileSync(`${base}.md`, lifeguardMarkdown(result, info));
  writeFileSync(`${base}.svg`, lifeguardSvg(result));
  process.stdout.write(`${lifeguardSummary(result)}\n\nwrote ${base}.md, ${base}.svg\n`);
  return 0;
}

export function lifeguardMain(argv: readonly string[]): Promise<number> {
  const renderAt = argv.indexOf('--render');
  const renderEq = argv.find((a) => a.startsWith('--render='));
  const renderPath = renderEq?.slice('--render='.length) ?? (renderAt >= 0 ? argv[renderAt + 1] : undefined);
  if (renderPath !== undefined) return Promise.resolve(render(renderPath));
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
