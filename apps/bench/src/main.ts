/**
 * `pnpm bench <experiment> [flags]`: the experiments that reproduce the corrections study on the
 * deterministic simulator, and the simulator's speed. See `pnpm bench --help`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, parseArgs, usage, type CliOptions } from './cli.js';
import { adaptiveWork, runAdaptive, type AdaptiveParams } from './experiments/adaptive.js';
import { attackMain } from './experiments/attack/main.js';
import { blackoutWork, runBlackout, type BlackoutParams } from './experiments/blackout.js';
import { crashWork, runCrash, type CrashParams } from './experiments/crash.js';
import { cryptoMain } from './experiments/crypto/main.js';
import { detectorsWork, runDetectors, type DetectorsParams } from './experiments/detectors/run.js';
import type { ExperimentResult, RunInfo } from './experiments/index.js';
import { runLifeguardOff } from './experiments/lifeguard-off.js';
import { lifeguardMain } from './experiments/lifeguard/main.js';
import { starveMain } from './experiments/starve/main.js';
import { udpScaleMain } from './experiments/udp-scale/main.js';
import { gatewayMain } from './experiments/gateway/main.js';
import { scaleMain } from './experiments/scale/main.js';
import { restartMain } from './experiments/restart/main.js';
import { soakMain as agentSoakMain } from './experiments/soak/main.js';
import { simulatedSoakMain } from './experiments/soak/simulated/main.js';
import { lossWork, runLoss, type LossParams } from './experiments/loss.js';
import { runSpeed, speedWork, type SpeedParams } from './experiments/speed.js';
import { ALL, resolveParams, type SimExperiment } from './params.js';
import { Progress } from './progress.js';
import { toJson, writeJson } from './report/json.js';
import { summaryMarkdown, toMarkdown } from './report/markdown.js';
import { toSvg } from './report/svg.js';
import { formatDuration } from './stats.js';

async function runOne(name: SimExperiment, options: CliOptions, inAll: boolean): Promise<ExperimentResult> {
  const params = resolveParams(name, options, inAll);
  const work = () => {
    switch (name) {
      case 'blackout':
      case 'lifeguard-off':
        return blackoutWork(params as BlackoutParams);
      case 'crash':
        return crashWork(params as CrashParams);
      case 'loss':
        return lossWork(params as LossParams);
      case 'speed':
        return speedWork(params as SpeedParams);
      case 'detectors':
        return detectorsWork(params as DetectorsParams);
      case 'adaptive':
        return adaptiveWork(params as AdaptiveParams);
    }
  };
  const progress = new Progress(name, work());
  try {
    switch (name) {
      case 'blackout':
        return runBlackout(params as BlackoutParams, progress);
      case 'lifeguard-off':
        return runLifeguardOff(params as BlackoutParams, progress);
      case 'crash':
        return runCrash(params as CrashParams, progress);
      case 'loss':
        return runLoss(params as LossParams, progress);
      case 'speed':
        return await runSpeed(params as SpeedParams, progress);
      case 'detectors':
        return runDetectors(params as DetectorsParams, progress);
      case 'adaptive':
        return runAdaptive(params as AdaptiveParams, progress);
    }
  } finally {
    progress.finish();
  }
}

/** Output paths are relative to where the user ran `pnpm bench` (pnpm runs scripts at the root). */
function userPath(path: string): string {
  return resolve(process.env['INIT_CWD'] ?? process.cwd(), path);
}

function writeOutputs(dir: string, result: ExperimentResult, info: RunInfo): string[] {
  const out = userPath(dir);
  mkdirSync(out, { recursive: true });
  const files = [join(out, `${result.experiment}.json`), join(out, `${result.experiment}.md`), join(out, `${result.experiment}.svg`)];
  writeJson(files[0]!, toJson(result, info));
  writeFileSync(files[1]!, toMarkdown(result, info));
  writeFileSync(files[2]!, toSvg(result));
  return files;
}

