/**
 * `pnpm bench soak --simulator [flags]`: the simulated day of issue 29: a cluster under a seeded
 * nemesis for simulated hours, our defaults beside the memberlist profile, checked by the soak
 * invariant checker.
 */
import { spawnSync } from 'node:child_process';
import { failureDetectionBoundMs } from '@swim/core';
import { formatDuration } from '../../../stats.js';
import { runOwnFlagsExperiment } from '../../own-flags.js';
import { planFaults } from './nemesis.js';
import { antiEntropyBoundMs, parseSimulatedSoakArgs, SIMULATED_SOAK_USAGE, type SimulatedSoakOptions, type SimulatedSoakParams } from './params.js';
import { soakConfig } from './profiles.js';
import { simulatedSoakJson, simulatedSoakMarkdown, simulatedSoakSummary, simulatedSoakSvg, type SimulatedSoakResult } from './report.js';
import { runSoakDay } from './run.js';

/** `crash-long` stays down this much past the longest failure-detection bound of the profiles. */
export const LONG_DOWN_MARGIN_MS = 30_000;

/** The code version: `git rev-parse HEAD`, with `+dirty` when the worktree has changes; `unknown` outside git. */
export function codeVersion(): string {
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' });
  if (head.status !== 0) return 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' });
  return `${head.stdout.trim()}${dirty.stdout.trim() === '' ? '' : '+dirty'}`;
}

export async function runSimulatedSoak(params: SimulatedSoakParams, log: (line: string) => void = () => undefined): Promise<SimulatedSoakResult> {
  // Read before the run: the worktree may change while a long run goes on.
  const version = codeVersion();
  const longDownMs = Math.max(...params.profiles.map((p) => failureDetectionBoundMs(soakConfig(p), params.members))) + LONG_DOWN_MARGIN_MS;
  const plan = planFaults(params.seed, {
    members: params.members,
    durationMs: params.hours * 3_600_000,
    firstFaultMs: params.firstFaultMs,
    faultEveryMs: params.faultEveryMs,
    longDownMs,
    tagsEveryMs: params.tagsEveryMs,
    broadcastEveryMs: params.broadcastEveryMs,
  });
  const runs: SimulatedSoakResult['runs'][number][] = [];
  for (const profile of params.profiles) {
    const config = soakConfig(profile);
    const result = await runSoakDay({
      members: params.members,
      hours: params.hours,
      seed: params.seed,
      config,
      faults: plan.faults,
      loss: params.loss,
      convergenceBoundMs: params.convergenceBoundMs ?? antiEntropyBoundMs(config, params.members),
      onHour: (hour, wallMs, observations) => log(`soak ${profile}: simulated hour ${hour}/${params.hours} after ${formatDuration(wallMs)} wall, ${observations.toLocaleString('en-US')} events`),
    });
    log(`soak ${profile}: checked in ${formatDuration(result.checkWallMs)}; ${result.check.falseDeaths.falseVerdicts.length} false death verdicts`);
    runs.push({ profile, config, result });
  }
  return { experiment: 'soak-simulated', params, codeVersion: version, longDownMs, skippedFaults: plan.skipped, runs };
}

export function simulatedSoakMain(argv: readonly string[]): Promise<number> {
  return runOwnFlagsExperiment<SimulatedSoakOptions, SimulatedSoakResult>(
    {
      name: 'soak',
      usage: SIMULATED_SOAK_USAGE,
      parse: parseSimulatedSoakArgs,
      run: (options) => runSimulatedSoak(options.params, (line) => process.stderr.write(`${line}\n`)),
      summary: simulatedSoakSummary,
      json: simulatedSoakJson,
      markdown: simulatedSoakMarkdown,
      svg: simulatedSoakSvg,
    },
    argv,
  );
}
