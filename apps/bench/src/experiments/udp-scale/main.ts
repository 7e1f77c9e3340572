/**
 * `pnpm bench udp-scale [flags]`: members per process over real UDP (issue 15), with the figures
 * and the target's verdict on stdout, `--json` / `--out` like the other experiments. The verdict is
 * reported, not enforced: the exit code is 0 whenever the runs finished.
 */
import { parseArgs } from 'node:util';
import { FORMATIONS } from '../../../../../packages/transport-udp/bench/cluster.js';
import { numberFlag, runOwnFlagsExperiment, type OwnFlagsOptions } from '../own-flags.js';
import { GO_INSTALL_HINT } from './memberlist-go.js';
import { udpScaleJson, udpScaleMarkdown, udpScaleSummary } from './report.js';
import { MAX_LAG_P99_MS, MEMBERLIST_FORMATIONS, type UdpScaleParams, type UdpScaleResult } from './result.js';
import { runUdpScale, UDP_SCALE_DEFAULTS } from './run.js';

/** `--quick`: small clusters, for a first look in about a minute. */
export const UDP_SCALE_QUICK: UdpScaleParams = { ...UDP_SCALE_DEFAULTS, sizes: [100, 200], seconds: 3, settleSeconds: 2, convergeTimeoutSeconds: 60 };

const D = UDP_SCALE_DEFAULTS;
export const UDP_SCALE_USAGE = `Usage: pnpm bench udp-scale [flags]

How many members one process carries over real UDP: per size, LAN-preset @swim members on
127.0.0.1, each on its own UDP + TCP transport, in a child process of its own, formed, converged,
settled, then measured: CPU per member per second, packets per member per second, event-loop
delay (target: p99 < ${MAX_LAG_P99_MS} ms), suspect and dead events, RSS. With --memberlist, HashiCorp memberlist clusters of the same sizes
in a Go process, side by side (needs: ${GO_INSTALL_HINT}).

Flags:
  --members LIST       cluster sizes, comma-separated (default ${D.sizes.join(',')})
  --seconds S          seconds measured once converged (default ${D.seconds})
  --settle S           seconds between convergence and the window (default ${D.settleSeconds})
  --formation F        how our clusters form (default ${D.formation}): pre-formed (every member created
                       held at a start gate, preloaded with the list of all, then started a few ms
                       apart: converged at once) or joins (ten
                       joins at a time through member 0 and a random older member)
  --timeout S          bound on forming and converging each cluster (default ${D.convergeTimeoutSeconds})
  --join-pause MS      pause after each batch of ten joins while growing by joins, ours and
                       memberlist's (default ${D.joinPauseMs})
  --memberlist         also run memberlist (Go) clusters of the same sizes
  --memberlist-formation F
                       how memberlist grows (it has no preload; default ${D.memberlistFormation}): joins
                       (ten at a time, as ours) or paced (each batch of ten also waits until
                       every member counts every member)
  --quick              ${UDP_SCALE_QUICK.sizes.join(' and ')} members, ${UDP_SCALE_QUICK.seconds} s measured
  --json PATH          write the results as JSON to PATH
  --out DIR            write udp-scale.json and udp-scale.md into DIR
  -h, --help           this text

Example:
  pnpm bench udp-scale --members 1000,2000,5000 --memberlist --out apps/bench/results`;

export interface UdpScaleOptions extends OwnFlagsOptions {
  readonly params: UdpScaleParams;
}

/** Parse the flags after `udp-scale`; throws an Error listing every problem, fit for the user. */
export function parseUdpScaleArgs(argv: readonly string[]): UdpScaleOptions {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    options: {
      members: { type: 'string' },
      seconds: { type: 'string' },
      settle: { type: 'string' },
      timeout: { type: 'string' },
      'join-pause': { type: 'string' },
      formation: { type: 'string' },
      memberlist: { type: 'boolean', default: false },
      'memberlist-formation': { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const problems: string[] = [];
  const extra = positionals.filter((p) => p !== 'udp-scale');
  if (extra.length > 0) problems.push(`unexpected argument "${extra[0]}"`);
  const base = values.quick ? UDP_SCALE_QUICK : UDP_SCALE_DEFAULTS;
  const number = (flag: string, raw: string | undefined, fallback: number, min: number, integer: boolean): number => numberFlag(problems, flag, raw, fallback, min, integer);
  const sizes = values.members === undefined ? base.sizes : values.members.split(',').map((raw) => number('members', raw, 0, 3, true));
  const params: UdpScaleParams = {
    sizes,
    seconds: number('seconds', values.seconds, base.seconds, 0.1, false),
    settleSeconds: number('settle', values.settle, base.settleSeconds, 0, false),
    convergeTimeoutSeconds: number('timeout', values.timeout, base.convergeTimeoutSeconds, 1, false),
    joinPauseMs: number('join-pause', values['join-pause'], base.joinPauseMs, 0, false),
    formation: oneOf(problems, 'formation', values.formation, FORMATIONS, base.formation),
    memberlistFormation: oneOf(problems, 'memberlist-formation', values['memberlist-formation'], MEMBERLIST_FORMATIONS, base.memberlistFormation),
    memberlist: values.memberlist,
  };
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { params, json: values.json, out: values.out, help: values.help };
}

/** A flag that names one of `choices` (its fallback when not given); a problem is added to `problems`. */
function oneOf<T extends string>(problems: string[], flag: string, raw: string | undefined, choices: readonly T[], fallback: T): T {
  if (raw === undefined) return fallback;
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  problems.push(`--${flag}: "${raw}" is not one of ${choices.join(', ')}`);
  return fallback;
}

export function udpScaleMain(argv: readonly string[]): Promise<number> {
  return runOwnFlagsExperiment<UdpScaleOptions, UdpScaleResult>(
    {
      name: 'udp-scale',
      usage: UDP_SCALE_USAGE,
      parse: parseUdpScaleArgs,
      run: (options) => runUdpScale(options.params, (line) => process.stderr.write(`udp-scale: ${line}\n`)),
      summary: udpScaleSummary,
      json: udpScaleJson,
      markdown: udpScaleMarkdown,
    },
    argv,
  );
}
