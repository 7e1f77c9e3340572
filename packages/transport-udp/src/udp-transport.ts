import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, createServer, isIP, type Server, type Socket } from 'node:net';
import type { StreamOptions, StreamResult, Transport, TransportHandlers } from '@swim/runtime';
import { formatAddress, parseAddress, unmapIPv4 } from './address.js';
import { zeroUdpCounters, type UdpCounters, type UdpDropCause } from './counters.js';
import type { StreamFraming } from './framing.js';
import { validate, type Settings, type UdpTransportOptions } from './options.js';
import { processReceivePacer } from './receive-pacer.js';
import { resolveAddress } from './resolve.js';
import { RingQueue } from './ring-queue.js';
import { StreamBudget } from './stream-budget.js';

/** Attempts at finding a port number free for both TCP and UDP when binding port 0. */
const PORT_ATTEMPTS = 8;

const CLOSED: StreamResult = Object.freeze({ ok: false, reason: 'transport closed' });
/** Longest close() waits for written datagrams to leave (their callbacks come within a turn or two). */
const CLOSE_DRAIN_MS = 1_000;
const WRITTEN: StreamResult = Object.freeze({ ok: true, bytes: undefined });

/**
 * Open a {@link UdpTransport}: a UDP socket for packets and a TCP server for streams, both bound
 * to `bind`. Resolves once both listen.
 */
export async function createUdpTransport(options: UdpTransportOptions): Promise<UdpTransport> {
  const settings = validate(options);
  const { socket, server, port } = await bindPair(settings.bind.host, settings.bind.port, settings.maxStreamConnections, settings.recvBufferBytes);
  const advertise = options.advertise ?? settings.bind;
  const address = formatAddress(advertise.host, advertise.port === 0 ? port : advertise.port);
  return new UdpTransport({ socket, server, port, address, ...settings });
}

/** TCP first (port 0 lets the kernel pick), then UDP on the same number; retried when UDP has it taken. */
async function bindPair(
  host: string,
  port: number,
  maxConnections: number,
  recvBufferSize: number,
): Promise<{ socket: UdpSocket; server: Server; port: number }> {
  const attempts = port === 0 ? PORT_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    const server = createServer();
    server.maxConnections = maxConnections;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port, exclusive: true }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const bound = (server.address() as { port: number }).port;
    const socket = createSocket({ type: isIP(host) === 6 ? 'udp6' : 'udp4', recvBufferSize });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind({ address: host, port: bound, exclusive: true }, () => {
          socket.off('error', reject);
          resolve();
        });
      });
      return { socket, server, port: bound };
    } catch (error) {
      socket.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const code = (error as NodeJS.ErrnoException).code;
      if (attempt >= attempts || code !== 'EADDRINUSE') throw error;
    }
  }
}

/** A datagram waiting in the send queue. */
interface Outgoing {
  readonly host: string;
  readonly port: number;
  readonly bytes: Uint8Array;
}

/** An outgoing request in flight. */
interface Call {
  /** Settle now with `result`; `done` runs later (used by close). */
  abort(result: StreamResult): void;
}

interface TransportParts extends Settings {
  readonly socket: UdpSocket;
  readonly server: Server;
  readonly port: number;
  readonly address: string;
}

/**
 * The runtime's {@link Transport} over the network, for Node: packets are UDP datagrams, streams
 * are TCP connections carrying one request and at most one reply, each framed by the
 * `streamFraming` option (a length prefix by default).
 * Create it with {@link createUdpTransport}.
 */
