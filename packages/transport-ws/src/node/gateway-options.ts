import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { encryptionOverhead, KEY_OPS_SERVICE, keyOpsService, labelHeader, validateSecureTransportOptions, type SecureTransportOptions } from '@swim/encryption';
import { credentialKeys, type CredentialKeys } from './credential.js';
import { rateLimitProblems, type RateLimitOptions } from './rate-limit.js';
import { digest } from './secret.js';
import { tlsProblems, type GatewayTlsOptions } from './tls.js';

/**
 * How relays protect their leg into the cluster: what @swim/encryption's secureTransport takes
 * (keyring, label, verifyIncoming, verifyOutgoing, maxInFlight, services), less onError: its
 * errors go to the gateway's.
 */
export type GatewayEncryptionOptions = Omit<SecureTransportOptions, 'onError'>;

/** Options of {@link createWsGateway}: where it listens, the cluster its relays join, and the limits it enforces per connection and in total. */
export interface WsGatewayOptions {
  /** Host the WebSocket server listens on. Default 127.0.0.1. */
  readonly host?: string;
  /** Port of the WebSocket server; 0 (default) picks a free one, reported as `port`. */
  readonly port?: number;
  /** URL path clients connect to. Default "/". */
  readonly path?: string;
  /**
   * Serve `wss://` with this certificate and key (PEM): an HTTPS server under the WebSocket
   * server. Without it the gateway serves plain `ws://` (put it behind a TLS proxy then).
   */
  readonly tls?: GatewayTlsOptions;
  /** Join token: when set, a hello without this exact token is refused with 4001. */
  readonly token?: string;
  /**
   * The key behind the member credentials this gateway signs and checks (README "Several gateways
   * and failover"): a member welcomed by one gateway can move to another that has the same secret
   * when its gateway goes away. At least 16 characters. Default: derived from `token`, else from
   * the `encryption` keyring, else random to this process (members then cannot move to another
   * gateway, only resume on this one).
   */
  readonly credentialSecret?: string;
  /** Largest WebSocket message accepted (ws `maxPayload`); more closes with 1009. Default 64 KiB. */
  readonly maxMessageBytes?: number;
  /** Per-connection rate limit (token bucket), or `false` for none. Defaults: 500/s, burst 1000. */
  readonly rateLimit?: RateLimitOptions | false;
  /** IP literal the per-member relay sockets bind (UDP + TCP, port 0). Default 127.0.0.1. */
  readonly relayHost?: string;
  /** Host put in relay addresses, when the cluster must dial something else than relayHost (required for a wildcard relayHost). */
  readonly relayAdvertiseHost?: string;
  /**
   * The relays' MTU. Clients are handed what is left of it for their packets: less the encryption
   * overhead and the label header when `encryption` adds them. Default 1400.
   */
  readonly maxPacketBytes?: number;
  /**
   * Encrypt the relay leg with the cluster keyring (and label): each relay is wrapped with
   * secureTransport, so browsers stay in plaintext with the gateway (over wss://) while what the
   * relays send into the cluster is encrypted, and what reaches them is decrypted (or dropped,
   * counted) before it goes to the browser. With a keyring and no `services`, relays run the
   * key-ops service on that keyring: a cluster-wide `swim keys` reaches the gateway's keyring
   * through them (so its relays follow a rotation) and counts its browser members as answering.
   */
  readonly encryption?: GatewayEncryptionOptions;
  /** How long a relay outlives a dropped connection, waiting for its member to reconnect. Default 30 000 ms. */
  readonly reconnectGraceMs?: number;
  /** A connection must say hello within this long. Default 10 000 ms. */
  readonly helloTimeoutMs?: number;
  /** Longest timeout honoured for a client's request. Default 60 000 ms. */
  readonly maxRequestTimeoutMs?: number;
  /**
   * Bytes the gateway may hold for one connection: frames queued for it and not yet written to its
   * socket (packets, relay streams, results) plus its requests in flight. Past it packets are
   * dropped, relay streams refused, results and requests failed (all counted). Default 1 MiB; at
   * least maxMessageBytes.
   */
  readonly maxBufferedBytes?: number;
  /** The same, summed over every connection. Default 64 MiB; at least maxBufferedBytes. */
  readonly maxTotalBufferedBytes?: number;
  /** Connections (at the WebSocket upgrade, HTTP 503) and relays (at the hello, 4008) at once. Default 1024. */
  readonly maxSessions?: number;
  /** The same per client address (HTTP 429 / 4008); IPv6 addresses count per /64. Default 16. */
  readonly maxSessionsPerIp?: number;
  /**
   * The address a WebSocket upgrade counts against for maxSessionsPerIp. Default: the socket's
   * remote address. Behind a reverse proxy, read the proxy's header (e.g. X-Forwarded-For) here.
   */
  readonly clientAddress?: (request: IncomingMessage) => string;
  /** Streams open at once through one relay, both ways (each is a TCP connection). Default 16. */
  readonly maxStreamsPerSession?: number;
  /**
   * A relay whose member has not joined by then (nothing came from the cluster and no request was
   * answered) is released and its connection closed with 4009. Default 10 000 ms.
   */
  readonly joinTimeoutMs?: number;
  /** The gateway process's own member address, handed to clients in the welcome as `seed`. */
  readonly seed?: string;
  /**
   * The name of the member at `seed`. Client gossip accusing it (suspect or dead, as messages or
   * push-pull entries) is removed before it reaches any other member (see README).
   */
  readonly seedName?: string;
  /** Called with every exception caught in a gateway callback (counted as internalErrors). Default: console.error. */
  readonly onError?: (error: unknown, context: string) => void;
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
  /** Largest stream frame a relay reads (maxMessageBytes: what a client may send either). */
  readonly maxFrameBytes: number;
  /** Streams a relay keeps open at once (maxStreamsPerSession). */
  readonly maxStreams: number;
  /** What each relay is wrapped with (secureTransport), or undefined for a plain relay. */
  readonly encryption: GatewayEncryptionOptions | undefined;
}

