import type { IncomingMessage } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { SecureTransportCounters } from '@swim/encryption';
import type { StreamResult } from '@swim/runtime';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { decodeFrame, encodeResult, OP_PACKET, OP_REPLY, OP_REQUEST, parseHello, PROTOCOL_VERSION, WS_CLOSE, type Hello, type Welcome } from '../protocol/framing.js';
import { addressKey, ConnectionSlots } from './admission.js';
import { ByteBudget } from './byte-budget.js';
import { ClientFilter } from './client-filter.js';
import { KnownMoves } from './known-moves.js';
import { allocateFrame, Connection, rawBytes, rawText } from './connection.js';
import { Containment } from './containment.js';
import { zeroWsGatewayCounters, type WsGatewayCounters } from './gateway-counters.js';
import type { GatewaySettings } from './gateway-options.js';
import { TokenBucket } from './rate-limit.js';
import { sameSecret, tokenMatches } from './secret.js';
import { RelayEncryptionTotals } from './relay-encryption.js';
import { openRelay, Session, type Relay } from './session.js';
import { createTlsServer } from './tls.js';
import { WriteBatch } from './write-batch.js';

/** How long close() waits for clients to answer the close handshake before terminating them. */
const CLOSE_WAIT_MS = 1_000;

/** What a session looks like from outside, for the gateway's `sessions()`. */
export interface SessionInfo {
  /** The browser member's name. */
  readonly name: string;
  /** Its relay's address in the cluster (`host:port`): the member's address as every other member sees it. */
  readonly address: string;
  /** Whether its WebSocket is connected now (false while the relay is held for a reconnect). */
  readonly connected: boolean;
  /** Whether its member has joined the cluster (see joinTimeoutMs). */
  readonly joined: boolean;
  /** Bytes `ws` has queued for its connection and not yet written to the socket. */
  readonly bufferedBytes: number;
}

/**
 * The gateway behind {@link createWsGateway}: admits WebSocket upgrades within the session caps,
 * takes connections through the handshake (hello, token, name or resume secret), binds each to
 * its member's {@link Session}, and relays frames both ways with the rate limit, the client filter
 * and the byte budget in between. Every callback runs under {@link Containment}.
 */
export class WsGatewayServer {
  readonly counters: WsGatewayCounters = zeroWsGatewayCounters();
  readonly #settings: GatewaySettings;
  readonly #wss: WebSocketServer;
  /** The HTTPS server the WebSocket server upgrades on, when serving `wss://`. */
  readonly #https: HttpsServer | undefined;
  readonly #containment: Containment;
  readonly #filter: ClientFilter;
  /** Moves seen arriving from the cluster at our relays: they pass when our clients gossip them on (known-moves.ts). */
  readonly #knownMoves = new KnownMoves();
  readonly #budget: ByteBudget;
  readonly #slots: ConnectionSlots;
  /** The address key each admitted upgrade counts against, until its socket closes. */
  readonly #admitted = new WeakMap<Duplex, string>();
  readonly #sessions = new Map<string, Session>();
  /** The same sessions by relay address, for packets one relay sends another (see #sendPacket). */
  readonly #byRelayAddress = new Map<string, Session>();
  /** Names whose relay is being opened, with the address key they count against. */
  readonly #opening = new Map<string, string>();
  readonly #connections = new Set<Connection>();
  readonly #encryption = new RelayEncryptionTotals();
  readonly #writes = new WriteBatch();
  #closing: Promise<void> | undefined;
  #port = 0;

