/**
 * `pnpm bench scale [flags]`: the crash experiment and one blackout cell at 1,000 and 5,000
 * simulated members (issue 15), with `--json` / `--out` like the other experiments. The targets'
 * verdicts are reported, not enforced: the exit code is 0 whenever the runs finished.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isProfileName, type ProfileName } from '../../profiles.js';
import { writeJson } from '../../report/json.js';
import type { RunInfo } from '../index.js';
import { numberFlag, runOwnFlagsExperiment, userPath, type OwnFlagsOptions } from '../own-flags.js';
import type { Formation } from '../setup.js';
import { scaleFromJson, scaleJson, scaleMarkdown, scaleSummary } from './report.js';
import { runScale, SCALE_DEFAULTS, SCALE_EXPERIMENTS, SCALE_QUICK, type ScaleExperiment, type ScaleParams, type ScaleResult } from './run.js';
import { sourceState, type SourceState } from '../source-state.js';

const FORMATIONS: readonly Formation[] = ['pre-formed', 'joins'];
const D = SCALE_DEFAULTS;

export const SCALE_USAGE = `Usage: pnpm bench scale [flags]

The crash experiment (members crashed 5 s apart; time until the first and the last survivor
declare each dead) and one blackout cell (a quarter of the members cut off for ${D.outageS} s; healthy
members declared dead by healthy members) at large simulated cluster sizes, for the ${D.profiles.join(' and ')}
profiles. Issue 15's targets, at 5,000 members: every crash detected; 0 false deaths for default
while memberlist leaks.

Clusters are pre-formed by default: every member preloads every other alive (Simulation.formCluster),
so it starts converged with nothing to gossip, and settles 10 s: no join storm (one through one seed
took 270 s of wall time at 2,000 members). Above ~1,500 members run with
NODE_OPTIONS=--max-old-space-size=14336 (5,000 members: 25 million member entries).

Flags:
  --nodes LIST         cluster sizes, comma-separated (default ${D.nodes.join(',')})
  --runs R             runs per cell; run i uses seed S + i (default ${D.runs})
  --seed S             first seed (default ${D.seed})
  --crashes C          members crashed per crash run (default ${D.crashes})
  --profile LIST       profiles to compare (default ${D.profiles.join(',')})
  --formation F        pre-formed (default) or joins (every member joins n0 over the first second)
  --only E             crash or blackout alone (default: both)
  --quick              ${SCALE_QUICK.nodes.join(',')} members, ${SCALE_QUICK.crashes} crashes: a first look in about a minute
  --render PATH        rewrite the Markdown beside a scale.json from it (no run)
  --json PATH          write the results as JSON to PATH
  --out DIR            write scale.json and scale.md into DIR
  -h, --help           this text

Example:
  NODE_OPTIONS=--max-old-space-size=14336 pnpm bench scale --nodes 1000,5000 --out apps/bench/results`;

export interface ScaleOptions extends OwnFlagsOptions {
  readonly params: ScaleParams;
  /** A scale.json to rewrite the Markdown of (beside it), instead of running. */
  readonly render?: string | undefined;
}

