import type { UdpTransport } from '@swim/transport-udp';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { decodeFrame, encodeResult, OP_PACKET, OP_REPLY, OP_REQUEST, parseHello, PROTOCOL_VERSION, WS_CLOSE, type Hello, type Welcome } from '../protocol/framing.js';
import { Connection, rawBytes, rawText } from './connection.js';
import { zeroWsGatewayCounters, type WsGatewayCounters } from './gateway-counters.js';
import type { GatewaySettings } from './gateway-options.js';
import { TokenBucket } from './rate-limit.js';
import { sameSecret, tokenMatches } from './secret.js';
import { openRelay, Session } from './session.js';
import { checkClientBytes } from './verify.js';

/** How long close() waits for clients to answer the close handshake before terminating them. */
const CLOSE_WAIT_MS = 1_000;

/**
 * The gateway behind {@link createWsGateway}: takes WebSocket connections through the handshake
 * (hello, token, name or resume secret), binds each to its member's {@link Session}, and relays
 * frames both ways with the rate limit and the spoof check in between.
 */
export class WsGatewayServer {
  readonly counters: WsGatewayCounters = zeroWsGatewayCounters();
  readonly port: number;
  readonly #settings: GatewaySettings;
  readonly #wss: WebSocketServer;
  readonly #sessions = new Map<string, Session>();
  /** Names whose relay is being opened: a second hello for one is refused as a taken name. */
  readonly #opening = new Set<string>();
  readonly #connections = new Set<Connection>();
  #closing: Promise<void> | undefined;

  /** Start the WebSocket server and resolve once it listens. */
  static async listen(settings: GatewaySettings): Promise<WsGatewayServer> {
    const { host, port, path, maxMessageBytes } = settings;
    const wss = new WebSocketServer({ host, port, path, maxPayload: maxMessageBytes, clientTracking: false });
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
    return new WsGatewayServer(wss, settings);
  }

