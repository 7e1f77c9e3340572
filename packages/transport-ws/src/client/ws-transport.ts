import type { StreamOptions, StreamResult, Transport, TransportHandlers } from '@swim/runtime';
import {
  decodeFrame,
  encodePacket,
  encodeReply,
  encodeRequest,
  FATAL_CLOSE_CODES,
  MAX_ADDRESS_BYTES,
  OP_PACKET,
  OP_RESULT,
  OP_STREAM,
  parseWelcome,
  PROTOCOL_VERSION,
  WS_CLOSE,
  type Hello,
  type Welcome,
} from '../protocol/framing.js';
import { zeroWsClientCounters, type WsClientCounters, type WsDropCause } from './counters.js';
import { GatewayList } from './gateway-list.js';
import { ReconnectBackoff, type ReconnectOptions } from './reconnect.js';
import { OPEN, type WebSocketConstructor, type WebSocketLike } from './websocket.js';

/**
 * Where a {@link WsTransport} is: `open` (welcomed, traffic flows), `reconnecting` (before the
 * first welcome, and while a lost connection is re-established; packets are dropped and requests
 * fail meanwhile), `closed` (for good).
 */
export type WsTransportState = 'open' | 'reconnecting' | 'closed';

/** Options of {@link connectWsTransport}. */
export interface WsTransportOptions {
  /**
   * The gateway, e.g. `wss://example.org/swim`, or several gateways of one cluster (README "Several
   * gateways and failover"): the first connection tries them in this order; when the member's
   * gateway goes away it resumes there if it can, else moves to the next one, keeping its name.
   * One URL may also be a DNS name or a load balancer in front of several gateways.
   */
  readonly url: string | readonly string[];
  /** The member's name; the gateway binds it to this connection. */
  readonly name: string;
  /** The gateway's join token, when it requires one. */
  readonly token?: string;
  /** WebSocket implementation; default `globalThis.WebSocket`. */
  readonly WebSocket?: WebSocketConstructor;
  /** Give up on a connection without a welcome after this long. Default 10 000 ms. */
  readonly connectTimeoutMs?: number;
  /** Reconnect after the connection drops (default on), or `false` to close instead. */
  readonly reconnect?: ReconnectOptions | false;
  /** Called on every state change. */
  readonly onStateChange?: (state: WsTransportState, previous: WsTransportState) => void;
}

/** The connection could not be set up: refused by the gateway (see `code`), timed out or failed. */
export class WsConnectError extends Error {
  constructor(
    message: string,
    /** The WebSocket close code, when the gateway closed the connection. */
    readonly code?: number,
    /** The WebSocket close reason that came with `code`. */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'WsConnectError';
  }
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** How long close() waits for the close handshake. */
const CLOSE_WAIT_MS = 1_000;

/**
 * Close codes by which one gateway refuses to take the member back: another gateway of the list
 * may still take it (a move), so they end the transport only when every gateway of a round gave one.
 */
const GATEWAY_REFUSALS: ReadonlySet<number> = new Set([WS_CLOSE.nameTaken, WS_CLOSE.resumeRejected, WS_CLOSE.moveRefused]);

/** What a hello adds to the name and token: the resume secret for the member's own gateway, the credential and `from` for a move. */
type HelloExtras = Pick<Hello, 'resume' | 'credential' | 'from'>;

/**
 * Connect to a gateway (see the `./node` entry's `createWsGateway`) and resolve once it has
 * welcomed this member: the transport's address is then the member's relay address in the cluster.
 */
export async function connectWsTransport(options: WsTransportOptions): Promise<WsTransport> {
  const transport = new WsTransport(options);
  await transport.connected;
  return transport;
}

/**
 * The runtime's {@link Transport} for browsers: every packet and stream goes over one WebSocket
 * to a gateway, whose relay (a UDP + TCP socket) is this member's address in the cluster.
 * Create it with {@link connectWsTransport}.
 */
export class WsTransport implements Transport {
  readonly supportsStreams = true;
  /** Traffic, drops, streams and connections since the transport was created. */
  readonly counters: WsClientCounters = zeroWsClientCounters();
  /** Resolves after the first welcome; rejects with {@link WsConnectError}. */
  readonly connected: Promise<void>;
  readonly #options: WsTransportOptions;
  readonly #WebSocket: WebSocketConstructor;
  readonly #connectTimeoutMs: number;
  /** `undefined` when the transport closes instead of reconnecting. */
  readonly #reconnect: ReconnectBackoff | undefined;
  readonly #listeners = new Set<(state: WsTransportState, previous: WsTransportState) => void>();
  readonly #addressListeners = new Set<(address: string) => void>();
  readonly #gateways: GatewayList;
  readonly #calls = new Map<number, (result: StreamResult) => void>();
  #welcome: Welcome | undefined;
  #state: WsTransportState = 'reconnecting';
  #handlers: TransportHandlers | undefined;
  #socket: WebSocketLike | undefined;
  #socketClosed: Promise<void> = Promise.resolve();
  /** A connection being set up (first connect or reconnect). */
  #pending: WebSocketLike | undefined;
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  #nextId = 1;
  #closing: Promise<void> | undefined;
  #closeCause: { readonly code: number; readonly reason: string } | undefined;