/** {@link WsGatewayOptions} checked and with every default filled in. */
export interface GatewaySettings {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly tls: GatewayTlsOptions | undefined;
  /** SHA-256 of the join token, so that comparing it takes the same time whatever the guess. */
  readonly tokenHash: Buffer | undefined;
  /** Signs and checks the member credentials (credential.ts). */
  readonly credentials: CredentialKeys;
  readonly maxMessageBytes: number;
  /** `undefined` when the rate limit is off. */
  readonly rateLimit: RateLimitOptions | undefined;
  readonly relay: RelaySettings;
  readonly reconnectGraceMs: number;
  readonly helloTimeoutMs: number;
  readonly maxRequestTimeoutMs: number;
  readonly maxBufferedBytes: number;
  readonly maxTotalBufferedBytes: number;
  readonly maxSessions: number;
  readonly maxSessionsPerIp: number;
  readonly clientAddress: ((request: IncomingMessage) => string) | undefined;
  readonly maxStreamsPerSession: number;
  readonly joinTimeoutMs: number;
  readonly seed: string | undefined;
  readonly seedName: string | undefined;
  readonly verify: boolean;
  readonly now: () => number;
  readonly onError: (error: unknown, context: string) => void;
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
  const count = (name: string, value: number): number => {
    if (!Number.isInteger(value) || value < 1) problems.push(`${name} must be a positive integer, got ${value}`);
    return value;
  };
  const maxBufferedBytes = positive('maxBufferedBytes', options.maxBufferedBytes ?? 1024 * 1024);
  // A relay stream or a reply may be maxMessageBytes long: a smaller budget could never deliver it.
  if (maxBufferedBytes < maxMessageBytes) problems.push(`maxBufferedBytes (${maxBufferedBytes}) must be at least maxMessageBytes (${maxMessageBytes})`);
  const maxTotalBufferedBytes = positive('maxTotalBufferedBytes', options.maxTotalBufferedBytes ?? 64 * 1024 * 1024);
  if (maxTotalBufferedBytes < maxBufferedBytes) problems.push(`maxTotalBufferedBytes (${maxTotalBufferedBytes}) must be at least maxBufferedBytes (${maxBufferedBytes})`);
  const maxSessions = count('maxSessions', options.maxSessions ?? 1024);
  const maxSessionsPerIp = count('maxSessionsPerIp', options.maxSessionsPerIp ?? 16);
  const maxStreamsPerSession = count('maxStreamsPerSession', options.maxStreamsPerSession ?? 16);
  const joinTimeoutMs = positive('joinTimeoutMs', options.joinTimeoutMs ?? 10_000);
  for (const name of ['clientAddress', 'onError', 'now'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') problems.push(`${name} must be a function`);
  }
  if (options.seedName !== undefined && (typeof options.seedName !== 'string' || options.seedName.length === 0)) {
    problems.push('seedName must be a non-empty string');
  }
  problems.push(...credentialSecretProblems(options.credentialSecret));
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token.length === 0)) problems.push('token must be a non-empty string');
  if (options.tls !== undefined) problems.push(...tlsProblems(options.tls));
  if (options.encryption !== undefined) problems.push(...encryptionProblems(options.encryption, maxPacketBytes));
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
    tls: options.tls,
    tokenHash: options.token === undefined ? undefined : digest(options.token),
    credentials: credentialKeys({ credentialSecret: options.credentialSecret, token: options.token, keyring: options.encryption?.keyring }),
    maxMessageBytes,
    rateLimit,
    relay: {
      host: relayHost,
      advertiseHost: options.relayAdvertiseHost,
      maxPacketBytes,
      maxFrameBytes: maxMessageBytes,
      maxStreams: maxStreamsPerSession,
      encryption: withKeyOps(options.encryption),
    },
    reconnectGraceMs,
    helloTimeoutMs,
    maxRequestTimeoutMs,
    maxBufferedBytes,
    maxTotalBufferedBytes,
    maxSessions,
    maxSessionsPerIp,
    clientAddress: options.clientAddress,
    maxStreamsPerSession,
    joinTimeoutMs,
    seed: options.seed,
    seedName: options.seedName,
    verify: options.verify ?? true,
    now: options.now ?? (() => performance.now()),
    onError: options.onError ?? logError,
  };
}

