/** The client side of the agent's control endpoint: one JSON request and its answer, for `swim members|tags|join|leave|force-leave|stats|keys`. */
import { request } from 'node:http';
import type { HostPort } from '../flags/host-port.js';

/** A runtime failure of a client command (exit code 1). */
export class ClientError extends Error {
  override name = 'ClientError';
}

const TIMEOUT_MS = 30_000;

/** Where the agent's control endpoint is, and the token it wants (if any). */
export interface Endpoint {
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
}

export async function call(endpoint: Endpoint, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const { rpc, rpcToken } = endpoint;
  const host = rpc.host.includes(':') ? `[${rpc.host}]` : rpc.host;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = {};
  if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
  if (rpcToken !== undefined) headers['authorization'] = `Bearer ${rpcToken}`;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: rpc.host,
        port: rpc.port,
        method,
        path,
        timeout: TIMEOUT_MS,
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          } catch {
            reject(new ClientError(`the control endpoint at ${host}:${rpc.port} answered ${res.statusCode} with non-JSON: ${text.slice(0, 200)}`));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new ClientError(`no answer from the agent at ${host}:${rpc.port} within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof ClientError) reject(error);
      else if (error.code === 'ECONNREFUSED') reject(new ClientError(`no agent listening at ${host}:${rpc.port} (is \`swim agent\` running? is --rpc right?)`));
      else reject(new ClientError(`cannot reach the agent at ${host}:${rpc.port}: ${error.message}`));
    });
    req.end(payload);
  });
}

export function errorOf(body: unknown): string {
  const e = (body as { error?: unknown } | null)?.error;
  return typeof e === 'string' ? e : JSON.stringify(body);
}

/** The agent refused the request: a missing or wrong token gets a hint. */
export function refused(res: { status: number; body: unknown }): ClientError {
  const hint = res.status === 401 ? ' (pass the agent\'s token with --rpc-token or SWIM_RPC_TOKEN)' : '';
  return new ClientError(`${errorOf(res.body)}${hint}`);
}