export class UdpTransport implements Transport {
  readonly supportsStreams = true;
  readonly address: string;
  readonly maxPacketBytes: number;
  /** The port bound for both UDP and TCP (the real one when port 0 was asked for). */
  readonly port: number;
  /** Traffic, drops and stream outcomes since the transport opened; read it, or export it with {@link udpTransportMetrics}. */
  readonly counters: UdpCounters = zeroUdpCounters();
  readonly #socket: UdpSocket;
  readonly #server: Server;
  readonly #streamTimeoutMs: number;
  readonly #maxFrameBytes: number;
  readonly #framing: StreamFraming;
  readonly #calls = new Set<Call>();
  readonly #connections = new Set<Socket>();
  readonly #budget: StreamBudget;
  readonly #maxBurst: number;
  readonly #maxQueuedPackets: number;
  readonly #maxReceiveQueueBytes: number;
  /** Bytes of the datagrams this transport received that wait in the process's receive pacer. */
  #receiveQueueBytes = 0;
  /** Datagrams waiting for a later turn. */
  readonly #queue = new RingQueue<Outgoing>();
  /** Datagrams written in the current turn (reset by #tick). */
  #burst = 0;
  /** The pending setImmediate that starts the next turn, if any. */
  #tick: NodeJS.Immediate | undefined;
  /** Datagrams handed to the socket whose send callback has not run yet (see #shutdown). */
  #inFlight = 0;
  /** Called when #inFlight drops to 0 while closing. */
  #onDrained: (() => void) | undefined;
  #handlers: TransportHandlers | undefined;
  #closing: Promise<void> | undefined;
  /** The bind address, unless a wildcard: outgoing streams leave from it, as datagrams do. */
  readonly #localAddress: string | undefined;

