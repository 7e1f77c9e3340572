/**
 * `swim agent --serf-rpc ADDR`: Serf's agent RPC (`serf agent -rpc-addr`) on TCP, so that the
 * real `serf` CLI and programs built on Serf's RPC client drive a swim agent. Each connection is a
 * {@link SerfRpcSession}; the server bounds how many are open at once.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { SerfRpcBackend } from './backend.js';
import { DEFAULT_SERF_RPC_LIMITS, type SerfRpcLimits } from './protocol.js';
import { SerfRpcSession, type SessionCounters } from './session.js';

export interface SerfRpcServerOptions {
  readonly host: string;
  readonly port: number;
  readonly backend: SerfRpcBackend;
  /** The token clients must send with `auth` (Serf's rpc_auth); undefined: none. */
  readonly authToken?: string | undefined;
  readonly limits?: Partial<SerfRpcLimits> | undefined;
  /** A connection refused or closed for breaking a rule (logged by the agent). */
  readonly onProblem?: (remote: string, reason: string) => void;
}

export interface SerfRpcCounters extends SessionCounters {
  accepted: number;
  /** Connections closed at accept: `maxConnections` were open. */
  refused: number;
  /** Connections closed for breaking a rule (oversized, slow, unknown command...). */
  closedForProblems: number;
}

export interface SerfRpcServer {
  readonly address: AddressInfo;
  readonly counters: Readonly<SerfRpcCounters>;
  /** Connections open now. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startSerfRpcServer(options: SerfRpcServerOptions): Promise<SerfRpcServer> {
  const limits: SerfRpcLimits = { ...DEFAULT_SERF_RPC_LIMITS, ...options.limits };
  const counters: SerfRpcCounters = { accepted: 0, refused: 0, closedForProblems: 0, droppedRecords: 0, maxOutputBufferedBytes: 0 };
  const sessions = new Set<SerfRpcSession>();
  const onProblem = options.onProblem ?? (() => {});
  const server: Server = createServer({ pauseOnConnect: false }, (socket: Socket) => {
    if (sessions.size >= limits.maxConnections) {
      counters.refused++;
      socket.destroy();
      return;
    }
    counters.accepted++;
    const remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    const session = new SerfRpcSession(socket, {
      backend: options.backend,
      authToken: options.authToken,
      limits,
      counters,
      onProblem: (reason) => {
        counters.closedForProblems++;
        onProblem(remote, reason);
      },
    });
    sessions.add(session);
    socket.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    address: server.address() as AddressInfo,
    counters,
    get connections() {
      return sessions.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.close();
        sessions.clear();
        server.close(() => resolve());
      }),
  };
}
