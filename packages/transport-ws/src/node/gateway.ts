import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { createUdpTransport, type UdpTransport } from '@swim/transport-udp';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import {
  decodeFrame,
  encodePacket,
  encodeResult,
  encodeStream,
  OP_PACKET,
  OP_REPLY,
  OP_REQUEST,
  parseHello,
  PROTOCOL_VERSION,
  WS_CLOSE,
  type Hello,
  type Welcome,
} from '../protocol/framing.js';
import { zeroWsGatewayCounters, type WsGatewayCounters } from './gateway-counters.js';
import { rateLimitProblems, TokenBucket, type RateLimitOptions } from './rate-limit.js';
import { checkClientBytes, type SpoofReason } from './verify.js';

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

/** A running gateway; create it with {@link createWsGateway}. */
export interface WsGateway {
  /** `ws://host:port/path`. */
  readonly url: string;
  readonly port: number;
  readonly counters: WsGatewayCounters;
  /** Names with a relay (connected or within their reconnect grace), with their relay address. */
  sessions(): Array<{ readonly name: string; readonly address: string; readonly connected: boolean }>;
  /** Close every connection (1001) and relay; idempotent. */
  close(): Promise<void>;
}

interface Session {
  readonly name: string;
  readonly resume: string;
  readonly relay: UdpTransport;
  conn: Connection | undefined;
  grace: ReturnType<typeof setTimeout> | undefined;
}

interface Connection {
  readonly ws: WebSocket;
  readonly bucket: TokenBucket | undefined;
  readonly helloTimer: ReturnType<typeof setTimeout>;
  /** 'hello' until a hello arrived, 'opening' while its relay opens, then 'ready'. */
  phase: 'hello' | 'opening' | 'ready' | 'closed';
  session: Session | undefined;
  readonly streams: Map<number, { reply: (bytes: Uint8Array | undefined) => void; timer: ReturnType<typeof setTimeout> }>;
  nextStreamId: number;
}

const RELAY_STREAM_WAIT_MS = 10_000;

