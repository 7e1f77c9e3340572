/** `swim join HOST:PORT ...`: the agent joins through more seeds. */
import type { HostPort } from '../flags/host-port.js';
import { DEFAULT_RPC, rpcAddress, rpcToken, RPC_TOKEN_ENV, type Env } from '../flags/rpc.js';
import { splitList, type FlagSpecs, type RawFlags } from '../flags/scan.js';
import { MAX_JOIN_SEEDS, seedAddress } from '../flags/seeds.js';
import { UsageError } from '../flags/usage-error.js';
import { call, ClientError, refused } from '../control-client/request.js';

export interface JoinArgs {
  readonly command: 'join';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  readonly seeds: readonly string[];
}

export const JOIN_FLAGS: FlagSpecs = { rpc: { type: 'string' }, 'rpc-token': { type: 'string' } };

export const JOIN_USAGE = `usage: swim join [--rpc HOST:PORT] [--rpc-token TOKEN] HOST:PORT ...

  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
At most ${MAX_JOIN_SEEDS} seeds.`;

export function joinArgs(raw: RawFlags, env: Env): JoinArgs {
  const command = 'join';
  const seeds = raw.positionals.flatMap(splitList).map((s) => seedAddress(command, s));
  if (seeds.length === 0) throw new UsageError('swim join needs at least one seed HOST:PORT', command);
  if (seeds.length > MAX_JOIN_SEEDS) throw new UsageError(`swim join takes at most ${MAX_JOIN_SEEDS} seeds, got ${seeds.length}`, command);
  return { command, rpc: rpcAddress(command, raw), rpcToken: rpcToken(command, raw, env), seeds };
}

export async function join(args: JoinArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args, 'POST', '/join', { seeds: args.seeds });
  const body = res.body as { contacted?: string[]; failed?: Array<{ address: string; reason: string }> };
  const failedLines = (body.failed ?? []).map((f) => `could not join through ${f.address}: ${f.reason}`);
  if (res.status !== 200) throw new ClientError([refused(res).message, ...(res.status === 502 ? [] : failedLines)].join('\n'));
  out([`joined through ${(body.contacted ?? []).join(', ')}`, ...failedLines].join('\n'));
}