/** `pnpm bench core`: the core's throughput benchmark, as a child process. */
function runCoreBench(): number {
  const script = fileURLToPath(new URL('../../../packages/core/bench/throughput.ts', import.meta.url));
  const child = spawnSync(process.execPath, [...process.execArgv, script], { stdio: 'inherit' });
  if (child.error) throw child.error;
  return child.status ?? 1;
}

async function main(argv: readonly string[]): Promise<number> {
  let options: CliOptions;
  try {
    options = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    const hint = argv.length === 0 ? `\n${usage()}\n` : 'Run `pnpm bench --help` for usage.\n';
    process.stderr.write(`pnpm bench: ${error.message}\n${hint}`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  if (options.experiment === 'core') return runCoreBench();
  if (options.experiment === 'attack') throw new Error('attack is routed to attackMain before parsing');
  if (options.experiment === 'crypto') throw new Error('crypto is routed to cryptoMain before parsing');
  if (options.experiment === 'lifeguard') throw new Error('lifeguard is routed to lifeguardMain before parsing');
  if (options.experiment === 'starve') throw new Error('starve is routed to starveMain before parsing');
  if (options.experiment === 'udp-scale') throw new Error('udp-scale is routed to udpScaleMain before parsing');
  if (options.experiment === 'scale') throw new Error('scale is routed to scaleMain before parsing');
  if (options.experiment === 'restart') throw new Error('restart is routed to restartMain before parsing');
  if (options.experiment === 'soak') throw new Error('soak is routed to soakMain before parsing');
  if (options.experiment === 'gateway') throw new Error('gateway is routed to gatewayMain before parsing');

  const command = `pnpm bench ${argv.join(' ')}`.trim();
  const started = performance.now();
  const names = options.experiment === 'all' ? ALL : [options.experiment];
  const documents: Array<Record<string, unknown>> = [];
  for (const name of names) {
    const t0 = performance.now();
    const result = await runOne(name, options, options.experiment === 'all');
    const info: RunInfo = { command, date: new Date().toISOString(), node: process.version, wallMs: performance.now() - t0 };
    process.stdout.write(`\n# ${name} (${formatDuration(info.wallMs)})\n\n${summaryMarkdown(result)}\n`);
    documents.push(toJson(result, info));
    if (options.out !== undefined) {
      const files = writeOutputs(options.out, result, info);
      process.stdout.write(`\nwrote ${files.join(', ')}\n`);
    }
  }
  const totalMs = performance.now() - started;
  if (options.json !== undefined) {
    const path = userPath(options.json);
    const document =
      documents.length === 1
        ? documents[0]
        : { experiment: 'all', command, date: new Date().toISOString(), node: process.version, wallMs: Math.round(totalMs), results: documents };
    writeJson(path, document);
    process.stdout.write(`\nwrote ${path}\n`);
  }
  process.stdout.write(`\ntotal wall time ${formatDuration(totalMs)}\n`);
  return 0;
}

/** `pnpm bench soak`: real agents (issue 29); with --simulator the simulated day. */
function soakMain(argv: readonly string[]): Promise<number> {
  return argv.includes('--simulator') ? simulatedSoakMain(argv) : agentSoakMain(argv);
}

const argv = process.argv.slice(2);
// The attack suite and the crypto bench run real processes (asynchronously) and parse their own flags, as do lifeguard, starve and udp-scale.
const experiment = argv.find((a) => !a.startsWith('-'));
if (experiment === 'attack') process.exitCode = await attackMain(argv);
else if (experiment === 'crypto') process.exitCode = await cryptoMain(argv);
else if (experiment === 'lifeguard') process.exitCode = await lifeguardMain(argv);
else if (experiment === 'starve') process.exitCode = await starveMain(argv);
else if (experiment === 'udp-scale') process.exitCode = await udpScaleMain(argv);
else if (experiment === 'scale') process.exitCode = await scaleMain(argv);
else if (experiment === 'restart') process.exitCode = await restartMain(argv);
else if (experiment === 'soak') process.exitCode = await soakMain(argv);
else if (experiment === 'gateway') process.exitCode = await gatewayMain(argv);
else process.exitCode = await main(argv);
