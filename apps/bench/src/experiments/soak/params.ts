/** Flags of `pnpm bench soak`: real encrypted `swim agent` processes under a seeded nemesis. */
import { parseArgs } from 'node:util';
import { numberFlag, type OwnFlagsOptions } from '../own-flags.js';
import type { Ranges } from './nemesis.js';

export interface SoakParams {
  readonly agents: number;
  readonly seed: number;
  /** How long the nemesis acts, ms (a quiet period for the last convergence follows). */
  readonly durationMs: number;
  /**
   * Multiplies every fault's duration range and the gaps between faults (1 for the soak; the
   * short test in `pnpm test` uses less to fit its faults into a minute).
   */
  readonly timeScale: number;
  /** Resource samples (RSS, heap, fds, sockets) every this many ms. */
  readonly sampleEveryMs: number;
  /** `auto`: network namespaces when root can create them, else loopback; `loopback`: never namespaces. */
  readonly network: 'auto' | 'loopback';
  /** Fault duration ranges in place of the nemesis's (s); the short test's faster nemesis. */
  readonly ranges?: Ranges | undefined;
  /** `--config key=value` overrides of the agents' timers (over SOAK_CONFIG). */
  readonly config: Readonly<Record<string, number>>;
  /**
   * Agents the nemesis never kills, stops for a leave or restarts (it may still pause them), so
   * that some processes live through the whole run and invariant 5 has slopes to judge; undefined:
   * {@link defaultLongLived}.
   */
  readonly longLived?: number | undefined;
}

/** One agent in eight (3 of 24), at least one: the rest take the kills, leaves and restarts. */
export function defaultLongLived(agents: number): number {
  return Math.max(1, Math.floor(agents / 8));
}

export const SOAK_DEFAULTS: SoakParams = { agents: 24, seed: 1, durationMs: 3_600_000, timeScale: 1, sampleEveryMs: 30_000, network: 'auto', config: {} };

export interface SoakOptions extends OwnFlagsOptions {
  readonly params: SoakParams;
}

export const SOAK_USAGE = `usage: pnpm bench soak [flags]

Real \`swim agent\` processes (the built apps/cli/dist/main.js; encrypted, --metrics on) under a
seeded nemesis: kill -9 and restart (half with --snapshot), SIGSTOP/SIGCONT, a namespace cut off
and healed, graceful leave and rejoin, a key rotation, tag updates, a whole namespace restarted,
forged packets from a non-member. A checker reads each agent's GET /monitor stream, its /metrics
through a real Prometheus server, /proc, and the nemesis log; the report says what held.

  --agents N         agents (default 24, at least 6)
  --seed N           the nemesis's seed (default 1)
  --duration DUR     how long the nemesis acts: 90s, 10m, 1h (default 1h)
  --time-scale X     multiply fault durations and gaps (default 1)
  --sample-every DUR resource samples (default 30s)
  --long-lived N     agents never killed, left or restarted, whose resource slopes invariant 5
                     judges (default one in eight, at least 1; all in the first namespace)
  --config key=value an agent setting over the soak's timers (repeatable; e.g. --config probeTimeoutMs=100)
  --loopback         run on 127.0.0.1 even when network namespaces are available
  --out DIR          write soak.json, soak.md, soak.svg and the logs there (default apps/bench/results/soak)
  --json FILE        also write the JSON there
  --simulator        the simulated day instead (pnpm bench soak --simulator --help)`;

/** 90s, 10m, 1h, 1h30m, or plain milliseconds. */
export function parseDurationMs(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    matched = re.lastIndex;
  }
  return matched === text.length && matched > 0 ? total : undefined;
}

export function parseSoakArgs(argv: readonly string[]): SoakOptions {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== 'soak' && a !== '--'),
    options: {
      agents: { type: 'string' },
      seed: { type: 'string' },
      duration: { type: 'string' },
      'time-scale': { type: 'string' },
      'sample-every': { type: 'string' },
      'long-lived': { type: 'string' },
      loopback: { type: 'boolean' },
      config: { type: 'string', multiple: true },
      out: { type: 'string' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: true,
  });
  const problems: string[] = [];
  if (positionals.length > 0) problems.push(`unexpected argument ${positionals[0]}`);
  const duration = (flag: string, raw: string | undefined, fallback: number) => {
    if (raw === undefined) return fallback;
    const ms = parseDurationMs(raw);
    if (ms === undefined || ms <= 0) problems.push(`--${flag}: "${raw}" is not a duration (e.g. 90s, 10m, 1h)`);
    return ms ?? fallback;
  };
  const config: Record<string, number> = {};
  for (const pair of values.config ?? []) {
    const eq = pair.indexOf('=');
    const value = Number(pair.slice(eq + 1));
    if (eq <= 0 || !Number.isFinite(value)) problems.push(`--config: "${pair}" is not key=number`);
    else config[pair.slice(0, eq)] = value;
  }
  const params: SoakParams = {
    agents: numberFlag(problems, 'agents', values.agents, SOAK_DEFAULTS.agents, 6, true, 200),
    seed: numberFlag(problems, 'seed', values.seed, SOAK_DEFAULTS.seed, 0, true),
    durationMs: duration('duration', values.duration, SOAK_DEFAULTS.durationMs),
    timeScale: numberFlag(problems, 'time-scale', values['time-scale'], 1, 0.01, false, 100),
    sampleEveryMs: duration('sample-every', values['sample-every'], SOAK_DEFAULTS.sampleEveryMs),
    network: values.loopback === true ? 'loopback' : 'auto',
    config,
    longLived: values['long-lived'] === undefined ? undefined : numberFlag(problems, 'long-lived', values['long-lived'], 1, 1, true, 200),
  };
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { help: values.help === true, out: values.out ?? 'apps/bench/results/soak', json: values.json, params };
}
