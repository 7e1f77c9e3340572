import { parseArgs } from 'node:util';
import type { OwnFlagsOptions } from '../own-flags.js';
import { isLifeguardProfile, LIFEGUARD_PROFILES, type LifeguardProfile } from './profiles.js';

/** The Lifeguard paper's grid (arXiv 1707.00788 §V-D/E). */
export const PAPER_CONCURRENCY = [1, 4, 8, 12, 16, 20, 24, 28, 32] as const;
/** Anomaly lengths D, ms (§V-E); --anomaly-ms takes any others. */
export const PAPER_ANOMALY_MS = [128, 512, 2048, 8192, 16384, 32768] as const;
/** Normal time I between anomalies (Interval experiment), ms. */
export const PAPER_NORMAL_MS = [1, 4, 16, 64, 256, 1024, 4096, 16384] as const;

/** Which of the paper's two experiments to run. */
export type LifeguardPhase = 'threshold' | 'interval';
export const PHASES: readonly LifeguardPhase[] = ['threshold', 'interval'];

export interface IntervalCellKey {
  readonly concurrency: number;
  readonly anomalyMs: number;
  readonly normalMs: number;
}

export interface LifeguardParams {
  readonly nodes: number;
  readonly runs: number;
  readonly seed: number;
  readonly profiles: readonly LifeguardProfile[];
  readonly phases: readonly LifeguardPhase[];
  /** C: members anomalous at once. */
  readonly concurrency: readonly number[];
  /** D: anomaly lengths, ms. */
  readonly anomalyMs: readonly number[];
  /** I: normal time between anomalies (Interval only), ms. */
  readonly normalMs: readonly number[];
  /** Explicit Interval cells instead of concurrency × anomalyMs × normalMs (the quick subset). */
  readonly intervalCells?: ReadonlyArray<IntervalCellKey>;
  /** Quiet time after convergence before the first anomaly, ms (paper: 15 s). */
  readonly quiesceMs: number;
  /** Threshold: give up on full recovery this long after the anomaly starts; Interval: cycles last at least this long (paper: 120 s). */
  readonly windowMs: number;
}

export const LIFEGUARD_DEFAULTS: LifeguardParams = {
  nodes: 128,
  runs: 10,
  seed: 1,
  profiles: LIFEGUARD_PROFILES,
  phases: PHASES,
  concurrency: PAPER_CONCURRENCY,
  anomalyMs: PAPER_ANOMALY_MS,
  normalMs: PAPER_NORMAL_MS,
  quiesceMs: 15_000,
  windowMs: 120_000,
};

/**
 * `--quick`: a minute or two on one core. Threshold at C 1 and 8 for 16.4 s (long enough to be
 * detected at α 5); Interval at C 8 with 16.4 s anomalies (longer than the 10.5 s suspicion
 * minimum, so SWIM's cut members declare healthy ones dead) and 1 s of normal time, 1 run each.
 */
export const LIFEGUARD_QUICK: LifeguardParams = {
  ...LIFEGUARD_DEFAULTS,
  runs: 1,
  concurrency: [1, 8],
  anomalyMs: [16384],
  normalMs: [1024],
  intervalCells: [{ concurrency: 8, anomalyMs: 16384, normalMs: 1024 }],
};

export interface LifeguardOptions extends OwnFlagsOptions {
  readonly params: LifeguardParams;
  /** Re-render the Markdown and SVG of this JSON report instead of running. */
  readonly render?: string | undefined;
}

export const LIFEGUARD_USAGE = `Usage: pnpm bench lifeguard [flags]

The Lifeguard paper's evaluation (Dadgar, Phillips, Currey, arXiv 1707.00788, §V) on the
deterministic simulator: N members, C of them cut off (every packet to or from them held, their
timers running) for D ms at once.
  Threshold: ${LIFEGUARD_DEFAULTS.quiesceMs / 1000} s quiet, one anomaly, then until every member sees every other alive
             (or ${LIFEGUARD_DEFAULTS.windowMs / 1000} s): first-detection and full-dissemination latency of the cut members.
  Interval:  ${LIFEGUARD_DEFAULTS.quiesceMs / 1000} s quiet, then anomaly D / normal I cycles for at least ${LIFEGUARD_DEFAULTS.windowMs / 1000} s:
             false positives, messages and bytes.
FP = a dead event about a member never cut off, at any member; FP- = such an event at a member
never cut off either. Counts are reported as % of the swim profile, beside the paper's Tables IV-VI.

Flags:
  --profile LIST       ${LIFEGUARD_PROFILES.join(', ')} (default all)
  --phase LIST         threshold, interval (default both)
  --nodes N            cluster size (default ${LIFEGUARD_DEFAULTS.nodes}, as the paper)
  --concurrency LIST   C, members cut off at once (default ${LIFEGUARD_DEFAULTS.concurrency.join(',')})
  --anomaly-ms LIST    D, anomaly lengths in ms (default ${LIFEGUARD_DEFAULTS.anomalyMs.join(',')})
  --normal-ms LIST     I, normal time between anomalies in ms, Interval only (default ${LIFEGUARD_DEFAULTS.normalMs.join(',')})
  --runs R             runs per cell; run i uses seed S + i (default ${LIFEGUARD_DEFAULTS.runs}, as the paper)
  --seed S             first seed (default ${LIFEGUARD_DEFAULTS.seed})
  --quick              Threshold C ${LIFEGUARD_QUICK.concurrency.join(',')} x D ${LIFEGUARD_QUICK.anomalyMs.join(',')}; Interval C 8, D 16384, I 1024; 1 run
  --json PATH          write the results as JSON to PATH
  --out DIR            write lifeguard.json, .md and .svg into DIR
  --render PATH        no run: write the .md and .svg of the JSON report at PATH again, beside it
                       under its name (the report's text from this version of the code, the
                       figures from the JSON)
  -h, --help           this text

The default is the paper's whole grid with 10 runs: hours of CPU. Narrow it, e.g.
  pnpm bench lifeguard --quick
  pnpm bench lifeguard --concurrency 1,8,32 --anomaly-ms 2048,16384 --normal-ms 16,1024 --runs 2 --out apps/bench/results`;

