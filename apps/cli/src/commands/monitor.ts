/** `swim monitor`: the agent's `GET /monitor` stream, copied to stdout line by line as it arrives. */
import { request } from 'node:http';
import { parseMonitorKinds, type MonitorKind } from '../control/monitor-kinds.js';
import type { HostPort } from '../flags/host-port.js';
import { DEFAULT_RPC, rpcAddress, rpcToken, RPC_TOKEN_ENV, type Env } from '../flags/rpc.js';
import { noPositionals, type FlagSpecs, type RawFlags } from '../flags/scan.js';
import { UsageError } from '../flags/usage-error.js';
import { ClientError } from '../control-client/request.js';
import { addressOf, connectionFailure, rejectRefusal } from '../control-client/stream.js';

export interface MonitorArgs {
  readonly command: 'monitor';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  readonly json: boolean;
  /** `--kind`: the kinds of line streamed (every kind by default). */
  readonly kinds: readonly MonitorKind[];
}

export const MONITOR_FLAGS: FlagSpecs = { rpc: { type: 'string' }, 'rpc-token': { type: 'string' }, json: { type: 'boolean' }, kind: { type: 'repeatable' } };

export const MONITOR_USAGE = `usage: swim monitor [--rpc HOST:PORT] [--rpc-token TOKEN] [--json] [--kind KIND,...]

  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
  --json              one JSON object per line (as the agent's --log json) instead of text lines
  --kind KIND,...     only these kinds (repeatable or comma-separated): join, update, suspect, alive, dead,
                      left (membership changes) and log (every other log line); default all
Streams until the agent stops (exit 0) or the connection is lost (exit 1). The agent drops a monitor
that does not keep up rather than buffer for it.`;

export function monitorArgs(raw: RawFlags, env: Env): MonitorArgs {
  const command = 'monitor';
  noPositionals(command, raw);
  const kinds = parseMonitorKinds(raw.lists.get('kind') ?? []);
  if ('problem' in kinds) throw new UsageError(`--kind: ${kinds.problem}`, command);
  return { command, rpc: rpcAddress(command, raw), rpcToken: rpcToken(command, raw, env), json: raw.booleans.has('json'), kinds };
}

/** How long the agent has to answer the request; the stream itself may stay quiet for as long as nothing happens. */
const ANSWER_TIMEOUT_MS = 30_000;
/** TCP keep-alive probes notice an agent whose machine went away without closing the connection. */
const KEEPALIVE_MS = 10_000;

/** Resolves when the agent ends the stream (it stopped); rejects when it refuses or the connection is lost. */
export function monitor(args: MonitorArgs, write: (chunk: string) => void): Promise<void> {
  const { rpc, rpcToken } = args;
  const where = addressOf(rpc);
  const query = new URLSearchParams({ format: args.json ? 'json' : 'text', kinds: args.kinds.join(',') });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: rpc.host,
        port: rpc.port,
        method: 'GET',
        path: `/monitor?${query}`,
        headers: rpcToken === undefined ? {} : { authorization: `Bearer ${rpcToken}` },
      },
      (res) => {
        req.setTimeout(0);
        res.setEncoding('utf8');
        if (res.statusCode !== 200) return rejectRefusal(res, reject);
        res.on('data', write);
        res.on('end', resolve);
        // A kill -9 of the agent, or the agent dropping a monitor that fell behind.
        const lost = () => reject(new ClientError(`lost the connection to the agent at ${where} (it stopped abruptly, or dropped this monitor for reading too slowly)`));
        res.on('aborted', lost);
        res.on('error', lost);
      },
    );
    req.setTimeout(ANSWER_TIMEOUT_MS, () => req.destroy(new ClientError(`no answer from the agent at ${where} within ${ANSWER_TIMEOUT_MS / 1000} s`)));
    req.on('socket', (socket) => socket.setKeepAlive(true, KEEPALIVE_MS));
    req.on('error', (error: NodeJS.ErrnoException) => reject(connectionFailure(error, where)));
    req.end();
  });
}
