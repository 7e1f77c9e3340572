/**
 * The shell of an experiment that takes its own flags (`pnpm bench attack`, `pnpm bench crypto`):
 * parse them (a bad one: exit 2 with a hint), print the usage for --help, run, print the summary,
 * and write `<name>.json` + `<name>.md` (+ `<name>.svg` if it draws one) for --out and the JSON for --json, with how it was run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeJson } from '../report/json.js';
import { formatDuration } from '../stats.js';
import type { RunInfo } from './index.js';

export interface OwnFlagsOptions {
  readonly help: boolean;
  readonly out?: string | undefined;
  readonly json?: string | undefined;
}

export interface OwnFlagsExperiment<O extends OwnFlagsOptions, R> {
  readonly name: string;
  readonly usage: string;
  parse(argv: readonly string[]): O;
  run(options: O): Promise<R>;
  summary(result: R): string;
  json(result: R, info: RunInfo): unknown;
  markdown(result: R, info: RunInfo): string;
  /** A chart, written as `<name>.svg` beside the JSON and Markdown for --out (optional). */
  svg?(result: R): string;
  /** The process's exit code for a finished run (default 0). */
  exitCode?(result: R): number;
}

/**
 * A numeric flag's value (its fallback when not given). What is wrong with it is added to
 * `problems` rather than thrown, so that one parse reports every bad flag at once.
 */
export function numberFlag(problems: string[], flag: string, raw: string | undefined, fallback: number, min: number, integer: boolean, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) problems.push(`--${flag}: "${raw}" is not a number`);
  else if (integer && !Number.isInteger(value)) problems.push(`--${flag}: "${raw}" is not a whole number`);
  else if (value < min) problems.push(`--${flag}: ${raw} must be at least ${min}`);
  else if (value > max) problems.push(`--${flag}: ${raw} must be at most ${max}`);
  return value;
}

/** Output paths are relative to where the user ran `pnpm bench` (pnpm runs scripts at the root). */
export function userPath(path: string): string {
  return resolve(process.env['INIT_CWD'] ?? process.cwd(), path);
}

export async function runOwnFlagsExperiment<O extends OwnFlagsOptions, R>(experiment: OwnFlagsExperiment<O, R>, argv: readonly string[]): Promise<number> {
  const { name } = experiment;
  let options: O;
  try {
    options = experiment.parse(argv);
  } catch (error) {
    process.stderr.write(`pnpm bench ${name}: ${(error as Error).message}\nRun \`pnpm bench ${name} --help\` for usage.\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${experiment.usage}\n`);
    return 0;
  }
  const command = `pnpm bench ${name} ${argv.filter((a) => a !== name && a !== '--').join(' ')}`.trim();
  const started = performance.now();
  const result = await experiment.run(options);
  const info: RunInfo = { command, date: new Date().toISOString(), node: process.version, wallMs: performance.now() - started };
  process.stdout.write(`\n# ${name} (${formatDuration(info.wallMs)})\n\n${experiment.summary(result)}\n`);
  if (options.out !== undefined) {
    const dir = userPath(options.out);
    mkdirSync(dir, { recursive: true });
    writeJson(join(dir, `${name}.json`), experiment.json(result, info));
    writeFileSync(join(dir, `${name}.md`), experiment.markdown(result, info));
    const svg = experiment.svg?.(result);
    if (svg !== undefined) writeFileSync(join(dir, `${name}.svg`), svg);
    process.stdout.write(`\nwrote ${join(dir, `${name}.json`)}, ${join(dir, `${name}.md`)}${svg === undefined ? '' : `, ${join(dir, `${name}.svg`)}`}\n`);
  }
  if (options.json !== undefined) {
    writeJson(userPath(options.json), experiment.json(result, info));
    process.stdout.write(`\nwrote ${userPath(options.json)}\n`);
  }
  return experiment.exitCode?.(result) ?? 0;
}
