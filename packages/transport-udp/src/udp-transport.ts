import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, createServer, isIP, type Server, type Socket } from 'node:net';
import type { StreamOptions, StreamResult, Transport, TransportHandlers } from '@swim/runtime';
import { formatAddress, parseAddress, type HostPort } from './address.js';
import { zeroUdpCounters, type UdpCounters, type UdpDropCause } from './counters.js';
import { encodeFrame, FrameReader } from './framing.js';

export interface UdpTransportOptions {
  /** IP literal and port to listen on (UDP and TCP, same port number); port 0 picks a free one. */
  readonly bind: { readonly host: string; readonly port: number };
  /**
   * What peers should dial (NAT, containers); defaults to the bind address. Port 0 means the bound
   * port. Required when binding a wildcard address (0.0.0.0 or ::).
   */
  readonly advertise?: { readonly host: string; readonly port: number };
  /** Largest packet sent, the core's MTU. Default 1400 (fits a 1500-byte Ethernet frame). */
  readonly maxPacketBytes?: number;
  /** Longest an incoming stream connection may live, so a peer holding one open cannot stall the node. Default 10 000 ms. */
  readonly streamTimeoutMs?: number;
  /** Largest stream frame accepted, request or reply. Default 20 MiB. */
  readonly maxFrameBytes?: number;
  /** Most incoming stream connections open at once; more are refused. Default 256. */
  readonly maxConnections?: number;
  /**
   * Send pacing: most datagrams written to the socket per event-loop turn; the rest wait in a
   * queue and go out in later turns (setImmediate). Default 32, what libuv reads per readiness
   * event on the receiving socket, so a burst does not overflow a receiver in the same process.
   */
  readonly maxBurst?: number;
  /**
   * Most datagrams waiting in the send queue; past it the oldest waiting one is dropped and
   * counted as `queue-full`. Default 4096.
   */
  readonly maxQueuedPackets?: number;
  /**
   * Kernel receive buffer asked for the UDP socket (SO_RCVBUF). Default 2 MiB, as memberlist's
   * NetTransport (udpRecvBufSize). Linux caps it at net.core.rmem_max (and doubles it for its own
   * bookkeeping); `recvBufferBytes` on the transport reports what the kernel granted. The default
   * ~208 KiB overflows whenever a busy receiver is off the CPU for a moment: at 100,000 datagrams/s
   * across two processes it lost 1-2 % (bench/loopback.ts).
   */
  readonly recvBufferBytes?: number;
}

const DEFAULT_MAX_PACKET_BYTES = 1400;
const DEFAULT_STREAM_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_FRAME_BYTES = 20 * 1024 * 1024;
const DEFAULT_MAX_CONNECTIONS = 256;
const DEFAULT_MAX_BURST = 32;
const DEFAULT_MAX_QUEUED_PACKETS = 4096;
const DEFAULT_RECV_BUFFER_BYTES = 2 * 1024 * 1024;
/** Largest UDP payload over IPv4. */
const MAX_UDP_PAYLOAD = 65_507;
/** Attempts at finding a port number free for both TCP and UDP when binding port 0. */
const PORT_ATTEMPTS = 8;

const CLOSED: StreamResult = Object.freeze({ ok: false, reason: 'transport closed' });
const WRITTEN: StreamResult = Object.freeze({ ok: true, bytes: undefined });

/**
 * Open a {@link UdpTransport}: a UDP socket for packets and a TCP server for streams, both bound
 * to `bind`. Resolves once both listen.
 */
export async function createUdpTransport(options: UdpTransportOptions): Promise<UdpTransport> {
  const settings = validate(options);
  const { socket, server, port } = await bindPair(settings.bind.host, settings.bind.port, settings.maxConnections, settings.recvBufferBytes);
  const advertise = options.advertise ?? settings.bind;
  const address = formatAddress(advertise.host, advertise.port === 0 ? port : advertise.port);
  return new UdpTransport({ socket, server, port, address, ...settings });
}

interface Settings {
  readonly bind: HostPort | { readonly host: string; readonly port: 0 };
  readonly maxPacketBytes: number;
  readonly streamTimeoutMs: number;
  readonly maxFrameBytes: number;
  readonly maxConnections: number;
  readonly maxBurst: number;
  readonly maxQueuedPackets: number;
  readonly recvBufferBytes: number;
}

