/** `pnpm bench gateway`'s flags: parsed into {@link GatewayParams}, every problem reported at once. */
import { parseArgs } from 'node:util';
import { numberFlag, type OwnFlagsOptions } from '../own-flags.js';
import type { GatewayParams } from './result.js';

export const GATEWAY_DEFAULTS: GatewayParams = {
  sizes: [100, 300, 1000],
  joinRate: 50,
  holdSeconds: 30,
  clientProcesses: 4,
  udpAgents: 4,
  seed: 1,
  chromiumTabs: 20,
  burst: 100,
  closeTabs: 5,
  cutTabs: 5,
  sizeTimeoutSeconds: 0,
};

const D = GATEWAY_DEFAULTS;
export const GATEWAY_USAGE = `Usage: pnpm bench gateway [flags]

What one WebSocket gateway process costs per browser member (issue 31). Per size, fresh processes:
${D.udpAgents} UDP agents (lan preset, one process), one gateway process (createWsGateway and its own UDP
member, the clients' seed, as the transport-ws README deploys it) and the browser members, shared
between client processes: the package's browser client (connectWsTransport, WebSocket from ws) and
a @swim/runtime Member with the lan preset, as a page runs them. Members join at --join-rate, then a
quiet window; then ${D.burst} tabs join within a second, ${D.closeTabs} tabs leave and close, and a client process
with ${D.cutTabs} tabs is stopped (SIGSTOP: its connections stay open and silent, as on a network loss).
Then, unless --chromium-tabs 0, the same with real Chromium pages.

Flags:
  --clients LIST          browser members per run, comma-separated (default ${D.sizes.join(',')})
  --join-rate N           members joining per second (default ${D.joinRate})
  --hold-seconds S        quiet window measured once all joined (default ${D.holdSeconds})
  --client-processes K    processes the Node browser members are shared between (default ${D.clientProcesses})
  --udp-agents N          UDP members of the cluster besides the gateway's (default ${D.udpAgents})
  --chromium-tabs N       real Chromium pages (/usr/bin/chromium, or CHROMIUM_PATH), 0 to skip (default ${D.chromiumTabs})
  --size-timeout S        bound on one size's run (default: joining time + hold + 330 s, the sum
                          of each later phase's own bound, so that a size failing to join still
                          runs its burst, closes and cut)
  --seed N                which tabs close, and where each tab lives (default ${D.seed})
  --json PATH             write the results as JSON to PATH
  --out DIR               write gateway.json, gateway.md and gateway.svg into DIR
  -h, --help              this text

Example:
  pnpm bench gateway --clients 100,300,1000 --out apps/bench/results/gateway`;

export interface GatewayOptions extends OwnFlagsOptions {
  readonly params: GatewayParams;
}

/** Parse the flags after `gateway`; throws an Error listing every problem. */
export function parseGatewayArgs(argv: readonly string[]): GatewayOptions {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    options: {
      clients: { type: 'string' },
      'join-rate': { type: 'string' },
      'hold-seconds': { type: 'string' },
      'client-processes': { type: 'string' },
      'udp-agents': { type: 'string' },
      'chromium-tabs': { type: 'string' },
      'size-timeout': { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  const problems: string[] = [];
  const extra = positionals.filter((p) => p !== 'gateway');
  if (extra.length > 0) problems.push(`unexpected argument "${extra[0]}"`);
  const number = (flag: string, raw: string | undefined, fallback: number, min: number, integer: boolean): number => numberFlag(problems, flag, raw, fallback, min, integer);
  const sizes = values.clients === undefined ? D.sizes : values.clients.split(',').map((raw) => number('clients', raw, 0, 1, true));
  const params: GatewayParams = {
    ...D,
    sizes,
    joinRate: number('join-rate', values['join-rate'], D.joinRate, 0.1, false),
    holdSeconds: number('hold-seconds', values['hold-seconds'], D.holdSeconds, 1, false),
    clientProcesses: number('client-processes', values['client-processes'], D.clientProcesses, 1, true),
    udpAgents: number('udp-agents', values['udp-agents'], D.udpAgents, 1, true),
    chromiumTabs: number('chromium-tabs', values['chromium-tabs'], D.chromiumTabs, 0, true),
    sizeTimeoutSeconds: number('size-timeout', values['size-timeout'], D.sizeTimeoutSeconds, 0, false),
    seed: number('seed', values.seed, D.seed, 0, true),
  };
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { params, json: values.json, out: values.out, help: values.help };
}

/**
 * The bound on one size's run, ms: the flag, else the joining time at the rate, the window and
 * 330 s, the sum of the phases' own bounds (60 s more to settle the joins, 60 s for all alive, 30 s
 * for the cut tabs to join, 30 + 60 s for the burst, 60 s for the closes, 90 s for the cut).
 */
export function sizeTimeoutMs(params: GatewayParams, clients: number): number {
  if (params.sizeTimeoutSeconds > 0) return params.sizeTimeoutSeconds * 1000;
  return Math.round((clients / params.joinRate + params.holdSeconds + 330) * 1000);
}
