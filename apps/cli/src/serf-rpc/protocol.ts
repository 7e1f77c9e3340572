/**
 * Serf's agent RPC protocol (serf cmd/serf/command/agent/ipc.go, IPC version 1): command names,
 * the error texts the real `serf` CLI and RPC clients expect, word for word, and the bounds this
 * server adds. docs/serf-rpc.md describes the protocol and what differs from a Serf agent.
 */

export const IPC_VERSION = 1;

export const COMMANDS = [
  'handshake',
  'auth',
  'event',
  'force-leave',
  'join',
  'members',
  'members-filtered',
  'stream',
  'stop',
  'monitor',
  'leave',
  'install-key',
  'use-key',
  'remove-key',
  'list-keys',
  'tags',
  'query',
  'respond',
  'stats',
  'get-coordinate',
] as const;
export type Command = (typeof COMMANDS)[number];

export function isCommand(name: unknown): name is Command {
  return typeof name === 'string' && (COMMANDS as readonly string[]).includes(name);
}

/** Commands whose request has no body (ipc.go reads none for them). */
export const BODILESS: ReadonlySet<Command> = new Set(['members', 'leave', 'list-keys', 'stats']);

/** Serf's error texts (ipc.go constants), exactly. */
export const ERRORS = {
  unsupportedCommand: 'Unsupported command',
  unsupportedIPCVersion: 'Unsupported IPC version',
  duplicateHandshake: 'Handshake already performed',
  handshakeRequired: 'Handshake required',
  monitorExists: 'Monitor already exists',
  invalidFilter: 'Invalid event filter',
  streamExists: 'Stream with given sequence exists',
  invalidQueryID: 'No pending queries matching ID',
  authRequired: 'Authentication required',
  invalidAuthToken: 'Invalid authentication token',
} as const;

/** This server's bounds on hostile clients (a Serf agent has none of them). */
export interface SerfRpcLimits {
  /** Connections open at once; the next one is closed at accept. */
  readonly maxConnections: number;
  /** Largest request value (header or body), in bytes; a larger declared length closes the connection before any allocation. */
  readonly maxRequestBytes: number;
  /** Deepest nesting in a request. */
  readonly maxDepth: number;
  /** A request whose first byte arrived must be complete within this (a slow-drip client is closed). */
  readonly requestTimeoutMs: number;
  /** The handshake (and, with a token, a successful `auth`) must arrive within this after connecting. */
  readonly handshakeTimeoutMs: number;
  /** `stream` + `monitor` + running `query` streams on one connection. */
  readonly maxStreamsPerConnection: number;
  /** Query records awaiting `respond` on one connection (the oldest is forgotten first). */
  readonly maxPendingResponds: number;
  /**
   * Bytes written to a connection and not yet taken by its peer. Above it, stream and monitor
   * records are dropped (Serf drops what its 512-slot channel cannot take) and requests are not
   * read; a reply or query record that would go past twice this closes the connection.
   */
  readonly outputHighWaterBytes: number;
}

export const DEFAULT_SERF_RPC_LIMITS: SerfRpcLimits = Object.freeze({
  maxConnections: 64,
  maxRequestBytes: 64 * 1024,
  maxDepth: 8,
  requestTimeoutMs: 10_000,
  handshakeTimeoutMs: 10_000,
  maxStreamsPerConnection: 16,
  maxPendingResponds: 256,
  outputHighWaterBytes: 1024 * 1024,
});

/** The error text of a refused stream, monitor or query over {@link SerfRpcLimits.maxStreamsPerConnection} (Serf has no such limit). */
export function tooManyStreams(limit: number): string {
  return `Too many streams on this connection (at most ${limit})`;
}