/** Every problem with `options` at once, in one error (the core's ConfigError does the same for its config). */
function validate(options: UdpTransportOptions): Settings {
  const problems: string[] = [];
  const integer = (name: string, value: number, min: number, max: number): number => {
    if (!Number.isInteger(value) || value < min || value > max) problems.push(`${name} must be an integer in ${min}..${max}, got ${value}`);
    return value;
  };
  const { bind, advertise } = options;
  if (bind === undefined || typeof bind.host !== 'string' || isIP(bind.host) === 0) problems.push(`bind.host must be an IP literal, got ${bind?.host}`);
  if (bind !== undefined) integer('bind.port', bind.port, 0, 65_535);
  if (advertise !== undefined) {
    if (typeof advertise.host !== 'string' || advertise.host.length === 0) problems.push('advertise.host must be a non-empty string');
    integer('advertise.port', advertise.port, 0, 65_535);
  } else if (bind?.host === '0.0.0.0' || bind?.host === '::') {
    problems.push(`advertise is required when binding the wildcard address ${bind.host}`);
  }
  const settings: Settings = {
    bind: bind!,
    maxPacketBytes: integer('maxPacketBytes', options.maxPacketBytes ?? DEFAULT_MAX_PACKET_BYTES, 1, MAX_UDP_PAYLOAD),
    streamTimeoutMs: integer('streamTimeoutMs', options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS, 1, 2 ** 31 - 1),
    maxFrameBytes: integer('maxFrameBytes', options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES, 0, 2 ** 32 - 1),
    maxConnections: integer('maxConnections', options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, 1, 2 ** 31 - 1),
    maxBurst: integer('maxBurst', options.maxBurst ?? DEFAULT_MAX_BURST, 1, 2 ** 31 - 1),
    maxQueuedPackets: integer('maxQueuedPackets', options.maxQueuedPackets ?? DEFAULT_MAX_QUEUED_PACKETS, 0, 2 ** 31 - 1),
    recvBufferBytes: integer('recvBufferBytes', options.recvBufferBytes ?? DEFAULT_RECV_BUFFER_BYTES, 1, 2 ** 31 - 1),
  };
  if (problems.length > 0) {
    const n = problems.length;
    throw new RangeError(`Invalid UDP transport options (${n} problem${n === 1 ? '' : 's'}):\n${problems.map((p) => `- ${p}`).join('\n')}`);
  }
  return settings;
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
 * are TCP connections carrying one length-framed request and at most one length-framed reply.
 * Create it with {@link createUdpTransport}.
 */
export class UdpTransport implements Transport {
  readonly supportsStreams = true;
  readonly address: string;
  readonly maxPacketBytes: number;
  /** The port bound for both UDP and TCP (the real one when port 0 was asked for). */
  readonly port: number;
  readonly counters: UdpCounters = zeroUdpCounters();
  readonly #socket: UdpSocket;
  readonly #server: Server;
  readonly #streamTimeoutMs: number;
  readonly #maxFrameBytes: number;
  readonly #calls = new Set<Call>();
  readonly #connections = new Set<Socket>();
  readonly #maxBurst: number;
  readonly #maxQueuedPackets: number;
  /** Datagrams waiting for a later turn, a ring buffer: #queued of them from #queueHead. */
  #queue: Array<Outgoing | undefined> = [];
  #queueHead = 0;
  #queued = 0;
  /** Datagrams written in the current turn (reset by #tick). */
  #burst = 0;
  /** The pending setImmediate that starts the next turn, if any. */
  #tick: NodeJS.Immediate | undefined;
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
    this.#maxBurst = parts.maxBurst;
    this.#maxQueuedPackets = parts.maxQueuedPackets;
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

  /** Datagrams waiting in the send queue for a later event-loop turn (see `maxBurst`). */
  get queuedPackets(): number {
    return this.#queued;
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
    if (this.#queued === 0 && this.#burst < this.#maxBurst) {
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
      this.counters.packetsSent++;
      this.counters.bytesSent += bytes.length;
    } catch {
      this.#drop('send-error');
    }
  }

  readonly #onSent = (error: Error | null): void => {
    if (error) this.#drop('send-error');
  };

  #enqueue(packet: Outgoing): void {
    const counters = this.counters;
    if (this.#queued >= this.#maxQueuedPackets) {
      this.#drop('queue-full');
      if (this.#queued === 0) return; // maxQueuedPackets 0: nothing may wait
      this.#shift(); // drop the oldest: the newest packets (acks of current probes) matter most
    }
    const capacity = this.#queue.length;
    if (this.#queued === capacity) {
      // Grow the ring, unrolled from its head.
      const grown: Array<Outgoing | undefined> = new Array(Math.max(16, capacity * 2));
      for (let i = 0; i < this.#queued; i++) grown[i] = this.#queue[(this.#queueHead + i) % capacity];
      this.#queue = grown;
      this.#queueHead = 0;
    }
    this.#queue[(this.#queueHead + this.#queued) % this.#queue.length] = packet;
    this.#queued++;
    counters.packetsQueued++;
    if (this.#queued > counters.sendQueueHighWater) counters.sendQueueHighWater = this.#queued;
  }

  #shift(): Outgoing {
    const packet = this.#queue[this.#queueHead]!;
    this.#queue[this.#queueHead] = undefined;
    this.#queueHead = (this.#queueHead + 1) % this.#queue.length;
    this.#queued--;
    return packet;
  }

  /** A new event-loop turn: send up to maxBurst waiting datagrams; keep ticking while any were sent. */
  readonly #onTick = (): void => {
    this.#tick = undefined;
    this.#burst = 0;
    if (this.#closing !== undefined) return;
    while (this.#queued > 0 && this.#burst < this.#maxBurst) {
      const packet = this.#shift();
      this.#burst++;
      this.#write(packet.host, packet.port, packet.bytes);
    }
    if (this.#burst > 0) this.#tick = setImmediate(this.#onTick);
  };

  #receive(message: Buffer, host: string, port: number): void {
    const handlers = this.#handlers;
    if (this.#closing !== undefined) return;
    if (handlers === undefined) return this.#drop('not-listening');
    this.counters.packetsReceived++;
    this.counters.bytesReceived += message.length;
    try {
      handlers.packet(formatAddress(host, port), new Uint8Array(message.buffer, message.byteOffset, message.length));
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
    /** Settle once; `later` defers `done` to a fresh task (no callback inside request or close). */
    const settle = (result: StreamResult, later = false): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      this.#calls.delete(call);
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
    const reader = new FrameReader(this.#maxFrameBytes);
    // From the bind address when the peer is in the same address family: a host with several
    // addresses then dials from the one it is known by, for streams as for datagrams.
    const local = this.#localAddress !== undefined && isIP(target.host) === isIP(this.#localAddress) ? this.#localAddress : undefined;
    const stream = connect({ host: target.host, port: target.port, noDelay: true, ...(local === undefined ? {} : { localAddress: local }) });
    socket = stream;
    stream.on('connect', () => {
      stream.write(encodeFrame(bytes), (error) => {
        if (error) settle({ ok: false, reason: describe(error) });
        else if (!expectReply) settle(WRITTEN);
      });
    });
    stream.on('data', (chunk: Buffer) => {
      if (!expectReply || settled) return;
      const frames = reader.push(chunk);
      if (frames === 'oversize') {
        counters.streamsMalformed++;
        settle({ ok: false, reason: 'oversize reply frame' });
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
    this.#connections.add(connection);
    connection.setNoDelay(true);
    const from = formatAddress(connection.remoteAddress ?? 'unknown', connection.remotePort ?? 0);
    const reader = new FrameReader(this.#maxFrameBytes);
    let received = false;
    let answered = false;
    const malformed = (): void => {
      counters.streamsMalformed++;
      connection.destroy();
    };
    // An absolute deadline, not an idle timeout: a peer trickling bytes cannot hold a connection either.
    const deadline = setTimeout(() => {
      counters.streamsTimedOut++;
      connection.destroy();
    }, this.#streamTimeoutMs);
    const reply = (bytes: Uint8Array | undefined): void => {
      if (answered) return;
      answered = true;
      if (connection.destroyed || !connection.writable) return;
      if (bytes === undefined) connection.end();
      else connection.end(encodeFrame(bytes));
    };
    connection.on('data', (chunk: Buffer) => {
      if (received) return malformed(); // one request per connection
      const frames = reader.push(chunk);
      if (frames === 'oversize') return malformed();
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
    while (this.#queued > 0) {
      this.#shift();
      this.#drop('closed');
    }
    for (const call of [...this.#calls]) call.abort(CLOSED);
    for (const connection of this.#connections) connection.destroy();
    this.#connections.clear();
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

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? error.message : `${code}: ${error.message}`;
}