/** Parse the flags after `scale`; throws an Error listing every problem, fit for the user. */
export function parseScaleArgs(argv: readonly string[]): ScaleOptions {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    options: {
      nodes: { type: 'string' },
      runs: { type: 'string' },
      seed: { type: 'string' },
      crashes: { type: 'string' },
      profile: { type: 'string' },
      formation: { type: 'string' },
      only: { type: 'string' },
      render: { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const problems: string[] = [];
  const extra = positionals.filter((p) => p !== 'scale');
  if (extra.length > 0) problems.push(`unexpected argument "${extra[0]}"`);
  const base = values.quick ? SCALE_QUICK : SCALE_DEFAULTS;
  const nodes = values.nodes === undefined ? base.nodes : values.nodes.split(',').map((raw) => numberFlag(problems, 'nodes', raw.trim(), 0, 4, true));
  if (new Set(nodes).size !== nodes.length) problems.push(`--nodes: a size is listed twice in "${values.nodes}"`);
  const crashes = numberFlag(problems, 'crashes', values.crashes, base.crashes, 1, true);
  for (const n of nodes) if (crashes >= n - 1) problems.push(`--crashes ${crashes}: must leave at least two survivors of ${n} members`);
  let profiles: readonly ProfileName[] = base.profiles;
  if (values.profile !== undefined) {
    const names = values.profile.split(',').map((p) => p.trim());
    const unknown = names.filter((p) => !isProfileName(p));
    if (unknown.length > 0) problems.push(`--profile: unknown profile "${unknown[0]}"`);
    else if (new Set(names).size !== names.length) problems.push('--profile: a profile is listed twice');
    else profiles = names as ProfileName[];
  }
  let formation = base.formation;
  if (values.formation !== undefined) {
    if ((FORMATIONS as readonly string[]).includes(values.formation)) formation = values.formation as Formation;
    else problems.push(`--formation: "${values.formation}" is not one of ${FORMATIONS.join(', ')}`);
  }
  let experiments = base.experiments;
  if (values.only !== undefined) {
    if ((SCALE_EXPERIMENTS as readonly string[]).includes(values.only)) experiments = [values.only as ScaleExperiment];
    else problems.push(`--only: "${values.only}" is not one of ${SCALE_EXPERIMENTS.join(', ')}`);
  }
  const params: ScaleParams = {
    ...base,
    nodes,
    runs: numberFlag(problems, 'runs', values.runs, base.runs, 1, true),
    seed: numberFlag(problems, 'seed', values.seed, base.seed, 0, true, 2 ** 32 - 1),
    crashes,
    profiles,
    formation,
    experiments,
  };
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { params, json: values.json, out: values.out, help: values.help, render: values.render };
}


/**
 * After each cell, the reports so far, marked partial, where --out and --json point: a run at
 * 5,000 members takes long enough to be worth keeping if it is stopped.
 */
function partialWriter(options: ScaleOptions, argv: readonly string[], source: SourceState | undefined): (partial: ScaleResult) => void {
  const started = performance.now();
  const command = `pnpm bench scale ${argv.filter((a) => a !== 'scale' && a !== '--').join(' ')}`.trim();
  return (result) => {
    const partial = withSource(result, source);
    const info: RunInfo = { command, date: new Date().toISOString(), node: process.version, wallMs: performance.now() - started };
    if (options.out !== undefined) {
      const dir = userPath(options.out);
      mkdirSync(dir, { recursive: true });
      writeJson(join(dir, 'scale.json'), scaleJson(partial, info));
      writeFileSync(join(dir, 'scale.md'), scaleMarkdown(partial, info));
    }
    if (options.json !== undefined) writeJson(userPath(options.json), scaleJson(partial, info));
  };
}

function withSource(result: ScaleResult, source: SourceState | undefined): ScaleResult {
  return source === undefined ? result : { ...result, source };
}

/** `--render PATH`: scale.md rewritten from scale.json by the current report code. */
function render(path: string): number {
  const json = userPath(path);
  const { result, info } = scaleFromJson(JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>);
  const md = json.replace(/\.json$/, '') + '.md';
  writeFileSync(md, scaleMarkdown(result, info));
  process.stdout.write(`wrote ${md}\n`);
  return 0;
}

export async function scaleMain(argv: readonly string[]): Promise<number> {
  let renderPath: string | undefined;
  try {
    renderPath = parseScaleArgs(argv).render;
  } catch {
    // runOwnFlagsExperiment reports it.
  }
  if (renderPath !== undefined) return render(renderPath);
  return runOwnFlagsExperiment<ScaleOptions, ScaleResult>(
    {
      name: 'scale',
      usage: SCALE_USAGE,
      parse: parseScaleArgs,
      run: async (options) => {
        const source = sourceState(/\/src\//);
        const result = await runScale(options.params, (line) => process.stderr.write(`scale: ${line}\n`), partialWriter(options, argv, source));
        return withSource(result, source);
      },
      summary: scaleSummary,
      json: scaleJson,
      markdown: scaleMarkdown,
    },
    argv,
  );
}
