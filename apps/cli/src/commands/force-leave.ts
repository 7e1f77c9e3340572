/** `swim force-leave NAME [--prune]`: the agent marks a failed member left, as `serf force-leave` does. */
import type { HostPort } from '../flags/host-port.js';
import { DEFAULT_RPC, rpcAddress, rpcToken, RPC_TOKEN_ENV, type Env } from '../flags/rpc.js';
import type { FlagSpecs, RawFlags } from '../flags/scan.js';
import { UsageError } from '../flags/usage-error.js';
import { call, ClientError, refused } from '../control-client/request.js';

export interface ForceLeaveArgs {
  readonly command: 'force-leave';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  readonly name: string;
  readonly prune: boolean;
}

export const FORCE_LEAVE_FLAGS: FlagSpecs = { rpc: { type: 'string' }, 'rpc-token': { type: 'string' }, prune: { type: 'boolean' } };

export const FORCE_LEAVE_USAGE = `usage: swim force-leave [--rpc HOST:PORT] [--rpc-token TOKEN] [--prune] NAME

  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
  --prune             also forget the member at once, rather than when it is reaped
Marks a failed (dead) member left, as \`serf force-leave\` does: no member tries to reconnect to
it any more, and every member lists it left. A member that is still alive is not touched (if it
was marked left elsewhere, it refutes); as with Serf, that and an unknown name are no error.
Prints nothing on success (exit 0); an error is printed and exits 1.`;

export function forceLeaveArgs(raw: RawFlags, env: Env): ForceLeaveArgs {
  const command = 'force-leave';
  // serf force-leave: exactly one node name.
  if (raw.positionals.length !== 1) throw new UsageError('A node name must be specified to force leave.', command);
  return { command, rpc: rpcAddress(command, raw), rpcToken: rpcToken(command, raw, env), name: raw.positionals[0]!, prune: raw.booleans.has('prune') };
}

/**
 * serf force-leave prints nothing on success and `Error force leaving: ...` when the agent refuses;
 * an agent that cannot be reached is reported as by every swim command (Serf: "Error connecting to
 * Serf agent"). Both exit 1.
 */
export async function forceLeave(args: ForceLeaveArgs): Promise<void> {
  const res = await call(args, 'POST', '/force-leave', { name: args.name, prune: args.prune });
  if (res.status !== 200) throw new ClientError(`Error force leaving: ${refused(res).message}`);
}
