/** `swim stats`: the agent's counters (core, transport, wire, encryption, process, monitors). */
import type { HostPort } from '../flags/host-port.js';
import { DEFAULT_RPC, rpcAddress, rpcToken, RPC_TOKEN_ENV, type Env } from '../flags/rpc.js';
import { noPositionals, type FlagSpecs, type RawFlags } from '../flags/scan.js';
import { call, refused } from '../control-client/request.js';

export interface StatsArgs {
  readonly command: 'stats';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  readonly json: boolean;
}

export const STATS_FLAGS: FlagSpecs = { rpc: { type: 'string' }, 'rpc-token': { type: 'string' }, json: { type: 'boolean' } };

export const STATS_USAGE = `usage: swim stats [--rpc HOST:PORT] [--rpc-token TOKEN] [--json]

  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
  --json              print JSON instead of lines`;

export function statsArgs(raw: RawFlags, env: Env): StatsArgs {
  const command = 'stats';
  noPositionals(command, raw);
  return { command, rpc: rpcAddress(command, raw), rpcToken: rpcToken(command, raw, env), json: raw.booleans.has('json') };
}

export async function stats(args: StatsArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args, 'GET', '/stats');
  if (res.status !== 200) throw refused(res);
  if (args.json) return out(JSON.stringify(res.body, null, 2));
  const lines: string[] = [];
  const walk = (prefix: string, value: unknown) => {
    if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) walk(prefix === '' ? k : `${prefix}.${k}`, v);
    else lines.push(`${prefix} ${String(value)}`);
  };
  walk('', res.body);
  out(lines.join('\n'));
}
