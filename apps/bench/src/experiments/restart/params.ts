import { parseArgs } from 'node:util';
import { numberFlag, type OwnFlagsOptions } from '../own-flags.js';
import { isRestartProfile, MAIN_PROFILES, RESTART_PROFILES, SMALL_MAX_NODES, type RestartProfile } from './profiles.js';
import { JOIN_SEEDS } from './run.js';
import { SCENARIOS, SCHEDULE_DEFAULTS, type Scenario, type ScheduleParams } from './schedule.js';

export interface RestartParams {
  readonly nodes: readonly number[];
  /** Runs per cell up to {@link SMALL_MAX_NODES} members; run i uses seed + i. */
  readonly runs: number;
  /** Runs per cell above {@link SMALL_MAX_NODES} members (a 1,000-member wave takes minutes of wall time). */
  readonly largeRuns: number;
  readonly seed: number;
  readonly scenarios: readonly Scenario[];
  readonly profiles: readonly RestartProfile[];
  /** Above {@link SMALL_MAX_NODES} members only these scenarios and the main profiles run. */
  readonly largeScenarios: readonly Scenario[];
  /** Give up on convergence this long after the last restart, ms. */
  readonly limitMs: number;
  readonly schedule: ScheduleParams;
}

export const RESTART_DEFAULTS: RestartParams = {
  nodes: [48, 128, 1000],
  runs: 3,
  largeRuns: 2,
  seed: 1,
  scenarios: SCENARIOS,
  profiles: RESTART_PROFILES,
  largeScenarios: ['rolling', 'wave'],
  limitMs: 240_000,
  schedule: SCHEDULE_DEFAULTS,
};

/** `--quick`: 48 members, every scenario and profile, 2 runs: a few seconds. */
export const RESTART_QUICK: RestartParams = { ...RESTART_DEFAULTS, nodes: [48], runs: 2 };

export interface RestartOptions extends OwnFlagsOptions {
  readonly params: RestartParams;
}

/** One cell of the grid: a size, a scenario, a profile, and how many runs. */
export interface RestartCellKey {
  readonly nodes: number;
  readonly scenario: Scenario;
  readonly profile: RestartProfile;
  readonly runs: number;
}

/** The cells `params` asks for, in report order. */
export function restartCells(params: RestartParams): RestartCellKey[] {
  const cells: RestartCellKey[] = [];
  for (const nodes of params.nodes) {
    const large = nodes > SMALL_MAX_NODES;
    for (const scenario of params.scenarios) {
      if (large && !params.largeScenarios.includes(scenario)) continue;
      for (const profile of params.profiles) {
        if (large && !MAIN_PROFILES.includes(profile)) continue;
        cells.push({ nodes, scenario, profile, runs: large ? params.largeRuns : params.runs });
      }
    }
  }
  return cells;
}

