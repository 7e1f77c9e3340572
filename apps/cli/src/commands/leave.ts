/** `swim leave`: the agent leaves the cluster and exits. */
import type { HostPort } from '../flags/host-port.js';
import { DEFAULT_RPC, rpcAddress, rpcToken, RPC_TOKEN_ENV, type Env } from '../flags/rpc.js';
import { noPositionals, type FlagSpecs, type RawFlags } from '../flags/scan.js';
import { call, refused } from '../control-client/request.js';

export interface LeaveArgs {
  readonly command: 'leave';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
}

export const LEAVE_FLAGS: FlagSpecs = { rpc: { type: 'string' }, 'rpc-token': { type: 'string' } };

export const LEAVE_USAGE = `usage: swim leave [--rpc HOST:PORT] [--rpc-token TOKEN]

  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
The agent announces its leave, waits (bounded) for it to spread, then exits.`;

export function leaveArgs(raw: RawFlags, env: Env): LeaveArgs {
  const command = 'leave';
  noPositionals(command, raw);
  return { command, rpc: rpcAddress(command, raw), rpcToken: rpcToken(command, raw, env) };
}

export async function leave(args: LeaveArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args, 'POST', '/leave', {});
  if (res.status !== 200) throw refused(res);
  const spread = (res.body as { spread?: boolean }).spread === true;
  out(spread ? 'left the cluster; the agent is exiting' : 'leave announced but not confirmed spread within the timeout; the agent is exiting');
}
