import { parseArgs } from 'node:util';
import { numberFlag, type OwnFlagsOptions } from '../own-flags.js';
import { isLifeguardProfile, LIFEGUARD_PROFILES, type LifeguardProfile } from '../lifeguard/profiles.js';

/**
 * How an agent is starved:
 * - `block`: its event loop blocks (stall-hook.ts, Atomics.wait: no CPU) for --stop-ms, then runs
 *   --run-ms; overdue timers run before waiting packets are read, as in a CPU-starved process.
 * - `sigstop`: SIGSTOP for --stop-ms, SIGCONT for --run-ms; once continued, Node reads the packets
 *   that waited before its timers run, so a late ack or refutation still counts.
 */
export type StarveMode = 'block' | 'sigstop';
export const STARVE_MODES: readonly StarveMode[] = ['block', 'sigstop'];

export interface StarveParams {
  readonly mode: StarveMode;
  /** Real `swim agent` processes. */
  readonly nodes: number;
  /** k: how many of them are starved, one cluster per value and profile. */
  readonly starved: readonly number[];
  readonly profiles: readonly LifeguardProfile[];
  /** Each starved process is stopped (SIGSTOP) this long … */
  readonly stopMs: number;
  /** … then runs (SIGCONT) this long, over and over. */
  readonly runMs: number;
  /** How long the starving lasts, s. */
  readonly seconds: number;
  /** After every starved process runs freely again, keep counting this long, s. */
  readonly tailSeconds: number;
  /** Quiet time after convergence before the starving, s (false positives in it are counted apart). */
  readonly settleSeconds: number;
  /** Picks the starved members and their phase. */
  readonly seed: number;
  /** Write every agent's JSON log of each cell under this directory (to trace an incident). */
  readonly logsDir?: string | undefined;
}

export const STARVE_DEFAULTS: StarveParams = {
  mode: 'block',
  nodes: 24,
  starved: [1, 2, 4, 8],
  profiles: ['swim', 'default'],
  // Stalls longer than the probe interval, so a starved agent reads the ack of its last probe only
  // after that probe ended, and runs of one loop turn, as a process that rarely gets the CPU.
  stopMs: 2000,
  runMs: 0,
  seconds: 120,
  tailSeconds: 20,
  settleSeconds: 5,
  seed: 1,
};

/** `--quick`: one small cluster per profile, 30 s of starving. */
export const STARVE_QUICK: StarveParams = { ...STARVE_DEFAULTS, nodes: 20, starved: [2], seconds: 30, tailSeconds: 10 };

export interface StarveOptions extends OwnFlagsOptions {
  readonly params: StarveParams;
  /** Re-render the Markdown of this JSON report instead of running. */
  readonly render?: string | undefined;
}

export const STARVE_USAGE = `Usage: pnpm bench starve [flags]

The shape of the Lifeguard paper's Figure 1 (arXiv 1707.00788 §II: 100 VMs, 1-32 of them CPU-starved
by \`stress\`) with real \`swim agent\` processes on 127.0.0.1: N agents at the LAN timing (probe
every 1 s, suspicion multiplier 5), k of them stalled for --stop-ms then running for --run-ms,
over and over, each on its own phase, for --seconds. Every agent's JSON log is read:
FP = a dead event about an agent never starved, at any agent; FP- = such an event at an agent never
starved either. One fresh cluster per (profile, k).

Flags:
  --mode MODE         block: the agent's event loop blocks (a preloaded hook, no CPU spent), so
                      overdue timers run before waiting packets are read, as in a CPU-starved
                      process; sigstop: SIGSTOP / SIGCONT from the bench (default ${STARVE_DEFAULTS.mode})
  --profile LIST      ${LIFEGUARD_PROFILES.join(', ')} (default ${STARVE_DEFAULTS.profiles.join(',')})
  --nodes N           agents (default ${STARVE_DEFAULTS.nodes}; at least 3)
  --starved LIST      k values (default ${STARVE_DEFAULTS.starved.join(',')})
  --stop-ms MS        each stop (default ${STARVE_DEFAULTS.stopMs})
  --run-ms MS         each run between stops (default ${STARVE_DEFAULTS.runMs})
  --seconds S         how long the starving lasts (default ${STARVE_DEFAULTS.seconds})
  --tail S            counting goes on this long after (default ${STARVE_DEFAULTS.tailSeconds})
  --settle S          quiet time before, counted apart (default ${STARVE_DEFAULTS.settleSeconds})
  --seed S            picks the starved agents and their phases (default ${STARVE_DEFAULTS.seed})
  --quick             ${STARVE_QUICK.nodes} agents, k ${STARVE_QUICK.starved.join(',')}, ${STARVE_QUICK.seconds} s
  --logs DIR          keep every agent's JSON log: DIR/<profile>-k<k>/<agent>.jsonl
  --json PATH         write the results as JSON to PATH
  --out DIR           write starve.json and starve.md into DIR
  --render PATH       no run: write the .md of the JSON report at PATH again, beside it (PATH's
                      name with .md for .json)
  -h, --help          this text

Example:
  pnpm bench starve --out apps/bench/results`;