  private constructor(wss: WebSocketServer, settings: GatewaySettings) {
    this.#wss = wss;
    this.#settings = settings;
    this.port = (wss.address() as { port: number }).port;
    wss.on('connection', (ws) => this.#accept(ws));
  }

  /** Names with a relay (connected or within their reconnect grace), with their relay address. */
  sessions(): Array<{ readonly name: string; readonly address: string; readonly connected: boolean }> {
    return [...this.#sessions.values()].map((s) => ({ name: s.name, address: s.relay.address, connected: s.conn !== undefined }));
  }

  /** Close every connection (1001) and relay; idempotent. */
  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    this.#closing = (async () => {
      const open = [...this.#connections];
      const closed = open.map((conn) => conn.whenClosed());
      for (const conn of open) conn.close(WS_CLOSE.goingAway, 'gateway closing');
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref());
      await Promise.race([Promise.all(closed), timeout]);
      for (const conn of this.#connections) conn.ws.terminate();
      for (const session of [...this.#sessions.values()]) this.#release(session, false);
      await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    })();
    return this.#closing;
  }

  #accept(ws: WebSocket): void {
    if (this.#closing !== undefined) return ws.close(WS_CLOSE.goingAway, 'gateway closing');
    const { counters } = this;
    counters.connections++;
    counters.openConnections++;
    const { rateLimit, now, helloTimeoutMs } = this.#settings;
    const bucket = rateLimit === undefined ? undefined : new TokenBucket(rateLimit, now());
    const conn = new Connection(ws, bucket, helloTimeoutMs, (silent) => {
      counters.helloTimeouts++;
      silent.phase = 'closed';
      silent.close(WS_CLOSE.helloTimeout, 'no hello in time');
    });
    this.#connections.add(conn);
    ws.on('message', (data, isBinary) => {
      try {
        if (conn.phase === 'hello') this.#onHello(conn, data, isBinary);
        else if (conn.phase === 'ready') this.#onFrame(conn, data, isBinary);
        else if (conn.phase === 'opening') this.#malformed(conn, WS_CLOSE.policy, 'frame before the welcome');
      } catch {
        this.#malformed(conn, WS_CLOSE.policy, 'gateway could not handle the frame');
      }
    });
    ws.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') counters.oversize++;
      else counters.protocolErrors++;
    });
    ws.on('close', (code) => this.#onClose(conn, code));
  }

  #onClose(conn: Connection, code: number): void {
    this.#connections.delete(conn);
    this.counters.openConnections--;
    conn.stopHelloTimer();
    const wasReady = conn.phase === 'ready';
    conn.phase = 'closed';
    const session = conn.detach();
    if (session === undefined || !wasReady) return;
    // A normal close is a goodbye: the member is not coming back, so its relay goes at once.
    if (code === WS_CLOSE.normal || this.#closing !== undefined) return this.#release(session, false);
    session.startGrace(this.#settings.reconnectGraceMs, () => this.#release(session, true));
  }

  #onHello(conn: Connection, data: RawData, isBinary: boolean): void {
    if (isBinary) return this.#malformed(conn, WS_CLOSE.unsupportedData, 'expected a hello text frame');
    const hello = parseHello(rawText(data));
    if (typeof hello === 'string') return this.#malformed(conn, WS_CLOSE.policy, hello);
    conn.stopHelloTimer();
    const { tokenHash } = this.#settings;
    if (tokenHash !== undefined && (hello.token === undefined || !tokenMatches(hello.token, tokenHash))) {
      this.counters.refusedToken++;
      conn.phase = 'closed';
      return conn.close(WS_CLOSE.unauthorized, hello.token === undefined ? 'a join token is required' : 'invalid join token');
    }
    conn.phase = 'opening';
    void this.#attach(conn, hello).catch(() => conn.close(WS_CLOSE.relayFailed, 'gateway error'));
  }

  /** Bind a connection that said hello to its session: a resumed one, or a new one with a new relay. */
  async #attach(conn: Connection, hello: Hello): Promise<void> {
    const existing = this.#sessions.get(hello.name);
    if (existing !== undefined) return this.#resume(conn, hello, existing);
    if (this.#opening.has(hello.name)) {
      this.counters.refusedName++;
      return conn.close(WS_CLOSE.nameTaken, 'name is in use');
    }
    if (hello.resume !== undefined) {
      this.counters.refusedResume++;
      return conn.close(WS_CLOSE.resumeRejected, 'resume expired: the relay is gone');
    }
    this.#opening.add(hello.name);
    let relay: UdpTransport;
    try {
      relay = await openRelay(this.#settings.relay);
    } catch {
      this.#opening.delete(hello.name);
      this.counters.relayFailures++;
      return conn.close(WS_CLOSE.relayFailed, 'could not open a relay socket');
    }
    this.#opening.delete(hello.name);
    // The gateway closed, or the connection dropped, while the relay opened.
    if (this.#closing !== undefined || conn.phase !== 'opening') {
      await relay.close();
      return;
    }
    const session = new Session(hello.name, relay);
    this.#sessions.set(session.name, session);
    this.counters.relaysOpened++;
    this.counters.welcomed++;
    session.forwardRelay(this.counters, this.#settings.maxBufferedBytes);
    this.#welcome(conn, session, false);
  }

  /** A hello for a name that has a session: only its resume secret takes it, from whatever connection holds it. */
  #resume(conn: Connection, hello: Hello, session: Session): void {
    if (hello.resume === undefined || !sameSecret(hello.resume, session.resume)) {
      this.counters.refusedName++;
      return conn.close(WS_CLOSE.nameTaken, session.conn === undefined ? 'name is held for a reconnect' : 'name is in use');
    }
    const previous = session.conn;
    if (previous !== undefined) {
      previous.detach();
      previous.close(WS_CLOSE.replaced, 'replaced by a new connection');
    }
    session.cancelGrace();
    this.counters.resumed++;
    this.#welcome(conn, session, true);
  }

  #welcome(conn: Connection, session: Session, resumed: boolean): void {
    conn.session = session;
    conn.phase = 'ready';
    session.conn = conn;
    const { seed } = this.#settings;
    const message: Welcome = {
      op: 'welcome',
      v: PROTOCOL_VERSION,
      address: session.relay.address,
      ...(seed === undefined ? {} : { seed }),
      maxPacketBytes: session.relay.maxPacketBytes,
      resume: session.resume,
      resumed,
    };
    conn.send(JSON.stringify(message));
  }