/** Start a gateway: a WebSocket server that gives each browser member a relay socket in the cluster. */
export async function createWsGateway(options: WsGatewayOptions = {}): Promise<WsGateway> {
  const problems: string[] = [];
  const positive = (name: string, value: number): number => {
    if (!Number.isFinite(value) || value <= 0) problems.push(`${name} must be a positive number, got ${value}`);
    return value;
  };
  const host = options.host ?? '127.0.0.1';
  const relayHost = options.relayHost ?? '127.0.0.1';
  if (isIP(relayHost) === 0) problems.push(`relayHost must be an IP literal, got ${relayHost}`);
  if ((relayHost === '0.0.0.0' || relayHost === '::') && options.relayAdvertiseHost === undefined) {
    problems.push('relayAdvertiseHost is required when relayHost is a wildcard address');
  }
  const path = options.path ?? '/';
  const maxMessageBytes = positive('maxMessageBytes', options.maxMessageBytes ?? 64 * 1024);
  const maxPacketBytes = positive('maxPacketBytes', options.maxPacketBytes ?? 1400);
  // A packet frame is 2 bytes plus an address (at most 255) plus the packet.
  if (maxMessageBytes < maxPacketBytes + 257) {
    problems.push(`maxMessageBytes (${maxMessageBytes}) must leave room for a packet of maxPacketBytes (${maxPacketBytes}) and its frame header: at least ${maxPacketBytes + 257}`);
  }
  const graceMs = options.reconnectGraceMs ?? 30_000;
  if (!Number.isFinite(graceMs) || graceMs < 0) problems.push(`reconnectGraceMs must be a non-negative number, got ${graceMs}`);
  const helloTimeoutMs = positive('helloTimeoutMs', options.helloTimeoutMs ?? 10_000);
  const maxRequestTimeoutMs = positive('maxRequestTimeoutMs', options.maxRequestTimeoutMs ?? 60_000);
  const maxBufferedBytes = positive('maxBufferedBytes', options.maxBufferedBytes ?? 1024 * 1024);
  const rateLimit = options.rateLimit === false ? undefined : (options.rateLimit ?? {});
  if (rateLimit !== undefined) problems.push(...rateLimitProblems(rateLimit));
  if (problems.length > 0) {
    const n = problems.length;
    throw new RangeError(`Invalid WebSocket gateway options (${n} problem${n === 1 ? '' : 's'}):\n${problems.map((p) => `- ${p}`).join('\n')}`);
  }
  const verify = options.verify ?? true;
  const now = options.now ?? (() => performance.now());
  const tokenHash = options.token === undefined ? undefined : digest(options.token);

  const counters = zeroWsGatewayCounters();
  const sessions = new Map<string, Session>();
  const opening = new Set<string>();
  const connections = new Set<Connection>();
  let closing: Promise<void> | undefined;

  const wss = new WebSocketServer({ host, port: options.port ?? 0, path, maxPayload: maxMessageBytes, clientTracking: false });
  await new Promise<void>((resolve, reject) => {
    wss.once('error', reject);
    wss.once('listening', () => {
      wss.off('error', reject);
      resolve();
    });
  });
  wss.on('error', () => {
    // Server errors after listening (rare) must not crash the process.
  });
  const port = (wss.address() as { port: number }).port;
  const urlHost = isIP(host) === 6 ? `[${host}]` : host;

  const safeClose = (conn: Connection, code: number, reason: string): void => {
    try {
      conn.ws.close(code, reason);
    } catch {
      conn.ws.terminate();
    }
  };

  const send = (conn: Connection, data: Uint8Array | string): boolean => {
    if (conn.ws.readyState !== WebSocket.OPEN) return false;
    try {
      conn.ws.send(data);
      return true;
    } catch {
      return false;
    }
  };

  const spoofed = (reason: SpoofReason): void => {
    counters.spoofDropped++;
    counters.spoof[reason]++;
  };

  const release = (session: Session, expired: boolean): void => {
    clearTimeout(session.grace);
    session.grace = undefined;
    if (sessions.get(session.name) === session) sessions.delete(session.name);
    counters.relaysClosed++;
    if (expired) counters.graceExpired++;
    void session.relay.close();
  };

  const welcome = (conn: Connection, session: Session, resumed: boolean): void => {
    conn.session = session;
    conn.phase = 'ready';
    session.conn = conn;
    const message: Welcome = {
      op: 'welcome',
      v: PROTOCOL_VERSION,
      address: session.relay.address,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      maxPacketBytes: session.relay.maxPacketBytes,
      resume: session.resume,
      resumed,
    };
    send(conn, JSON.stringify(message));
  };

  const listenRelay = (session: Session): void => {
    session.relay.listen({
      packet: (from, bytes) => {
        const conn = session.conn;
        if (conn === undefined || conn.ws.bufferedAmount > maxBufferedBytes || !send(conn, encodePacket(from, bytes))) {
          counters.packetsDropped++;
          return;
        }
        counters.packetsOut++;
      },
      stream: (from, bytes, reply) => {
        const conn = session.conn;
        if (conn === undefined || conn.ws.readyState !== WebSocket.OPEN) {
          counters.streamsRefused++;
          return reply(undefined);
        }
        const id = conn.nextStreamId;
        conn.nextStreamId = conn.nextStreamId >= 0xffff_ffff ? 1 : conn.nextStreamId + 1;
        const timer = setTimeout(() => {
          conn.streams.delete(id);
          reply(undefined);
        }, RELAY_STREAM_WAIT_MS);
        conn.streams.set(id, { reply, timer });
        counters.streamsIn++;
        send(conn, encodeStream(id, from, bytes));
      },
    });
  };

  const attach = async (conn: Connection, hello: Hello): Promise<void> => {
    const existing = sessions.get(hello.name);
    if (existing !== undefined) {
      if (hello.resume === undefined || !sameSecret(hello.resume, existing.resume)) {
        counters.refusedName++;
        return safeClose(conn, WS_CLOSE.nameTaken, existing.conn === undefined ? 'name is held for a reconnect' : 'name is in use');
      }
      const previous = existing.conn;
      if (previous !== undefined) {
        detach(previous);
        safeClose(previous, WS_CLOSE.replaced, 'replaced by a new connection');
      }
      clearTimeout(existing.grace);
      existing.grace = undefined;
      counters.resumed++;
      return welcome(conn, existing, true);
    }
    if (opening.has(hello.name)) {
      counters.refusedName++;
      return safeClose(conn, WS_CLOSE.nameTaken, 'name is in use');
    }
    if (hello.resume !== undefined) {
      counters.refusedResume++;
      return safeClose(conn, WS_CLOSE.resumeRejected, 'resume expired: the relay is gone');
    }
    opening.add(hello.name);
    let relay: UdpTransport;
    try {
      relay = await createUdpTransport({
        bind: { host: relayHost, port: 0 },
        ...(options.relayAdvertiseHost === undefined ? {} : { advertise: { host: options.relayAdvertiseHost, port: 0 } }),
        maxPacketBytes,
      });
    } catch {
      opening.delete(hello.name);
      counters.relayFailures++;
      return safeClose(conn, WS_CLOSE.relayFailed, 'could not open a relay socket');
    }
    opening.delete(hello.name);
    if (closing !== undefined || conn.phase !== 'opening') {
      await relay.close();
      return;
    }
    const session: Session = { name: hello.name, resume: randomBytes(24).toString('base64url'), relay, conn: undefined, grace: undefined };
    sessions.set(session.name, session);
    counters.relaysOpened++;
    counters.welcomed++;
    listenRelay(session);
    welcome(conn, session, false);
  };

  /** Unbind a connection from its session: its pending incoming streams end without reply. */
  const detach = (conn: Connection): Session | undefined => {
    for (const { reply, timer } of conn.streams.values()) {
      clearTimeout(timer);
      reply(undefined);
    }
    conn.streams.clear();
    const session = conn.session;
    conn.session = undefined;
    if (session !== undefined && session.conn === conn) {
      session.conn = undefined;
      return session;
    }
    return undefined;
  };

  const malformed = (conn: Connection, code: number, reason: string): void => {
    counters.malformed++;
    conn.phase = 'closed';
    safeClose(conn, code, reason);
  };

  const onHello = (conn: Connection, data: RawData, isBinary: boolean): void => {
    if (isBinary) return malformed(conn, WS_CLOSE.unsupportedData, 'expected a hello text frame');
    const hello = parseHello(rawText(data));
    if (typeof hello === 'string') return malformed(conn, WS_CLOSE.policy, hello);
    clearTimeout(conn.helloTimer);
    if (tokenHash !== undefined && (hello.token === undefined || !timingSafeEqual(digest(hello.token), tokenHash))) {
      counters.refusedToken++;
      conn.phase = 'closed';
      return safeClose(conn, WS_CLOSE.unauthorized, hello.token === undefined ? 'a join token is required' : 'invalid join token');
    }
    conn.phase = 'opening';
    void attach(conn, hello).catch(() => safeClose(conn, WS_CLOSE.relayFailed, 'gateway error'));
  };

  const onFrame = (conn: Connection, data: RawData, isBinary: boolean): void => {
    if (!isBinary) return malformed(conn, WS_CLOSE.unsupportedData, 'text frame after the handshake');
    const session = conn.session;
    if (session === undefined) return;
    if (conn.bucket !== undefined) {
      const verdict = conn.bucket.take(now());
      if (verdict !== 'ok') {
        counters.rateLimited++;
        if (verdict === 'close') {
          counters.rateLimitClosed++;
          conn.phase = 'closed';
          safeClose(conn, WS_CLOSE.rateLimited, 'rate limit exceeded');
        }
        return;
      }
    }
    const frame = decodeFrame(rawBytes(data));
    if (typeof frame === 'string') return malformed(conn, WS_CLOSE.policy, frame);
    const check = (bytes: Uint8Array): boolean => {
      if (!verify) return true;
      const reason = checkClientBytes(bytes, session.name, session.relay.address);
      if (reason === undefined) return true;
      spoofed(reason);
      return false;
    };
    switch (frame.op) {
      case OP_PACKET:
        if (!check(frame.bytes)) return;
        counters.packetsIn++;
        session.relay.sendPacket(frame.address, frame.bytes.slice());
        return;
      case OP_REQUEST: {
        const { id } = frame;
        if (!check(frame.bytes)) {
          send(conn, encodeResult(id, { ok: false, reason: 'dropped by the gateway: speaks for another member' }));
          return;
        }
        counters.streamsOut++;
        const timeoutMs = Math.min(Math.max(1, frame.timeoutMs), maxRequestTimeoutMs);
        session.relay.request(frame.address, frame.bytes.slice(), { timeoutMs, expectReply: frame.expectReply }, (result) => {
          if (conn.session === session) send(conn, encodeResult(id, result));
        });
        return;
      }
      case OP_REPLY: {
        const pending = conn.streams.get(frame.id);
        if (pending === undefined) return; // late: the relay stream is gone
        conn.streams.delete(frame.id);
        clearTimeout(pending.timer);
        if (frame.bytes !== undefined && !check(frame.bytes)) return pending.reply(undefined);
        pending.reply(frame.bytes?.slice());
        return;
      }
      default:
        return malformed(conn, WS_CLOSE.policy, `op ${frame.op} is not sent by clients`);
    }
  };

  wss.on('connection', (ws) => {
    if (closing !== undefined) return ws.close(WS_CLOSE.goingAway, 'gateway closing');
    counters.connections++;
    counters.openConnections++;
    const conn: Connection = {
      ws,
      bucket: rateLimit === undefined ? undefined : new TokenBucket(rateLimit, now()),
      helloTimer: setTimeout(() => {
        if (conn.phase !== 'hello') return;
        counters.helloTimeouts++;
        conn.phase = 'closed';
        safeClose(conn, WS_CLOSE.helloTimeout, 'no hello in time');
      }, helloTimeoutMs),
      phase: 'hello',
      session: undefined,
      streams: new Map(),
      nextStreamId: 1,
    };
    connections.add(conn);
    ws.on('message', (data, isBinary) => {
      try {
        if (conn.phase === 'hello') onHello(conn, data, isBinary);
        else if (conn.phase === 'ready') onFrame(conn, data, isBinary);
        else if (conn.phase === 'opening') malformed(conn, WS_CLOSE.policy, 'frame before the welcome');
      } catch {
        malformed(conn, WS_CLOSE.policy, 'gateway could not handle the frame');
      }
    });
    ws.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') counters.oversize++;
      else counters.protocolErrors++;
    });
    ws.on('close', (code) => {
      connections.delete(conn);
      counters.openConnections--;
      clearTimeout(conn.helloTimer);
      const wasReady = conn.phase === 'ready';
      conn.phase = 'closed';
      const session = detach(conn);
      if (session === undefined || !wasReady) return;
      if (code === WS_CLOSE.normal || closing !== undefined) return release(session, false);
      session.grace = setTimeout(() => {
        if (session.conn === undefined) release(session, true);
      }, graceMs);
    });
  });

  return {
    url: `ws://${urlHost}:${port}${path}`,
    port,
    counters,
    sessions: () => [...sessions.values()].map((s) => ({ name: s.name, address: s.relay.address, connected: s.conn !== undefined })),
    close: () => {
      if (closing !== undefined) return closing;
      closing = (async () => {
        const open = [...connections];
        const closed = open.map((conn) => new Promise<void>((resolve) => conn.ws.once('close', () => resolve())));
        for (const conn of open) safeClose(conn, WS_CLOSE.goingAway, 'gateway closing');
        const timeout = new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref());
        await Promise.race([Promise.all(closed), timeout]);
        for (const conn of connections) conn.ws.terminate();
        for (const session of [...sessions.values()]) release(session, false);
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      })();
      return closing;
    },
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

function rawBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}

function rawText(data: RawData): string {
  return Buffer.from(rawBytes(data)).toString('utf8');
}