/** `block` may run 0 ms between stalls (one turn of the event loop); SIGCONT needs a real pause. */
function params0RunMin(mode: string): number {
  return mode === 'block' ? 0 : 1;
}

/** Parse the flags after `starve`; throws an Error listing every problem, fit for the user. */
export function parseStarveArgs(argv: readonly string[]): StarveOptions {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    options: {
      mode: { type: 'string' },
      profile: { type: 'string' },
      nodes: { type: 'string' },
      starved: { type: 'string' },
      'stop-ms': { type: 'string' },
      'run-ms': { type: 'string' },
      seconds: { type: 'string' },
      tail: { type: 'string' },
      settle: { type: 'string' },
      seed: { type: 'string' },
      quick: { type: 'boolean', default: false },
      logs: { type: 'string' },
      json: { type: 'string' },
      out: { type: 'string' },
      render: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const problems: string[] = [];
  const extra = positionals.filter((p) => p !== 'starve');
  if (extra.length > 0) problems.push(`unexpected argument "${extra[0]}"`);
  const base = values.quick ? STARVE_QUICK : STARVE_DEFAULTS;
  const number = (flag: string, raw: string | undefined, fallback: number, min: number, integer: boolean, max = Number.MAX_SAFE_INTEGER): number =>
    numberFlag(problems, flag, raw, fallback, min, integer, max);
  const nodes = number('nodes', values.nodes, base.nodes, 3, true);
  let starved = base.starved;
  if (values.starved !== undefined) {
    const items = values.starved.split(',').map((s) => s.trim());
    starved = items.map((item) => number('starved', item, 0, 0, true));
    if (new Set(items).size !== items.length) problems.push(`--starved: a value is listed twice in "${values.starved}"`);
  }
  // Against the cluster size only once that is valid, and each k once.
  const nodesOk = Number.isInteger(nodes) && nodes >= 3;
  for (const k of new Set(starved)) if (nodesOk && Number.isInteger(k) && k > nodes - 2) problems.push(`--starved ${k}: must leave at least two agents of ${nodes} running freely`);
  let profiles = base.profiles;
  if (values.profile !== undefined) {
    const items = values.profile.split(',').map((s) => s.trim());
    for (const item of items) if (!isLifeguardProfile(item)) problems.push(`--profile: "${item}" is not one of ${LIFEGUARD_PROFILES.join(', ')}`);
    if (new Set(items).size !== items.length) problems.push(`--profile: a value is listed twice in "${values.profile}"`);
    profiles = items.filter(isLifeguardProfile);
  }
  const mode = values.mode ?? base.mode;
  if (!(STARVE_MODES as readonly string[]).includes(mode)) problems.push(`--mode: "${mode}" is not one of ${STARVE_MODES.join(', ')}`);
  const params: StarveParams = {
    mode: mode as StarveMode,
    nodes,
    starved,
    profiles,
    stopMs: number('stop-ms', values['stop-ms'], base.stopMs, 1, true),
    runMs: number('run-ms', values['run-ms'], base.runMs, params0RunMin(mode), true),
    seconds: number('seconds', values.seconds, base.seconds, 1, false),
    tailSeconds: number('tail', values.tail, base.tailSeconds, 0, false),
    settleSeconds: number('settle', values.settle, base.settleSeconds, 0, false),
    seed: number('seed', values.seed, base.seed, 0, true, 2 ** 32 - 1),
    ...(values.logs === undefined ? {} : { logsDir: values.logs }),
  };
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { params, json: values.json, out: values.out, help: values.help, render: values.render };
}