/** Shortest credentialSecret taken: a shorter one could be guessed from a credential offline. */
const MIN_CREDENTIAL_SECRET_LENGTH = 16;

function credentialSecretProblems(secret: unknown): string[] {
  if (secret === undefined) return [];
  if (typeof secret !== 'string') return ['credentialSecret must be a string'];
  if (secret.length < MIN_CREDENTIAL_SECRET_LENGTH) return [`credentialSecret must be at least ${MIN_CREDENTIAL_SECRET_LENGTH} characters, got ${secret.length}`];
  return [];
}

function encryptionProblems(encryption: GatewayEncryptionOptions, maxPacketBytes: number): string[] {
  if (typeof encryption !== 'object' || encryption === null) return ['encryption must be an object'];
  const problems = validateSecureTransportOptions(encryption).map((problem) => `encryption: ${problem}`);
  // Relays report their errors to the gateway's onError.
  if ('onError' in encryption) problems.push('encryption.onError is not taken: relay errors go to the gateway\'s onError');
  if (problems.length === 0) {
    // What secureTransport would refuse at the first hello: no room left in a packet for the browser's bytes.
    const envelope = (encryption.keyring === undefined ? 0 : encryptionOverhead(1)) + (encryption.label === undefined ? 0 : labelHeader(encryption.label).length);
    if (maxPacketBytes <= envelope) problems.push(`maxPacketBytes (${maxPacketBytes}) leaves no room for a packet after the encryption envelope (${envelope} bytes)`);
  }
  return problems;
}

function logError(error: unknown, context: string): void {
  console.error(`@swim/transport-ws gateway: ${context}:`, error);
}

/** The relays' encryption: the key-ops service on the gateway's keyring unless services were given. */
function withKeyOps(encryption: GatewayEncryptionOptions | undefined): GatewayEncryptionOptions | undefined {
  if (encryption?.keyring === undefined || encryption.services !== undefined) return encryption;
  return { ...encryption, services: { [KEY_OPS_SERVICE]: keyOpsService(encryption.keyring) } };
}
