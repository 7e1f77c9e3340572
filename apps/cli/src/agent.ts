/**
 * `swim agent`: one member on a UDP/TCP transport, its membership changes on stdout, and the
 * control endpoint (HTTP/1.1 + JSON on loopback) that `swim members|join|leave|stats` talk to.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JoinError, Member, type JoinResult } from '@swim/runtime';
import { createUdpTransport, formatAddress, type UdpTransport } from '@swim/transport-udp';
import { encodeMeta, type AgentArgs } from './args.js';
import { changeJson, changeLine, memberJson, type MembersReply } from './format.js';

/** A runtime failure (exit code 1). */
export class AgentError extends Error {
  override name = 'AgentError';
}

export interface AgentIo {
  readonly out: (line: string) => void;
  readonly now?: () => Date;
}

/** Largest request body the control endpoint reads. */
const MAX_BODY_BYTES = 64 * 1024;

export interface RunningAgent {
  readonly member: Member;
  readonly address: string;
  readonly rpcAddress: string;
  /** Resolves with the exit code once the agent has stopped. */
  readonly stopped: Promise<number>;
  /** Leave (bounded wait), close, resolve `stopped`. Idempotent. */
  shutdown(reason: string): Promise<number>;
}

export async function startAgent(args: AgentArgs, io: AgentIo): Promise<RunningAgent> {
  const now = io.now ?? (() => new Date());
  const log = (event: string, text: string, fields: Record<string, unknown> = {}) => {
    if (args.log === 'json') io.out(JSON.stringify({ time: now().toISOString(), self: args.name, event, ...fields }));
    else io.out(`${now().toISOString()} ${args.name} ${text}`);
  };

  let transport: UdpTransport;
  const bindText = formatAddress(args.bind.host, args.bind.port);
  try {
    transport = await createUdpTransport({
      bind: args.bind,
      ...(args.advertise === undefined ? {} : { advertise: args.advertise }),
      streamTimeoutMs: args.config.streamTimeoutMs,
      maxPacketBytes: args.config.maxPacketBytes,
    });
  } catch (error) {
    throw new AgentError(`cannot bind ${bindText}: ${describeSocketError(error)}`);
  }

  let member: Member;
  try {
    member = new Member({ name: args.name, transport, meta: encodeMeta(args.meta), config: args.config });
  } catch (error) {
    await transport.close();
    throw new AgentError(`cannot start member: ${(error as Error).message}`);
  }

  let rpc: Server;
  let rpcAddress: string;
  let shutdown!: (reason: string) => Promise<number>;
  try {
    rpc = createServer((req, res) => {
      handle(req, res).catch((error: unknown) => reply(res, 500, { error: (error as Error).message }));
    });
    await new Promise<void>((resolve, reject) => {
      rpc.once('error', reject);
      rpc.listen(args.rpc.port, args.rpc.host, () => {
        rpc.off('error', reject);
        resolve();
      });
    });
    const bound = rpc.address() as AddressInfo;
    rpcAddress = formatAddress(bound.address, bound.port);
  } catch (error) {
    await member.close();
    throw new AgentError(`cannot listen for control requests on ${formatAddress(args.rpc.host, args.rpc.port)}: ${describeSocketError(error)}`);
  }

  member.on('change', (change) => {
    if (args.log === 'json') io.out(JSON.stringify(changeJson(now(), args.name, change)));
    else io.out(changeLine(now(), args.name, change));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const route = `${req.method ?? 'GET'} ${path}`;
    switch (route) {
      case 'GET /members': {
        const body: MembersReply = { self: member.name, healthScore: member.healthScore, members: member.allMembers().map(memberJson) };
        return reply(res, 200, body);
      }
      case 'GET /stats':
        return reply(res, 200, {
          name: member.name,
          address: member.address,
          incarnation: member.incarnation,
          healthScore: member.healthScore,
          counters: member.counters,
          transport: transport.counters,
        });
      case 'POST /join': {
        const body = await readJson(req);
        const seeds = (body as { seeds?: unknown } | undefined)?.seeds;
        if (!Array.isArray(seeds) || seeds.length === 0 || !seeds.every((s) => typeof s === 'string')) {
          return reply(res, 400, { error: 'expected {"seeds": ["HOST:PORT", ...]}' });
        }
        if (stopping) return reply(res, 409, { error: 'the agent is leaving' });
        try {
          const result = await member.join(seeds as string[]);
          logJoin(result);
          return reply(res, 200, result);
        } catch (error) {
          if (!(error instanceof JoinError)) throw error;
          logJoin(error.result);
          return reply(res, 502, { error: error.message, ...error.result });
        }
      }
      case 'POST /leave': {
        // Answer once the leave has spread (bounded), then close and exit.
        void shutdown('leave requested');
        const result = await leaving;
        return reply(res, 200, { left: true, spread: result?.spread ?? false });
      }
      default:
        return reply(res, 404, { error: `no route ${route}; try GET /members, GET /stats, POST /join, POST /leave` });
    }
  }

  function logJoin(result: JoinResult): void {
    for (const failed of result.failed) log('join-failed', `could not join through ${failed.address}: ${failed.reason}`, failed);
    if (result.contacted.length > 0) log('joined', `joined through ${result.contacted.join(', ')}`, { contacted: result.contacted });
  }

  log('start', `listening on ${transport.address} (bind ${formatAddress(args.bind.host, transport.port)}), control endpoint http://${rpcAddress}`, {
    address: transport.address,
    port: transport.port,
    rpc: rpcAddress,
    profile: args.profile,
  });

  let stopping = false;
  let leaving: Promise<{ spread: boolean } | undefined> | undefined;
  let resolveStopped!: (code: number) => void;
  const stopped = new Promise<number>((resolve) => {
    resolveStopped = resolve;
  });
  shutdown = (reason) => {
    if (stopping) return stopped;
    stopping = true;
    log('leave', `leaving (${reason}), waiting up to ${args.leaveTimeoutMs} ms for the leave to spread`, { reason });
    leaving = member.leave({ timeoutMs: args.leaveTimeoutMs }).catch((error: unknown) => {
      log('error', `leave failed: ${(error as Error).message}`);
      return undefined;
    });
    void leaving.then(async (result) => {
      log('stop', `left (spread: ${result?.spread ?? false}), closing`, { spread: result?.spread ?? false });
      // Give the POST /leave reply a moment to be written before the server closes.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await member.close();
      rpc.closeAllConnections();
      await new Promise<void>((resolve) => rpc.close(() => resolve()));
      resolveStopped(0);
    });
    return stopped;
  };

  if (args.join.length > 0) {
    // Serf keeps running when the seeds are unreachable: log which failed, retry with `swim join`.
    member.join(args.join).then(logJoin, (error: unknown) => {
      if (error instanceof JoinError) logJoin(error.result);
      else log('error', `join failed: ${(error as Error).message}`);
    });
  }

  return { member, address: transport.address, rpcAddress, stopped, shutdown: (reason) => shutdown(reason) };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

export function describeSocketError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'EADDRINUSE':
      return 'address already in use (another agent running? pick another port)';
    case 'EADDRNOTAVAIL':
      return 'address not available on this machine';
    case 'EACCES':
      return 'permission denied (ports below 1024 need privileges)';
    default:
      return (error as Error).message;
  }
}
