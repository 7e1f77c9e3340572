/** `swim members|join|leave|stats`: requests to the agent's control endpoint. */
import { request } from 'node:http';
import type { HostPort, JoinArgs, LeaveArgs, MembersArgs, StatsArgs } from './args.js';
import { membersTable, type MembersReply } from './format.js';

/** A runtime failure of a client command (exit code 1). */
export class ClientError extends Error {
  override name = 'ClientError';
}

const TIMEOUT_MS = 30_000;

export async function call(rpc: HostPort, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const host = rpc.host.includes(':') ? `[${rpc.host}]` : rpc.host;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: rpc.host,
        port: rpc.port,
        method,
        path,
        timeout: TIMEOUT_MS,
        headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
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

function errorOf(body: unknown): string {
  const e = (body as { error?: unknown } | null)?.error;
  return typeof e === 'string' ? e : JSON.stringify(body);
}

export async function members(args: MembersArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args.rpc, 'GET', '/members');
  if (res.status !== 200) throw new ClientError(errorOf(res.body));
  out(args.json ? JSON.stringify(res.body, null, 2) : membersTable(res.body as MembersReply));
}

export async function stats(args: StatsArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args.rpc, 'GET', '/stats');
  if (res.status !== 200) throw new ClientError(errorOf(res.body));
  if (args.json) return out(JSON.stringify(res.body, null, 2));
  const lines: string[] = [];
  const walk = (prefix: string, value: unknown) => {
    if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) walk(prefix === '' ? k : `${prefix}.${k}`, v);
    else lines.push(`${prefix} ${String(value)}`);
  };
  walk('', res.body);
  out(lines.join('\n'));
}

export async function join(args: JoinArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args.rpc, 'POST', '/join', { seeds: args.seeds });
  const body = res.body as { contacted?: string[]; failed?: Array<{ address: string; reason: string }> };
  const failedLines = (body.failed ?? []).map((f) => `could not join through ${f.address}: ${f.reason}`);
  if (res.status !== 200) throw new ClientError([errorOf(res.body), ...(res.status === 502 ? [] : failedLines)].join('\n'));
  out([`joined through ${(body.contacted ?? []).join(', ')}`, ...failedLines].join('\n'));
}

export async function leave(args: LeaveArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args.rpc, 'POST', '/leave');
  if (res.status !== 200) throw new ClientError(errorOf(res.body));
  const spread = (res.body as { spread?: boolean }).spread === true;
  out(spread ? 'left the cluster; the agent is exiting' : 'leave announced but not confirmed spread within the timeout; the agent is exiting');
}