/** Parse the flags after `lifeguard`; throws an Error listing every problem, fit for the user. */
export function parseLifeguardArgs(argv: readonly string[]): LifeguardOptions {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    options: {
      profile: { type: 'string' },
      phase: { type: 'string' },
      nodes: { type: 'string' },
      concurrency: { type: 'string' },
      'anomaly-ms': { type: 'string' },
      'normal-ms': { type: 'string' },
      runs: { type: 'string' },
      seed: { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      out: { type: 'string' },
      render: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const problems: string[] = [];
  const extra = positionals.filter((p) => p !== 'lifeguard');
  if (extra.length > 0) problems.push(`unexpected argument "${extra[0]}"`);
  const base = values.quick ? LIFEGUARD_QUICK : LIFEGUARD_DEFAULTS;
  const int = (flag: string, raw: string, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const value = Number(raw);
    if (raw.trim() === '' || !/^\d+$/.test(raw.trim())) problems.push(`--${flag}: "${raw}" is not a whole number`);
    else if (value < min) problems.push(`--${flag}: ${raw} must be at least ${min}`);
    else if (value > max) problems.push(`--${flag}: ${raw} must be at most ${max}`);
    return value;
  };
  const intList = (flag: string, raw: string | undefined, fallback: readonly number[], min: number): readonly number[] => {
    if (raw === undefined) return fallback;
    const items = raw.split(',').map((s) => s.trim());
    const numbers = items.map((item) => int(flag, item, min));
    if (new Set(items).size !== items.length) problems.push(`--${flag}: a value is listed twice in "${raw}"`);
    return numbers;
  };
  const names = <T extends string>(flag: string, raw: string | undefined, fallback: readonly T[], known: readonly T[], isKnown: (s: string) => s is T): readonly T[] => {
    if (raw === undefined) return fallback;
    const items = raw.split(',').map((s) => s.trim());
    for (const item of items) if (!isKnown(item)) problems.push(`--${flag}: "${item}" is not one of ${known.join(', ')}`);
    if (new Set(items).size !== items.length) problems.push(`--${flag}: a value is listed twice in "${raw}"`);
    return items.filter(isKnown);
  };
  const nodes = values.nodes === undefined ? base.nodes : int('nodes', values.nodes, 3);
  const gridGiven = values.concurrency !== undefined || values['anomaly-ms'] !== undefined || values['normal-ms'] !== undefined;
  const { intervalCells, ...rest } = base;
  const params: LifeguardParams = {
    ...rest,
    // --quick keeps its own Interval cell unless the grid is given explicitly.
    ...(intervalCells === undefined || gridGiven ? {} : { intervalCells }),
    nodes,
    runs: values.runs === undefined ? base.runs : int('runs', values.runs, 1),
    seed: values.seed === undefined ? base.seed : int('seed', values.seed, 0, 2 ** 32 - 1),
    profiles: names('profile', values.profile, base.profiles, LIFEGUARD_PROFILES, isLifeguardProfile),
    phases: names('phase', values.phase, base.phases, PHASES, (s): s is LifeguardPhase => (PHASES as readonly string[]).includes(s)),
    concurrency: intList('concurrency', values.concurrency, base.concurrency, 1),
    anomalyMs: intList('anomaly-ms', values['anomaly-ms'], base.anomalyMs, 1),
    normalMs: intList('normal-ms', values['normal-ms'], base.normalMs, 1),
  };
  // Against the cluster size only once that is valid, and each C once.
  const nodesOk = Number.isInteger(nodes) && nodes >= 3;
  for (const c of new Set(params.concurrency)) {
    if (nodesOk && Number.isInteger(c) && c >= nodes - 1) problems.push(`--concurrency ${c}: must leave at least two healthy members of ${nodes}`);
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { params, json: values.json, out: values.out, help: values.help, render: values.render };
}