export const RESTART_USAGE = `Usage: pnpm bench restart [flags]

Restarting a running cluster on the deterministic simulator (issue 28). A pre-formed cluster
settles, then every member is killed (kill -9) and started again once as a fresh process
(Simulation.restart: incarnation 1, an empty table, unless restored from a snapshot), joining
through ${JOIN_SEEDS} running members:
  rolling    one member at a time, in a random order, down ${SCHEDULE_DEFAULTS.rollingDownMs[0] / 1000}-${SCHEDULE_DEFAULTS.rollingDownMs[1] / 1000} s (log-uniform), the next one
             stopped ${SCHEDULE_DEFAULTS.rollingGapMs / 1000} s after; seeds: random running members
  wave       every member crashes within ${SCHEDULE_DEFAULTS.waveSpreadMs / 1000} s, down ${SCHEDULE_DEFAULTS.waveDownMs[0] / 1000}-${SCHEDULE_DEFAULTS.waveDownMs[1] / 1000} s (log-uniform); seeds: the
             running members that restarted last (they never heard of its death)
  wave-long  the issue's report: every member crashes within ${SCHEDULE_DEFAULTS.longWaveSpreadMs / 1000} s, down ${SCHEDULE_DEFAULTS.longWaveDownMs[0] / 1000}-${SCHEDULE_DEFAULTS.longWaveDownMs[1] / 1000} s (uniform); seeds as wave
Per run: time after the last restart until every running member sees every other alive, stale
pair-seconds (a running member holding another running member dead or left), the longest stale
pair, and the running members held dead or left at or above their own incarnation.
Above ${SMALL_MAX_NODES} members only ${MAIN_PROFILES.join(' and ')} run, ${RESTART_DEFAULTS.largeScenarios.join(' and ')} only, with --large-runs runs.

Flags:
  --nodes LIST       cluster sizes (default ${RESTART_DEFAULTS.nodes.join(',')})
  --scenario LIST    ${SCENARIOS.join(', ')} (default all)
  --profile LIST     ${RESTART_PROFILES.join(', ')} (default all)
  --runs R           runs per cell up to ${SMALL_MAX_NODES} members; run i uses seed S + i (default ${RESTART_DEFAULTS.runs})
  --large-runs R     runs per cell above ${SMALL_MAX_NODES} members (default ${RESTART_DEFAULTS.largeRuns})
  --seed S           first seed (default ${RESTART_DEFAULTS.seed})
  --limit-s T        give up on convergence T s after the last restart (default ${RESTART_DEFAULTS.limitMs / 1000})
  --quick            ${RESTART_QUICK.nodes.join(',')} members, ${RESTART_QUICK.runs} runs: seconds
  --json PATH        write the results as JSON to PATH
  --out DIR          write restart.json, .md and .svg into DIR
  -h, --help         this text`;

/** Parse the flags after `restart`; throws an Error listing every problem. */
export function parseRestartArgs(argv: readonly string[]): RestartOptions {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    options: {
      nodes: { type: 'string' },
      scenario: { type: 'string' },
      profile: { type: 'string' },
      runs: { type: 'string' },
      'large-runs': { type: 'string' },
      seed: { type: 'string' },
      'limit-s': { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const problems: string[] = [];
  const extra = positionals.filter((p) => p !== 'restart');
  if (extra.length > 0) problems.push(`unexpected argument "${extra[0]}"`);
  const base = values.quick ? RESTART_QUICK : RESTART_DEFAULTS;
  const list = <T>(flag: string, raw: string | undefined, fallback: readonly T[], item: (s: string) => T | undefined): readonly T[] => {
    if (raw === undefined) return fallback;
    const items = raw.split(',').map((s) => s.trim());
    if (new Set(items).size !== items.length) problems.push(`--${flag}: a value is listed twice in "${raw}"`);
    const out: T[] = [];
    for (const s of items) {
      const value = item(s);
      if (value !== undefined) out.push(value);
    }
    return out;
  };
  const nodes = list('nodes', values.nodes, base.nodes, (s) => {
    const n = numberFlag(problems, 'nodes', s, 0, 3, true, 10_000);
    return Number.isInteger(n) && n >= 3 && n <= 10_000 ? n : undefined;
  });
  const scenarios = list('scenario', values.scenario, base.scenarios, (s) => {
    if ((SCENARIOS as readonly string[]).includes(s)) return s as Scenario;
    problems.push(`--scenario: "${s}" is not one of ${SCENARIOS.join(', ')}`);
    return undefined;
  });
  const profiles = list('profile', values.profile, base.profiles, (s) => {
    if (isRestartProfile(s)) return s;
    problems.push(`--profile: "${s}" is not one of ${RESTART_PROFILES.join(', ')}`);
    return undefined;
  });
  const params: RestartParams = {
    ...base,
    nodes,
    scenarios,
    profiles,
    runs: numberFlag(problems, 'runs', values.runs, base.runs, 1, true, 1000),
    largeRuns: numberFlag(problems, 'large-runs', values['large-runs'], base.largeRuns, 1, true, 1000),
    seed: numberFlag(problems, 'seed', values.seed, base.seed, 0, true, 2 ** 32 - 1),
    limitMs: numberFlag(problems, 'limit-s', values['limit-s'], base.limitMs / 1000, 1, false, 3600) * 1000,
  };
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { params, json: values.json, out: values.out, help: values.help };
}