  /** @internal Use {@link createUdpTransport}. */
  constructor(parts: TransportParts) {
    this.address = parts.address;
    this.port = parts.port;
    this.maxPacketBytes = parts.maxPacketBytes;
    this.#socket = parts.socket;
    this.#server = parts.server;
    this.#streamTimeoutMs = parts.streamTimeoutMs;
    this.#maxFrameBytes = parts.maxFrameBytes;
    this.#framing = parts.streamFraming;
    this.#maxBurst = parts.maxBurst;
    this.#maxQueuedPackets = parts.maxQueuedPackets;
    this.#maxReceiveQueueBytes = parts.maxReceiveQueueBytes;
    this.#budget = new StreamBudget(parts, this.counters);
    const host = parts.bind.host;
    this.#localAddress = host === '0.0.0.0' || host === '::' ? undefined : host;
    this.#socket.on('message', (message, remote) => this.#receive(message, remote.address, remote.port));
    // Errors of individual sends arrive in their callbacks; anything else must not crash the process.
    this.#socket.on('error', () => {});
    this.#server.on('connection', (connection) => this.#accept(connection));
    this.#server.on('drop', () => this.counters.streamsRejected++);
    this.#server.on('error', () => {});
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /**
   * Every "ip:port" a join address stands for (A and AAAA records through node:dns lookup, as
   * getaddrinfo sees them, /etc/hosts included; an IP literal gives itself). The runtime calls it
   * for every seed at every join attempt. What we bind is always an IP literal: names are resolved
   * for join only.
   */
  resolve(address: string): Promise<string[]> {
    return resolveAddress(address);
  }

  listen(handlers: TransportHandlers): void {
    if (this.#handlers !== undefined) throw new Error(`transport ${this.address} is already listening`);
    if (this.#closing !== undefined) throw new Error(`transport ${this.address} is closed`);
    this.#handlers = handlers;
  }

  // --- packets --------------------------------------------------------------------------------

  /** The UDP socket's receive buffer as the kernel granted it (see `recvBufferBytes` in the options). */
  get recvBufferBytes(): number {
    return this.#socket.getRecvBufferSize();
  }

  /**
   * Bytes buffered across all stream connections now (frames being read count in full from their
   * header on, replies until flushed to the kernel); at most `maxStreamBytesBuffered`.
   */
  get streamBytesBuffered(): number {
    return this.#budget.bytes;
  }

  /** Incoming stream connections open now. */
  get streamConnections(): number {
    return this.#connections.size;
  }

  /** Datagrams waiting in the send queue for a later event-loop turn (see `maxBurst`). */
  get queuedPackets(): number {
    return this.#queue.length;
  }

  /** Bytes of received datagrams waiting for a later event-loop turn (see `maxReceiveQueueBytes`). */
  get receiveQueueBytes(): number {
    return this.#receiveQueueBytes;
  }

  /**
   * Never throws. Written to the socket at once while fewer than `maxBurst` went out this turn and
   * none are waiting; queued otherwise (keeping a reference to `bytes`, which must not change).
   */
  sendPacket(to: string, bytes: Uint8Array): void {
    if (this.#closing !== undefined) return this.#drop('closed');
    if (bytes.length > this.maxPacketBytes) return this.#drop('oversize');
    const target = parseAddress(to);
    if (target === undefined) return this.#drop('bad-address');
    if (this.#queue.length === 0 && this.#burst < this.#maxBurst) {
      this.#burst++;
      this.#write(target.host, target.port, bytes);
    } else {
      this.#enqueue({ host: target.host, port: target.port, bytes });
    }
    // The next turn resets the burst count (and sends what waits).
    this.#tick ??= setImmediate(this.#onTick);
  }

  #write(host: string, port: number, bytes: Uint8Array): void {
    try {
      this.#socket.send(bytes, port, host, this.#onSent);
      this.#inFlight++;
      this.counters.packetsSent++;
      this.counters.bytesSent += bytes.length;
    } catch {
      this.#drop('send-error');
    }
  }

  readonly #onSent = (error: Error | null): void => {
    if (error) this.#drop('send-error');
    if (--this.#inFlight === 0) this.#onDrained?.();
  };

  #enqueue(packet: Outgoing): void {
    const counters = this.counters;
    const queue = this.#queue;
    if (queue.length >= this.#maxQueuedPackets) {
      this.#drop('queue-full');
      if (queue.length === 0) return; // maxQueuedPackets 0: nothing may wait
      queue.shift(); // drop the oldest: the newest packets (acks of current probes) matter most
    }
    queue.push(packet);
    counters.packetsQueued++;
    if (queue.length > counters.sendQueueHighWater) counters.sendQueueHighWater = queue.length;
  }

  /** A new event-loop turn: send up to maxBurst waiting datagrams; keep ticking while any were sent. */
  readonly #onTick = (): void => {
    this.#tick = undefined;
    this.#burst = 0;
    if (this.#closing !== undefined) return;
    while (this.#queue.length > 0 && this.#burst < this.#maxBurst) {
      const packet = this.#queue.shift();
      this.#burst++;
      this.#write(packet.host, packet.port, packet.bytes);
    }
    if (this.#burst > 0) this.#tick = setImmediate(this.#onTick);
  };

  #receive(message: Buffer, host: string, port: number): void {
    if (this.#closing !== undefined) return;
    if (this.#handlers === undefined) return this.#drop('not-listening');
    const counters = this.counters;
    counters.packetsReceived++;
    counters.bytesReceived += message.length;
    const from = formatAddress(host, port);
    const bytes = new Uint8Array(message.buffer, message.byteOffset, message.length);
    const pacer = processReceivePacer;
    if (pacer.mayDeliverNow()) {
      this.#deliver(from, bytes);
      pacer.delivered();
      return;
    }
    // The receive slice is spent (or datagrams wait before this one): a later turn hands it on.
    if (this.#receiveQueueBytes + bytes.length > this.#maxReceiveQueueBytes) return this.#drop('receive-queue-full');
    this.#receiveQueueBytes += bytes.length;
    counters.packetsDeferred++;
    if (this.#receiveQueueBytes > counters.receiveQueueHighWaterBytes) counters.receiveQueueHighWaterBytes = this.#receiveQueueBytes;
    pacer.defer(this.#deliverDeferred, from, bytes);
  }

  readonly #deliverDeferred = (from: string, bytes: Uint8Array): void => {
    this.#receiveQueueBytes -= bytes.length;
    if (this.#closing !== undefined) return this.#drop('closed');
    this.#deliver(from, bytes);
  };

  #deliver(from: string, bytes: Uint8Array): void {
    try {
      this.#handlers!.packet(from, bytes);
    } catch {
      this.#drop('handler-error');
    }
  }

  #drop(cause: UdpDropCause): void {
    this.counters.packetsDropped++;
    this.counters.dropped[cause]++;
  }

  // --- streams: requester side ------------------------------------------------------------------

  request(to: string, bytes: Uint8Array, options: StreamOptions, done: (result: StreamResult) => void): void {
    const { timeoutMs, expectReply } = options;
    if (!(timeoutMs >= 0)) throw new RangeError(`request: timeoutMs must be >= 0, got ${timeoutMs}`);
    const counters = this.counters;
    counters.streamsOpened++;
    let settled = false;
    let socket: Socket | undefined;
    let timer: NodeJS.Timeout | undefined;
    // Replies count in the total stream budget (not per source: our push-pull to a peer and its to us may overlap).
    const reader = this.#framing.reader(this.#maxFrameBytes, this.#budget.forConnection(undefined));
    /** Settle once; `later` defers `done` to a fresh task (no callback inside request or close). */
    const settle = (result: StreamResult, later = false): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      this.#calls.delete(call);
      reader.discard();
      if (socket !== undefined) {
        // A one-way write ends gracefully so the peer reads all of it; otherwise drop the connection.
        if (result.ok && !expectReply) socket.end();
        else socket.destroy();
      }
      if (result.ok) counters.streamsOk++;
      else counters.streamsFailed++;
      if (later) setImmediate(() => done(result));
      else done(result);
    };
    const call: Call = { abort: (result) => settle(result, true) };
    if (this.#closing !== undefined) return settle(CLOSED, true);
    const target = parseAddress(to);
    if (target === undefined) return settle({ ok: false, reason: `bad address ${JSON.stringify(to)}` }, true);
    this.#calls.add(call);
    timer = setTimeout(() => settle({ ok: false, reason: `timed out after ${timeoutMs} ms` }), timeoutMs);
    const local = this.#streamSource(target.host);
    const stream = connect({ host: target.host, port: target.port, noDelay: true, ...(local === undefined ? {} : { localAddress: local }) });
    socket = stream;
    stream.on('connect', () => {
      stream.write(this.#framing.frame(bytes), (error) => {
        if (error) settle({ ok: false, reason: describe(error) });
        else if (!expectReply) settle(WRITTEN);
      });
    });
    stream.on('data', (chunk: Buffer) => {
      if (!expectReply || settled) return;
      const frames = reader.push(chunk);
      if (frames === 'oversize') {
        counters.streamsMalformed++;
        counters.streamsOversize++;
        settle({ ok: false, reason: 'oversize reply frame' });
      } else if (frames === 'malformed') {
        counters.streamsMalformed++;
        counters.streamsMalformedFraming++;
        settle({ ok: false, reason: `malformed reply (${this.#framing.name} framing)` });
      } else if (frames === 'over-budget') {
        settle({ ok: false, reason: 'reply refused: stream buffers full' }); // counted by the budget
      } else if (frames.length > 0) {
        settle({ ok: true, bytes: frames[0]! });
      }
    });
    stream.on('error', (error) => settle({ ok: false, reason: describe(error) }));
    stream.on('close', () => settle({ ok: false, reason: expectReply ? 'closed without reply' : 'closed before the request was written' }));
  }

  // --- streams: server side ---------------------------------------------------------------------

  #accept(connection: Socket): void {
    const counters = this.counters;
    counters.streamsAccepted++;
    connection.on('error', () => {});
    const handlers = this.#handlers;
    if (this.#closing !== undefined || handlers === undefined) {
      counters.streamsRejected++;
      connection.destroy();
      return;
    }
    const source = unmapIPv4(connection.remoteAddress ?? 'unknown');
    if (!this.#budget.admit(source)) {
      connection.destroy(); // counted by the budget
      return;
    }
    this.#connections.add(connection);
    connection.setNoDelay(true);
    const from = formatAddress(connection.remoteAddress ?? 'unknown', connection.remotePort ?? 0);
    const budget = this.#budget.forConnection(source);
    const reader = this.#framing.reader(this.#maxFrameBytes, budget);
    let received = false;
    let answered = false;
    /** Reply bytes held for a peer that has not read them yet. */
    let replyHeld = 0;
    const releaseReply = (): void => {
      budget.release(replyHeld);
      replyHeld = 0;
    };
    const malformed = (): void => {
      counters.streamsMalformed++;
      connection.destroy();
    };
    // An absolute deadline, not an idle timeout: a peer trickling its request, or reading our reply
    // a byte at a time, cannot hold a connection (and its buffers) either.
    const deadline = setTimeout(() => {
      counters.streamsTimedOut++;
      connection.destroy();
    }, this.#streamTimeoutMs);
    const reply = (bytes: Uint8Array | undefined): void => {
      if (answered) return;
      answered = true;
      if (connection.destroyed || !connection.writable) return;
      if (bytes === undefined) return void connection.end();
      const frame = this.#framing.frame(bytes);
      // Held until flushed to the kernel: a peer that never reads keeps it in our memory.
      if (!budget.reserve(frame.length)) return void connection.destroy(); // counted by the budget
      replyHeld = frame.length;
      connection.end(frame, releaseReply);
    };
    connection.on('data', (chunk: Buffer) => {
      if (received) return malformed(); // one request per connection
      const frames = reader.push(chunk);
      if (frames === 'oversize') {
        counters.streamsOversize++;
        return malformed();
      }
      if (frames === 'malformed') {
        counters.streamsMalformedFraming++;
        return malformed();
      }
      if (frames === 'over-budget') return void connection.destroy(); // counted by the budget
      if (frames.length === 0) return;
      if (frames.length > 1 || reader.buffered > 0) return malformed();
      received = true;
      counters.streamsServed++;
      try {
        handlers.stream(from, frames[0]!, reply);
      } catch {
        counters.streamHandlerErrors++;
        answered = true;
        connection.destroy();
      }
    });
    connection.on('end', () => {
      if (!received && reader.buffered > 0) counters.streamsMalformed++; // truncated request
    });
    connection.on('close', () => {
      clearTimeout(deadline);
      reader.discard();
      releaseReply();
      this.#budget.leave(source);
      this.#connections.delete(connection);
    });
  }

  // --- lifecycle --------------------------------------------------------------------------------

  /** Close the socket and the server, drop open connections and fail pending requests. Idempotent. */
  close(): Promise<void> {
    if (this.#closing === undefined) this.#closing = this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    if (this.#tick !== undefined) clearImmediate(this.#tick);
    this.#tick = undefined;
    while (this.#queue.length > 0) {
      this.#queue.shift();
      this.#drop('closed');
    }
    for (const call of [...this.#calls]) call.abort(CLOSED);
    for (const connection of this.#connections) connection.destroy();
    this.#connections.clear();
    await this.#drainWrites();
    await Promise.all([
      new Promise<void>((resolve) => {
        try {
          this.#socket.close(() => resolve());
        } catch {
          resolve();
        }
      }),
      new Promise<void>((resolve) => this.#server.close(() => resolve())),
    ]);
  }

  /**
   * Wait (at most CLOSE_DRAIN_MS) for the datagrams already written to reach the kernel. Node's
   * dgram resolves the destination on the next tick before it writes, and drops the datagram
   * without a word when the socket closed in between: a leave() followed at once by close() lost
   * its last gossip that way, and peers then suspected the member instead of seeing it leave.
   * memberlist's Go sockets write synchronously, so its Shutdown never had this gap.
   */
  async #drainWrites(): Promise<void> {
    if (this.#inFlight === 0) return;
    await new Promise<void>((resolve) => {
      const bound = setTimeout(resolve, CLOSE_DRAIN_MS);
      this.#onDrained = () => {
        clearTimeout(bound);
        resolve();
      };
    });
    this.#onDrained = undefined;
  }

  /** `close()`, for `await using transport = await createUdpTransport(...)`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * The address an outgoing stream binds before it connects: the bind address when the peer is in
   * the same address family, so a host with several addresses dials from the one it is known by,
   * for streams as for datagrams. Not when the peer is at that very address: the kernel picks it
   * as the source there anyway (the local route's), and a bind(addr, 0) before connect costs a
   * search for a port no bound socket holds, TIME_WAIT ones included, while connect alone may
   * reuse a port towards another peer. With 5,000 members on one address and their push-pulls'
   * TIME_WAIT sockets, that search took milliseconds a stream, on the event loop (2,000 connects
   * in a row: 0.8-2.6 ms each with the bind, 0.15 ms without). memberlist never binds its dials.
   */
  #streamSource(peerHost: string): string | undefined {
    const local = this.#localAddress;
    if (local === undefined || peerHost === local || isIP(peerHost) !== isIP(local)) return undefined;
    return local;
  }
}

function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? error.message : `${code}: ${error.message}`;
}
