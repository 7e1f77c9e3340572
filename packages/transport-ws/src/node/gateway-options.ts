import { isIP } from 'node:net';
import { rateLimitProblems, type RateLimitOptions } from './rate-limit.js';
import { digest } from './secret.js';

export interface WsGatewayOptions {
  /** Host the WebSocket server listens on. Default 127.0.0.1. */
  readonly host?: string;
  /** Port of the WebSocket server; 0 (default) picks a free one, reported as `port`. */
  readonly port?: number;
  /** URL path clients connect to. Default "/". */
  readonly path?: string;
  /** Join token: when set, a hello without this exact token is refused with 4001. */
  readonly token?: string;
  /** Largest WebSocket message accepted (ws `maxPayload`); more closes with 1009. Default 64 KiB. */
  readonly maxMessageBytes?: number;
  /** Per-connection rate limit (token bucket), or `false` for none. Defaults: 500/s, burst 1000. */
  readonly rateLimit?: RateLimitOptions | false;
  /** IP literal the per-member relay sockets bind (UDP + TCP, port 0). Default 127.0.0.1. */
  readonly relayHost?: string;
  /** Host put in relay addresses, when the cluster must dial something else than relayHost (required for a wildcard relayHost). */
  readonly relayAdvertiseHost?: string;
  /** The relays' MTU, handed to clients as maxPacketBytes. Default 1400. */
  readonly maxPacketBytes?: number;
  /** How long a relay outlives a dropped connection, waiting for its member to reconnect. Default 30 000 ms. */
  readonly reconnectGraceMs?: number;
  /** A connection must say hello within this long. Default 10 000 ms. */
  readonly helloTimeoutMs?: number;
  /** Longest timeout honoured for a client's request. Default 60 000 ms. */
  readonly maxRequestTimeoutMs?: number;
  /** Bytes waiting in a connection's send buffer past which packets for it are dropped. Default 1 MiB. */
  readonly maxBufferedBytes?: number;
  /** The gateway process's own member address, handed to clients in the welcome as `seed`. */
  readonly seed?: string;
  /**
   * Check everything a client sends with @swim/core's decoder so that a connection can only speak
   * for its own member (see README). Default true; `false` relays any bytes (trusted clients and
   * transport tests that send non-SWIM bytes only).
   */
  readonly verify?: boolean;
  /** Monotonic milliseconds for the rate limit; default `performance.now`. */
  readonly now?: () => number;
}

/** Where and how the per-member relay sockets are opened. */
export interface RelaySettings {
  readonly host: string;
  readonly advertiseHost: string | undefined;
  readonly maxPacketBytes: number;
}

/** {@link WsGatewayOptions} checked and with every default filled in. */
export interface GatewaySettings {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  /** SHA-256 of the join token, so that comparing it takes the same time whatever the guess. */
  readonly tokenHash: Buffer | undefined;
  readonly maxMessageBytes: number;
  /** `undefined` when the rate limit is off. */
  readonly rateLimit: RateLimitOptions | undefined;
  readonly relay: RelaySettings;
  readonly reconnectGraceMs: number;
  readonly helloTimeoutMs: number;
  readonly maxRequestTimeoutMs: number;
  readonly maxBufferedBytes: number;
  readonly seed: string | undefined;
  readonly verify: boolean;
  readonly now: () => number;
}

/**
 * Check `options` and fill in the defaults. Every problem is listed in one RangeError, so that a
 * misconfigured deployment is fixed in one round rather than one option at a time.
 */
export function resolveGatewayOptions(options: WsGatewayOptions): GatewaySettings {
  const problems: string[] = [];
  const positive = (name: string, value: number): number => {
    if (!Number.isFinite(value) || value <= 0) problems.push(`${name} must be a positive number, got ${value}`);
    return value;
  };
  const relayHost = options.relayHost ?? '127.0.0.1';
  if (isIP(relayHost) === 0) problems.push(`relayHost must be an IP literal, got ${relayHost}`);
  if ((relayHost === '0.0.0.0' || relayHost === '::') && options.relayAdvertiseHost === undefined) {
    problems.push('relayAdvertiseHost is required when relayHost is a wildcard address');
  }
  const maxMessageBytes = positive('maxMessageBytes', options.maxMessageBytes ?? 64 * 1024);
  const maxPacketBytes = positive('maxPacketBytes', options.maxPacketBytes ?? 1400);
  // A packet frame is 2 bytes plus an address (at most 255) plus the packet.
  if (maxMessageBytes < maxPacketBytes + 257) {
    problems.push(`maxMessageBytes (${maxMessageBytes}) must leave room for a packet of maxPacketBytes (${maxPacketBytes}) and its frame header: at least ${maxPacketBytes + 257}`);
  }
  const reconnectGraceMs = options.reconnectGraceMs ?? 30_000;
  if (!Number.isFinite(reconnectGraceMs) || reconnectGraceMs < 0) problems.push(`reconnectGraceMs must be a non-negative number, got ${reconnectGraceMs}`);
  const helloTimeoutMs = positive('helloTimeoutMs', options.helloTimeoutMs ?? 10_000);
  const maxRequestTimeoutMs = positive('maxRequestTimeoutMs', options.maxRequestTimeoutMs ?? 60_000);
  const maxBufferedBytes = positive('maxBufferedBytes', options.maxBufferedBytes ?? 1024 * 1024);
  const rateLimit = options.rateLimit === false ? undefined : (options.rateLimit ?? {});
  if (rateLimit !== undefined) problems.push(...rateLimitProblems(rateLimit));
  if (problems.length > 0) {
    const n = problems.length;
    throw new RangeError(`Invalid WebSocket gateway options (${n} problem${n === 1 ? '' : 's'}):\n${problems.map((p) => `- ${p}`).join('\n')}`);
  }
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    path: options.path ?? '/',
    tokenHash: options.token === undefined ? undefined : digest(options.token),
    maxMessageBytes,
    rateLimit,
    relay: { host: relayHost, advertiseHost: options.relayAdvertiseHost, maxPacketBytes },
    reconnectGraceMs,
    helloTimeoutMs,
    maxRequestTimeoutMs,
    maxBufferedBytes,
    seed: options.seed,
    verify: options.verify ?? true,
    now: options.now ?? (() => performance.now()),
  };
}
