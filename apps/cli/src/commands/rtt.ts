/** `swim rtt A [B]`: the round trip time two members' network coordinates predict, as `serf rtt` prints it. */
import { distanceNanoseconds, type Coordinate } from '@swim/core';
import type { HostPort } from '../flags/host-port.js';
import { DEFAULT_RPC, rpcAddress, rpcToken, RPC_TOKEN_ENV, type Env } from '../flags/rpc.js';
import type { FlagSpecs, RawFlags } from '../flags/scan.js';
import { UsageError } from '../flags/usage-error.js';
import { call, ClientError, refused } from '../control-client/request.js';
import type { CoordinateReply } from '../control/routes/coordinate.js';

export interface RttArgs {
  readonly command: 'rtt';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  /** One name (then the other is the agent itself) or two. */
  readonly nodes: readonly [string] | readonly [string, string];
}

export const RTT_FLAGS: FlagSpecs = { rpc: { type: 'string' }, 'rpc-token': { type: 'string' } };

export const RTT_USAGE = `usage: swim rtt [--rpc HOST:PORT] [--rpc-token TOKEN] NODE1 [NODE2]

  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
Estimates the round trip time between two members from their network coordinates, as the agent
holds them. Without NODE2, the other member is the agent itself. Names are member names, as
\`swim members\` shows them.`;

export function rttArgs(raw: RawFlags, env: Env): RttArgs {
  const command = 'rtt';
  const names = raw.positionals;
  if (names.length !== 1 && names.length !== 2) throw new UsageError('One or two node names must be specified', command);
  const nodes = names.length === 1 ? ([names[0]!] as const) : ([names[0]!, names[1]!] as const);
  return { command, rpc: rpcAddress(command, raw), rpcToken: rpcToken(command, raw, env), nodes };
}

/** `serf rtt`: both coordinates from the agent, the distance computed here (serf cmd/serf/command/rtt.go). */
export async function rtt(args: RttArgs, out: (text: string) => void): Promise<void> {
  const first = await coordinateOf(args, args.nodes[0]);
  const second = args.nodes.length === 2 ? await coordinateOf(args, args.nodes[1]) : await coordinateOf(args, first.self);
  const ns = distanceNanoseconds(coordinate(first), coordinate(second));
  if (ns === undefined) throw new ClientError(`the coordinates of "${first.node}" and "${second.node}" cannot be compared (another dimensionality)`);
  // Serf: fmt.Sprintf("%.3f ms", DistanceTo(...).Seconds()*1000.0)
  out(`Estimated ${first.node} <-> ${second.node} rtt: ${((ns / 1e9) * 1000).toFixed(3)} ms`);
}

async function coordinateOf(args: RttArgs, node: string): Promise<CoordinateReply> {
  const res = await call(args, 'POST', '/coordinate', { node });
  if (res.status !== 200) throw refused(res);
  return res.body as CoordinateReply;
}

function coordinate(reply: CoordinateReply): Coordinate {
  if (!reply.ok || reply.coordinate === null) throw new ClientError(`Could not find a coordinate for node ${JSON.stringify(reply.node)}`);
  return reply.coordinate;
}