  /** Use {@link connectWsTransport}; the transport is usable once `connected` resolves. */
  constructor(options: WsTransportOptions) {
    this.#gateways = new GatewayList(options.url);
    if (typeof options.name !== 'string' || options.name.length === 0) throw new TypeError('name is required');
    const ctor = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (ctor === undefined) throw new TypeError('no WebSocket implementation: pass options.WebSocket (on Node, use @swim/transport-ws/node)');
    this.#options = options;
    this.#WebSocket = ctor;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    if (options.onStateChange !== undefined) this.#listeners.add(options.onStateChange);
    this.#reconnect = options.reconnect === false ? undefined : new ReconnectBackoff(options.reconnect);
    this.connected = this.#firstConnect().catch((error: unknown) => {
        this.#state = 'closed';
        this.#closing = Promise.resolve();
        throw error;
      });
  }

  /** The relay address the gateway assigned: this member's address in the cluster. */
  get address(): string {
    return this.#welcomed().address;
  }

  get maxPacketBytes(): number {
    return this.#welcomed().maxPacketBytes;
  }

  /** The gateway's own member, to join the cluster through (when the gateway was given one). */
  get seed(): string | undefined {
    return this.#welcomed().seed;
  }

  /** The connection's state now; `onStateChange` reports each change. */
  get state(): WsTransportState {
    return this.#state;
  }

  /** The close code and reason that ended the transport, when the gateway ended it. */
  get closeCause():
    | {
        /** The WebSocket close code (see {@link WS_CLOSE}). */
        readonly code: number;
        /** The close reason sent with it. */
        readonly reason: string;
      }
    | undefined {
    return this.#closeCause;
  }

  /** Call `listener` on every state change; returns a function that stops it. */
  onStateChange(listener: (state: WsTransportState, previous: WsTransportState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Call `listener` with the new address when the member moved to another relay (a failover to
   * another gateway, or to its own gateway after a restart); returns a function that stops it.
   * The runtime's Member subscribes and announces the move to the cluster.
   */
  onAddressChange(listener: (address: string) => void): () => void {
    this.#addressListeners.add(listener);
    return () => this.#addressListeners.delete(listener);
  }

  /** The gateway URL the member is (or was last) connected through. */
  get url(): string {
    return this.#gateways.urls[this.#gateways.current]!;
  }

  listen(handlers: TransportHandlers): void {
    this.#handlers = handlers;
  }

  sendPacket(to: string, bytes: Uint8Array): void {
    const socket = this.#socket;
    if (this.#state !== 'open' || socket === undefined) return this.#drop(this.#state === 'closed' ? 'closed' : 'reconnecting');
    if (bytes.length > this.maxPacketBytes) return this.#drop('oversize');
    let frame: Uint8Array;
    try {
      frame = encodePacket(to, bytes);
    } catch {
      return this.#drop('bad-address');
    }
    try {
      socket.send(frame);
    } catch {
      return this.#drop('reconnecting');
    }
    this.counters.packetsSent++;
    this.counters.bytesSent += bytes.length;
  }

  request(to: string, bytes: Uint8Array, options: StreamOptions, done: (result: StreamResult) => void): void {
    this.counters.streamsOpened++;
    const fail = (reason: string) => {
      this.counters.streamsFailed++;
      setTimeout(() => done({ ok: false, reason }), 0);
    };
    const socket = this.#socket;
    if (this.#state !== 'open' || socket === undefined) return fail(this.#state === 'closed' ? 'transport closed' : 'reconnecting to the gateway');
    if (new TextEncoder().encode(to).length > MAX_ADDRESS_BYTES) return fail('bad address');
    const id = this.#nextId;
    this.#nextId = this.#nextId >= 0xffff_ffff ? 1 : this.#nextId + 1;
    const timer = setTimeout(() => finish({ ok: false, reason: `no reply within ${options.timeoutMs} ms` }), options.timeoutMs);
    const finish = (result: StreamResult) => {
      if (this.#calls.get(id) !== finish) return;
      this.#calls.delete(id);
      clearTimeout(timer);
      if (result.ok) this.counters.streamsOk++;
      else this.counters.streamsFailed++;
      done(result);
    };
    this.#calls.set(id, finish);
    try {
      socket.send(encodeRequest(id, options.timeoutMs, options.expectReply, to, bytes));
    } catch {
      setTimeout(() => finish({ ok: false, reason: 'send failed' }), 0);
    }
  }

  /** Close the connection (the gateway then releases the relay at once); idempotent. Pending requests fail. */
  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    this.#setState('closed');
    clearTimeout(this.#reconnectTimer);
    this.#pending?.close(1000, 'bye');
    this.#pending = undefined;
    this.#failCalls('transport closed');
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket === undefined) {
      this.#closing = Promise.resolve();
    } else {
      const closed = this.#socketClosed;
      try {
        socket.close(1000, 'bye');
      } catch {
        // Already closing.
      }
      this.#closing = Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS))]);
    }
    return this.#closing;
  }

  #welcomed(): Welcome {
    if (this.#welcome === undefined) throw new Error('WsTransport is not connected yet: await connectWsTransport()');
    return this.#welcome;
  }

  #setState(state: WsTransportState): void {
    const previous = this.#state;
    if (previous === state || previous === 'closed') return;
    this.#state = state;
    for (const listener of [...this.#listeners]) {
      try {
        listener(state, previous);
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  #drop(cause: WsDropCause): void {
    this.counters.packetsDropped++;
    this.counters.dropped[cause]++;
  }

  #failCalls(reason: string): void {
    const calls = [...this.#calls.values()];
    for (const finish of calls) finish({ ok: false, reason });
  }

  /**
   * The first connection: each gateway in the list's order until one welcomes the member. A
   * refusal that no other gateway would answer differently (a wrong token, a name in use) ends it;
   * a gateway that is unreachable, full or going away passes to the next.
   */
  async #firstConnect(): Promise<void> {
    const failures: string[] = [];
    let last: WsConnectError | undefined;
    for (const index of this.#gateways.firstConnect()) {
      try {
        return await this.#connect(index, {});
      } catch (error) {
        const failure = error as WsConnectError;
        if (failure.code !== undefined && FATAL_CLOSE_CODES.has(failure.code)) throw failure;
        failures.push(`${this.#gateways.urls[index]}: ${failure.message}`);
        last = failure;
      }
    }
    if (failures.length === 1) throw last!;
    throw new WsConnectError(`no gateway welcomed the member: ${failures.join('; ')}`, last?.code, last?.reason);
  }

  /** One connection attempt to gateway `index`: resolves on the welcome. */
  #connect(index: number, extras: HelloExtras): Promise<void> {
    const url = this.#gateways.urls[index]!;
    return new Promise<void>((resolve, reject) => {
      let socket: WebSocketLike;
      try {
        socket = new this.#WebSocket(url);
        socket.binaryType = 'arraybuffer';
      } catch (error) {
        reject(new WsConnectError(`could not open a WebSocket to ${url}: ${String(error)}`));
        return;
      }
      this.#pending = socket;
      let welcomed = false;
      let settled = false;
      let markClosed!: () => void;
      const closed = new Promise<void>((r) => {
        markClosed = r;
      });
      const fail = (error: WsConnectError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (this.#pending === socket) this.#pending = undefined;
        try {
          socket.close();
        } catch {
          // Not open yet.
        }
        reject(error);
      };
      const timer = setTimeout(() => fail(new WsConnectError(`no welcome from ${url} within ${this.#connectTimeoutMs} ms`)), this.#connectTimeoutMs);
      socket.addEventListener('open', () => {
        const hello: Hello = {
          op: 'hello',
          v: PROTOCOL_VERSION,
          name: this.#options.name,
          ...(this.#options.token === undefined ? {} : { token: this.#options.token }),
          ...extras,
        };
        try {
          socket.send(JSON.stringify(hello));
        } catch {
          // The close event follows.
        }
      });
      socket.addEventListener('message', (event) => {
        if (welcomed) return this.#onMessage(socket, event.data);
        if (settled) return;
        const welcome = typeof event.data === 'string' ? parseWelcome(event.data) : 'expected a welcome text frame';
        if (typeof welcome === 'string') return fail(new WsConnectError(`bad welcome from the gateway: ${welcome}`));
        const previous = this.#welcome;
        const moved = previous !== undefined && welcome.address !== previous.address;
        // A new address is taken only as a move the gateway accepted; any other would be a new member under our name.
        if (moved && welcome.moved !== true) {
          return fail(new WsConnectError(`${url} assigned a new address ${welcome.address} (was ${previous.address})`, WS_CLOSE.resumeRejected, 'address changed'));
        }
        welcomed = true;
        settled = true;
        clearTimeout(timer);
        this.#pending = undefined;
        if (this.#state === 'closed') {
          socket.close(1000, 'bye');
          reject(new WsConnectError('transport closed'));
          return;
        }
        this.#welcome = welcome;
        this.#gateways.settle(index);
        this.#socket = socket;
        this.#socketClosed = closed;
        this.#reconnect?.reset();
        this.counters.connects++;
        // The first welcome is not a change anyone could have subscribed to yet.
        if (previous === undefined) this.#state = 'open';
        else this.#setState('open');
        // Open first, so that what the listeners send (the member's alive from its new address) goes out.
        if (moved) {
          this.counters.moves++;
          this.#emitAddress(welcome.address);
        }
        resolve();
      });
      socket.addEventListener('close', (event) => {
        markClosed();
        if (!welcomed) {
          fail(new WsConnectError(`the gateway closed the connection: ${event.code} ${event.reason}`.trim(), event.code, event.reason));
          return;
        }
        this.#onClose(socket, event.code, event.reason);
      });
      socket.addEventListener('error', () => {
        // A close event follows.
      });
    });
  }

  #onClose(socket: WebSocketLike, code: number, reason: string): void {
    if (socket !== this.#socket) return;
    this.#socket = undefined;
    this.#failCalls(`connection to the gateway lost (${code})`);
    if (this.#state === 'closed') return;
    this.counters.disconnects++;
    if (this.#reconnect === undefined || FATAL_CLOSE_CODES.has(code)) {
      this.#closeCause = { code, reason };
      this.#setState('closed');
      this.#closing = Promise.resolve();
      return;
    }
    this.#setState('reconnecting');
    this.#scheduleReconnect();
  }

  #emitAddress(address: string): void {
    for (const listener of [...this.#addressListeners]) {
      try {
        listener(address);
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  /** The next reconnect round after the backoff's delay (with jitter: the pages of a dead gateway spread out). */
  #scheduleReconnect(): void {
    const delay = this.#reconnect!.nextDelayMs();
    this.#reconnectTimer = setTimeout(() => void this.#reconnectRound(), delay);
  }

  /**
   * One round: the member's gateway with its resume secret, then, when the welcome gave a
   * credential, every other gateway in turn with the credential and `from` (the relay address the
   * member had), until one welcomes it. The credential goes to its own gateway too: a gateway that
   * restarted has no relay to resume but moves the member to a new one. Without a credential (a
   * gateway from before them) only its own gateway is tried, as before.
   */
  async #reconnectRound(): Promise<void> {
    const welcome = this.#welcome!;
    const own = this.#gateways.current;
    const order = welcome.credential === undefined ? [own] : this.#gateways.reconnectRound();
    let refusals = 0;
    let last: WsConnectError | undefined;
    for (const index of order) {
      if (this.#closed()) return;
      this.counters.reconnectAttempts++;
      const extras: HelloExtras = {
        ...(index === own ? { resume: welcome.resume } : {}),
        ...(welcome.credential === undefined ? {} : { credential: welcome.credential, from: welcome.address }),
      };
      try {
        return await this.#connect(index, extras);
      } catch (error) {
        if (this.#closed()) return;
        last = error as WsConnectError;
        const code = last.code;
        if (code === undefined) continue;
        if (GATEWAY_REFUSALS.has(code)) refusals++;
        else if (FATAL_CLOSE_CODES.has(code)) return this.#closeFor(code, last.reason);
      }
    }
    // Every gateway answered, and none will take the member back: it cannot stay the same member.
    if (refusals === order.length && last?.code !== undefined) return this.#closeFor(last.code, last.reason);
    this.#scheduleReconnect();
  }

  /** A method, not a field read: TypeScript keeps a field's narrowing across awaits, where close() may have run. */
  #closed(): boolean {
    return this.#state === 'closed';
  }

  #closeFor(code: number, reason: string | undefined): void {
    this.#closeCause = { code, reason: reason ?? '' };
    this.#setState('closed');
    this.#closing = Promise.resolve();
  }

  #onMessage(socket: WebSocketLike, data: unknown): void {
    if (socket !== this.#socket) return;
    const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : undefined;
    const frame = bytes === undefined ? 'not a binary frame' : decodeFrame(bytes);
    if (typeof frame === 'string') return this.#drop('malformed');
    switch (frame.op) {
      case OP_PACKET: {
        const handlers = this.#handlers;
        if (handlers === undefined) return this.#drop('not-listening');
        this.counters.packetsReceived++;
        this.counters.bytesReceived += frame.bytes.length;
        try {
          handlers.packet(frame.address, frame.bytes);
        } catch {
          this.#drop('handler-error');
        }
        return;
      }
      case OP_RESULT:
        this.#calls.get(frame.id)?.(frame.ok ? { ok: true, bytes: frame.bytes } : { ok: false, reason: frame.reason });
        return;
      case OP_STREAM: {
        let replied = false;
        const reply = (bytes: Uint8Array | undefined) => {
          if (replied) return;
          replied = true;
          if (socket !== this.#socket || socket.readyState !== OPEN) return;
          try {
            socket.send(encodeReply(frame.id, bytes));
          } catch {
            // The connection went away; the requester times out.
          }
        };
        const handlers = this.#handlers;
        if (handlers === undefined) return reply(undefined);
        this.counters.streamsServed++;
        try {
          handlers.stream(frame.address, frame.bytes, reply);
        } catch {
          this.#drop('handler-error');
          reply(undefined);
        }
        return;
      }
      default:
        return this.#drop('malformed');
    }
  }
}
