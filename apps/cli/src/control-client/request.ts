/** `swim members|tags|join|leave|stats|keys`: requests to the agent's control endpoint. */
import { request } from 'node:http';
import { formatKeyOpReport, type KeyOpReport } from '@swim/encryption';
import type { HostPort, JoinArgs, KeysArgs, LeaveArgs, MembersArgs, StatsArgs, TagsArgs } from '../commands/parse.js';
import { membersTable, tagsText, type MemberJson, type MembersReply } from '../output/format.js';

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
function refused(res: { status: number; body: unknown }): ClientError {
  const hint = res.status === 401 ? ' (pass the agent\'s token with --rpc-token or SWIM_RPC_TOKEN)' : '';
  return new ClientError(`${errorOf(res.body)}${hint}`);
}

export async function members(args: MembersArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args, 'GET', '/members');
  if (res.status !== 200) throw refused(res);
  const reply = res.body as MembersReply;
  const shown: MembersReply = { ...reply, members: reply.members.filter((member) => matches(member, args)) };
  out(args.json ? JSON.stringify(shown, null, 2) : membersTable(shown));
}

/** Whether a member passes `--status` (any of them) and `--tag` (every one), as `serf members -status -tag` do. */
function matches(member: MemberJson, filter: Pick<MembersArgs, 'tags' | 'statuses'>): boolean {
  if (filter.statuses.length > 0 && !(filter.statuses as readonly string[]).includes(member.state)) return false;
  return Object.entries(filter.tags).every(([key, value]) => Object.hasOwn(member.tags, key) && member.tags[key] === value);
}

/** `swim tags --set k=v --delete k`: the agent gossips its new tags and answers with them. */
export async function tags(args: TagsArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args, 'POST', '/tags', { set: args.set, delete: args.delete });
  if (res.status !== 200) throw refused(res);
  const body = res.body as { tags: Record<string, string>; spread: boolean };
  if (args.json) return out(JSON.stringify(body, null, 2));
  const tagList = tagsText(body.tags);
  out(`tags: ${tagList === '' ? '(none)' : tagList}${body.spread ? '' : ' (not yet confirmed spread to every member)'}`);
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

export async function join(args: JoinArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args, 'POST', '/join', { seeds: args.seeds });
  const body = res.body as { contacted?: string[]; failed?: Array<{ address: string; reason: string }> };
  const failedLines = (body.failed ?? []).map((f) => `could not join through ${f.address}: ${f.reason}`);
  if (res.status !== 200) throw new ClientError([refused(res).message, ...(res.status === 502 ? [] : failedLines)].join('\n'));
  out([`joined through ${(body.contacted ?? []).join(', ')}`, ...failedLines].join('\n'));
}

export async function leave(args: LeaveArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args, 'POST', '/leave', {});
  if (res.status !== 200) throw refused(res);
  const spread = (res.body as { spread?: boolean }).spread === true;
  out(spread ? 'left the cluster; the agent is exiting' : 'leave announced but not confirmed spread within the timeout; the agent is exiting');
}

/**
 * `swim keys ACTION [KEY]`: the agent carries the operation to every live member and reports.
 * Exit code 1 when any member did not answer or refused (Serf's `keys` does the same).
 */
export async function keys(args: KeysArgs, out: (text: string) => void): Promise<number> {
  const res = await call(args, 'POST', '/keys', { op: args.action, ...(args.key === undefined ? {} : { key: args.key }), timeoutMs: args.timeoutMs });
  if (res.status !== 200) throw refused(res);
  const report = res.body as KeyOpReport;
  out(args.json ? JSON.stringify(report, null, 2) : formatKeyOpReport(report));
  return report.failures.length === 0 && report.succeeded === report.members ? 0 : 1;
}