  /** Forget a session and close its relay; `expired` when its reconnect grace ran out. */
  #release(session: Session, expired: boolean): void {
    session.cancelGrace();
    if (this.#sessions.get(session.name) === session) this.#sessions.delete(session.name);
    this.counters.relaysClosed++;
    if (expired) this.counters.graceExpired++;
    void session.relay.close();
  }

  /** A binary frame from a welcomed connection: a packet or request to send out, or a reply to a relay stream. */
  #onFrame(conn: Connection, data: RawData, isBinary: boolean): void {
    if (!isBinary) return this.#malformed(conn, WS_CLOSE.unsupportedData, 'text frame after the handshake');
    const session = conn.session;
    if (session === undefined) return;
    if (!this.#withinRateLimit(conn)) return;
    const frame = decodeFrame(rawBytes(data));
    if (typeof frame === 'string') return this.#malformed(conn, WS_CLOSE.policy, frame);
    switch (frame.op) {
      case OP_PACKET:
        if (!this.#speaksForItself(session, frame.bytes)) return;
        this.counters.packetsIn++;
        session.relay.sendPacket(frame.address, frame.bytes.slice());
        return;
      case OP_REQUEST: {
        const { id } = frame;
        if (!this.#speaksForItself(session, frame.bytes)) {
          conn.send(encodeResult(id, { ok: false, reason: 'dropped by the gateway: speaks for another member' }));
          return;
        }
        this.counters.streamsOut++;
        const timeoutMs = Math.min(Math.max(1, frame.timeoutMs), this.#settings.maxRequestTimeoutMs);
        session.relay.request(frame.address, frame.bytes.slice(), { timeoutMs, expectReply: frame.expectReply }, (result) => {
          // A result for a connection that was replaced or dropped meanwhile has no one to go to.
          if (conn.session === session) conn.send(encodeResult(id, result));
        });
        return;
      }
      case OP_REPLY: {
        const reply = conn.takeReply(frame.id);
        if (reply === undefined) return; // late: the relay stream is gone
        if (frame.bytes !== undefined && !this.#speaksForItself(session, frame.bytes)) return reply(undefined);
        reply(frame.bytes?.slice());
        return;
      }
      default:
        return this.#malformed(conn, WS_CLOSE.policy, `op ${frame.op} is not sent by clients`);
    }
  }

  /** Take a token for a message; false drops it, and a sender that keeps going over is closed. */
  #withinRateLimit(conn: Connection): boolean {
    if (conn.bucket === undefined) return true;
    const verdict = conn.bucket.take(this.#settings.now());
    if (verdict === 'ok') return true;
    this.counters.rateLimited++;
    if (verdict === 'close') {
      this.counters.rateLimitClosed++;
      conn.phase = 'closed';
      conn.close(WS_CLOSE.rateLimited, 'rate limit exceeded');
    }
    return false;
  }

  /** The spoof check (unless verify is off): false, counted by reason, when the bytes speak for another member. */
  #speaksForItself(session: Session, bytes: Uint8Array): boolean {
    if (!this.#settings.verify) return true;
    const reason = checkClientBytes(bytes, session.name, session.relay.address);
    if (reason === undefined) return true;
    this.counters.spoofDropped++;
    this.counters.spoof[reason]++;
    return false;
  }

  #malformed(conn: Connection, code: number, reason: string): void {
    this.counters.malformed++;
    conn.phase = 'closed';
    conn.close(code, reason);
  }
}