  /** Start the WebSocket server and resolve once it listens. */
  static async listen(settings: GatewaySettings): Promise<WsGatewayServer> {
    const server = new WsGatewayServer(settings);
    const wss = server.#wss;
    await new Promise<void>((resolve, reject) => {
      wss.once('error', reject);
      wss.once('listening', () => {
        wss.off('error', reject);
        resolve();
      });
    });
    wss.on('error', (error) => server.#containment.report(error, 'WebSocket server'));
    // A failed TLS handshake (a client that does not trust the certificate, a port scan) is the client's problem.
    server.#https?.on('tlsClientError', () => server.counters.tlsHandshakeFailures++);
    server.#port = (wss.address() as { port: number }).port;
    return server;
  }

  private constructor(settings: GatewaySettings) {
    this.#settings = settings;
    this.#containment = new Containment(this.counters, settings.onError);
    this.#filter = new ClientFilter(settings, this.counters, (name, address, movedFrom) => {
      const session = this.#sessions.get(name);
      if (session !== undefined && session.movedFrom === movedFrom && session.relay.address === address) return true;
      // A move another gateway admitted, which has reached our relays from the cluster.
      return this.#knownMoves.holds(name, address, movedFrom);
    });
    this.#budget = new ByteBudget(settings.maxBufferedBytes, settings.maxTotalBufferedBytes, this.counters);
    this.#slots = new ConnectionSlots(settings.maxSessions, settings.maxSessionsPerIp);
    const { host, port, path, maxMessageBytes } = settings;
    this.#https = settings.tls === undefined ? undefined : createTlsServer(settings.tls);
    this.#wss = new WebSocketServer({
      // ws listens itself for ws://; for wss:// it upgrades on the HTTPS server, started below.
      ...(this.#https === undefined ? { host, port } : { server: this.#https }),
      path,
      maxPayload: maxMessageBytes,
      clientTracking: false,
      // Two parameters: ws then lets the callback choose the HTTP status of a refusal.
      verifyClient: (info: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void) => this.#admit(info.req, done),
    });
    this.#wss.on('connection', (ws, request) => this.#accept(ws, request));
    // The WebSocket server re-emits the HTTPS server's 'listening' and 'error', awaited by listen().
    this.#https?.listen(port, host);
  }

  /** The port the WebSocket server listens on. */
  get port(): number {
    return this.#port;
  }

  /** Names with a relay (connected or within their reconnect grace), with their relay address. */
  sessions(): SessionInfo[] {
    return [...this.#sessions.values()].map((s) => ({
      name: s.name,
      address: s.relay.address,
      connected: s.conn !== undefined,
      joined: s.joined,
      bufferedBytes: s.conn?.bufferedBytes ?? 0,
    }));
  }

  /** The relays' encryption counters summed over every relay opened, or undefined when relays do not encrypt. */
  encryptionCounters(): SecureTransportCounters | undefined {
    if (this.#settings.relay.encryption === undefined) return undefined;
    return this.#encryption.sum([...this.#sessions.values()].flatMap((s) => (s.encryption === undefined ? [] : [s.encryption])));
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
      await this.#closeListener();
    })();
    return this.#closing;
  }

  /**
   * Stop as a crashed process would (for demos and tests of failover): every WebSocket destroyed
   * without a close frame (its client sees 1006, as after a lost network, and reconnects, to
   * another gateway when it has a list), every relay socket closed without a word (the cluster
   * finds its members unreachable there), the listener closed so that the port can be bound again.
   * Idempotent; a close() after it returns the same promise.
   */
  abort(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    this.#closing = (async () => {
      for (const conn of this.#connections) conn.ws.terminate();
      for (const session of [...this.#sessions.values()]) this.#release(session, false);
      await this.#closeListener();
    })();
    return this.#closing;
  }

  async #closeListener(): Promise<void> {
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    // ws leaves a server it was given open.
    const https = this.#https;
    if (https !== undefined) {
      https.closeAllConnections();
      await new Promise<void>((resolve) => https.close(() => resolve()));
    }
  }

  /**
   * At the upgrade, before anything is allocated for it: refuse a connection beyond
   * maxSessionsPerIp from its address (429) or beyond maxSessions in all (503). An admitted one
   * holds its slot until its TCP socket closes, whether or not the handshake completes.
   */
  #admit(request: IncomingMessage, done: (ok: boolean, code?: number, message?: string) => void): void {
    const socket = request.socket;
    if (this.#closing !== undefined || socket.destroyed) return done(false, 503, 'gateway closing');
    const { clientAddress } = this.#settings;
    const key = this.#containment.run(
      'clientAddress',
      () => addressKey(clientAddress === undefined ? (socket.remoteAddress ?? 'unknown') : clientAddress(request)),
      undefined,
    );
    if (key === undefined) return done(false, 500, 'could not tell the client address');
    const verdict = this.#slots.take(key);
    if (verdict === 'address') {
      this.counters.refusedIpLimit++;
      return done(false, 429, 'too many connections from this address');
    }
    if (verdict === 'total') {
      this.counters.refusedCapacity++;
      return done(false, 503, 'gateway full');
    }
    this.#admitted.set(socket, key);
    socket.once('close', () => this.#slots.give(key));
    done(true);
  }

  #accept(ws: WebSocket, request: IncomingMessage): void {
    const accepted = this.#containment.run(
      'accept',
      () => {
        if (this.#closing !== undefined) {
          ws.close(WS_CLOSE.goingAway, 'gateway closing');
          return true;
        }
        const { counters } = this;
        const { rateLimit, now, helloTimeoutMs } = this.#settings;
        const bucket = rateLimit === undefined ? undefined : new TokenBucket(rateLimit, now());
        const key = this.#admitted.get(request.socket) ?? 'unknown';
        const conn = new Connection(ws, bucket, key, this.#budget, this.#containment, helloTimeoutMs, (silent) => {
          counters.helloTimeouts++;
          silent.phase = 'closed';
          silent.close(WS_CLOSE.helloTimeout, 'no hello in time');
        }, request.socket, this.#writes);
        counters.connections++;
        counters.openConnections++;
        this.#connections.add(conn);
        ws.on('close', this.#containment.wrap('connection close', (code: number) => this.#onClose(conn, code)));
        ws.on('message', (data, isBinary) => {
          try {
            if (conn.phase === 'hello') this.#onHello(conn, data, isBinary);
            else if (conn.phase === 'ready') this.#onFrame(conn, data, isBinary);
            else if (conn.phase === 'opening') this.#malformed(conn, WS_CLOSE.policy, 'frame before the welcome');
          } catch (error) {
            this.#containment.report(error, 'client frame');
            this.#malformed(conn, WS_CLOSE.policy, 'gateway could not handle the frame');
          }
        });
        ws.on('error', (error: Error & { code?: string }) => {
          if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') counters.oversize++;
          else counters.protocolErrors++;
        });
        return true;
      },
      false,
    );
    if (!accepted) ws.terminate();
  }

  #onClose(conn: Connection, code: number): void {
    if (!this.#connections.delete(conn)) return;
    this.counters.openConnections--;
    conn.stopHelloTimer();
    conn.returnBudget();
    const wasReady = conn.phase === 'ready';
    conn.phase = 'closed';
    const session = conn.detach();
    if (session === undefined || !wasReady) return;
    // A normal close is a goodbye: the member is not coming back, so its relay goes at once.
    if (code === WS_CLOSE.normal || this.#closing !== undefined) return this.#release(session, false);
    // A member that never joined keeps its join deadline, which may come first.
    session.startGrace(
      this.#settings.reconnectGraceMs,
      this.#containment.wrap('reconnect grace', () => this.#release(session, true)),
    );
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
    this.#attach(conn, hello).catch((error: unknown) => {
      this.#containment.report(error, 'attach');
      conn.close(WS_CLOSE.relayFailed, 'gateway error');
    });
  }

  /** Bind a connection that said hello to its session: a resumed one, or a new one with a new relay. */
  async #attach(conn: Connection, hello: Hello): Promise<void> {
    const existing = this.#sessions.get(hello.name);
    const move = hello.from !== undefined && this.#movesHere(hello, existing);
    if (existing !== undefined && !move) return this.#resume(conn, hello, existing);
    if (this.#opening.has(hello.name)) {
      this.counters.refusedName++;
      return conn.close(WS_CLOSE.nameTaken, 'name is in use');
    }
    if (hello.from !== undefined && !move) {
      this.counters.refusedMove++;
      conn.phase = 'closed';
      return conn.close(WS_CLOSE.moveRefused, hello.credential === undefined ? 'a move needs the member credential' : 'member credential does not verify');
    }
    // The relay it held here while away is given up for the new one (a move back after a move away).
    if (existing !== undefined) this.#release(existing, false);
    if (hello.resume !== undefined && !move) {
      this.counters.refusedResume++;
      return conn.close(WS_CLOSE.resumeRejected, 'resume expired: the relay is gone');
    }
    if (!this.#roomForRelay(conn.addressKey)) {
      this.counters.refusedSessions++;
      conn.phase = 'closed';
      return conn.close(WS_CLOSE.tooManySessions, 'too many sessions: try later');
    }
    this.#opening.set(hello.name, conn.addressKey);
    let relay: Relay;
    try {
      relay = await openRelay(this.#settings.relay, (error, where) => this.#containment.report(error, where));
    } catch {
      this.#opening.delete(hello.name);
      this.counters.relayFailures++;
      return conn.close(WS_CLOSE.relayFailed, 'could not open a relay socket');
    }
    this.#opening.delete(hello.name);
    // The gateway closed, or the connection dropped, while the relay opened.
    if (this.#closing !== undefined || conn.phase !== 'opening') {
      await relay.transport.close();
      return;
    }
    const session = new Session(hello.name, relay.transport, conn.addressKey, relay.encryption);
    this.#sessions.set(session.name, session);
    this.#byRelayAddress.set(session.relay.address, session);
    this.counters.relaysOpened++;
    this.counters.welcomed++;
    session.forwardRelay(this.counters, this.#settings.maxStreamsPerSession, this.#containment, this.#knownMoves);
    if (move) {
      // A member that moves is in the cluster already: no join deadline.
      session.movedFrom = hello.from;
      session.markJoined();
      this.counters.moved++;
    } else {
      session.startJoinDeadline(
        this.#settings.joinTimeoutMs,
        this.#containment.wrap('join deadline', () => this.#joinTimedOut(session)),
      );
    }
    this.#welcome(conn, session, false);
  }

  /**
   * Whether a hello with `from` moves its member here: its credential verifies for the name, and
   * the name has no relay here or only one held for a reconnect (a member that moved away and
   * comes back). A hello that also carries a resume secret for a relay still here resumes instead.
   */
  #movesHere(hello: Hello, existing: Session | undefined): boolean {
    if (hello.credential === undefined || !this.#settings.credentials.verify(hello.name, hello.credential)) return false;
    if (existing === undefined) return true;
    if (existing.conn !== undefined) return false;
    return hello.resume === undefined || !sameSecret(hello.resume, existing.resume);
  }

  /**
   * Whether one more relay fits for `key`: relays (live, held for a reconnect, or opening) count
   * against the address their last connection came from, and against maxSessions in all.
   */
  #roomForRelay(key: string): boolean {
    const { maxSessions, maxSessionsPerIp } = this.#settings;
    if (this.#sessions.size + this.#opening.size >= maxSessions) return false;
    let mine = 0;
    for (const session of this.#sessions.values()) if (session.addressKey === key) mine++;
    for (const opening of this.#opening.values()) if (opening === key) mine++;
    return mine < maxSessionsPerIp;
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
    session.addressKey = conn.addressKey;
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
      credential: this.#settings.credentials.sign(session.name),
      ...(session.movedFrom !== undefined && !resumed ? { moved: true } : {}),
    };
    conn.send(JSON.stringify(message));
  }

  /** The member did not join in time: close its connection (4009) and release its relay. */
  #joinTimedOut(session: Session): void {
    if (this.#sessions.get(session.name) !== session) return;
    this.counters.joinTimeouts++;
    const conn = session.conn;
    if (conn !== undefined) {
      conn.detach();
      conn.phase = 'closed';
      conn.close(WS_CLOSE.joinTimeout, 'did not join the cluster in time');
    }
    this.#release(session, false);
  }

  /** Forget a session and close its relay; `expired` when its reconnect grace ran out. */
  #release(session: Session, expired: boolean): void {
    session.stopTimers();
    if (this.#sessions.get(session.name) === session) {
      this.#sessions.delete(session.name);
      if (this.#byRelayAddress.get(session.relay.address) === session) this.#byRelayAddress.delete(session.relay.address);
      if (session.encryption !== undefined) this.#encryption.retire(session.encryption);
    }
    this.counters.relaysClosed++;
    if (expired) this.counters.graceExpired++;
    session.relay.close().catch((error: unknown) => this.#containment.report(error, 'relay close'));
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
      case OP_PACKET: {
        const bytes = this.#filter.inspect(frame.bytes, session.name, session.relay.address, frame.address, session.movedFrom);
        if (bytes === undefined) return;
        this.counters.packetsIn++;
        return this.#sendPacket(session, frame.address, bytes, frame.bytes);
      }
      case OP_REQUEST:
        return this.#request(conn, session, frame.id, frame.address, frame.bytes, frame.timeoutMs, frame.expectReply);
      case OP_REPLY: {
        const reply = conn.takeReply(frame.id);
        if (reply === undefined) return; // late: the relay stream is gone
        if (frame.bytes === undefined) return reply(undefined);
        // The requester of a relay stream is not known by name: nothing addressed to the gateway's member is exempt here.
        const bytes = this.#filter.inspect(frame.bytes, session.name, session.relay.address, undefined, session.movedFrom);
        reply(bytes === undefined ? undefined : owned(bytes, frame.bytes));
        return;
      }
      default:
        return this.#malformed(conn, WS_CLOSE.policy, `op ${frame.op} is not sent by clients`);
    }
  }

  /**
   * A checked client packet out through its relay. One addressed to a relay of this gateway goes
   * straight to that session's forward path, from this relay's address: both relays would see it
   * in plaintext anyway (secureTransport encrypts on one side and decrypts on the other with the
   * same keyring), and the spoof check and gossip guard already ran on it here.
   */
  #sendPacket(session: Session, to: string, bytes: Uint8Array, received: Uint8Array): void {
    const local = this.#byRelayAddress.get(to);
    if (local !== undefined) {
      this.counters.packetsShortCircuited++;
      // No copy: the forward path copies the bytes into the frame it sends.
      return local.deliverPacket(session.relay.address, bytes);
    }
    session.relay.sendPacket(to, owned(bytes, received));
  }

  /** A client's request: checked, then performed by its relay within the stream cap and the byte budget. */
  #request(conn: Connection, session: Session, id: number, to: string, sent: Uint8Array, requestedTimeoutMs: number, expectReply: boolean): void {
    const fail = (reason: string) => conn.sendWithin(encodeResult(id, { ok: false, reason }, allocateFrame));
    const checked = this.#filter.inspect(sent, session.name, session.relay.address, to, session.movedFrom);
    if (checked === undefined) return void fail('dropped by the gateway: it speaks for another member or carries gossip the gateway refuses');
    if (session.openStreams >= this.#settings.maxStreamsPerSession) {
      this.counters.requestsRefused++;
      return void fail('refused by the gateway: too many streams open through this relay');
    }
    const bytes = owned(checked, sent);
    if (!conn.holdRequest(bytes.length)) {
      this.counters.requestsRefused++;
      return void fail("refused by the gateway: over this connection's buffered-byte budget");
    }
    this.counters.streamsOut++;
    session.requestsInFlight++;
    let settled = false;
    const done = (result: StreamResult): void => {
      if (settled) return;
      settled = true;
      session.requestsInFlight--;
      conn.release(bytes.length);
      if (result.ok && result.bytes !== undefined) session.markJoined();
      // A result for a connection that was replaced or dropped meanwhile has no one to go to.
      if (conn.session === session) this.#deliverResult(conn, id, result);
    };
    const timeoutMs = Math.min(Math.max(1, requestedTimeoutMs), this.#settings.maxRequestTimeoutMs);
    try {
      session.relay.request(to, bytes, { timeoutMs, expectReply }, this.#containment.wrap('request result', done));
    } catch (error) {
      this.#containment.report(error, 'relay request');
      done({ ok: false, reason: 'the relay could not send the request' });
    }
  }

  /** A request's result to its client, or, when it does not fit the client's budget, a short failure if that fits. */
  #deliverResult(conn: Connection, id: number, result: StreamResult): void {
    if (conn.sendWithin(encodeResult(id, result, allocateFrame)) !== 'over') return;
    this.counters.resultsDropped++;
    conn.sendWithin(encodeResult(id, { ok: false, reason: 'reply dropped by the gateway: the client is too far behind' }, allocateFrame));
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

  #malformed(conn: Connection, code: number, reason: string): void {
    this.counters.malformed++;
    conn.phase = 'closed';
    conn.close(code, reason);
  }
}

/** `checked` as bytes the relay may keep: a copy when it is still a view into the WebSocket message. */
function owned(checked: Uint8Array, received: Uint8Array): Uint8Array {
  return checked === received ? received.slice() : checked;
}
