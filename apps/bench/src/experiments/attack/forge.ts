/**
 * The attacker: a plain process on the same machine that is not a member. It forges packets with
 * @swim/core's public codec, sends them from its own UDP sockets, and speaks the stream framing
 * (a 4-byte big-endian length, then the payload; one request and one reply per TCP connection)
 * by hand. Its sockets bind 127.0.0.66, so that "per source" bounds see it apart from the members
 * on 127.0.0.1.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, type Socket } from 'node:net';
import { decodePacket, encodePacket, type AliveMessage, type Message, type PushPullEntry } from '@swim/core';

export const ATTACKER_HOST = '127.0.0.66';
/** The largest incarnation the wire carries (uint32). */
export const MAX_INCARNATION = 2 ** 32 - 1;
const EMPTY = new Uint8Array(0);

/** `encodePacket` returns a view of a shared slab: copy it before the next encode. */
export function forgePacket(messages: readonly Message[]): Buffer {
  return Buffer.from(encodePacket(messages));
}

/** host:port into its parts (IPv4 or [IPv6]). */
export function splitAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[|\]$/g, '');
  return { host, port: Number(address.slice(colon + 1)) };
}

export interface Received {
  readonly at: number;
  readonly from: string;
  readonly bytes: Buffer;
}

/** One UDP socket of the attacker: counts what it sends and keeps what it receives. */
export class UdpAttacker {
  readonly received: Received[] = [];
  packetsSent = 0;
  bytesSent = 0;

  private constructor(
    private readonly socket: UdpSocket,
    readonly address: string,
  ) {
    socket.on('message', (bytes, remote) => this.received.push({ at: Date.now(), from: `${remote.address}:${remote.port}`, bytes }));
    socket.on('error', () => {});
  }

  static async open(host = ATTACKER_HOST): Promise<UdpAttacker> {
    const socket = createSocket({ type: 'udp4', recvBufferSize: 4 * 1024 * 1024 });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    return new UdpAttacker(socket, `${host}:${socket.address().port}`);
  }

  get bytesReceived(): number {
    return this.received.reduce((sum, r) => sum + r.bytes.length, 0);
  }

  /** Resolves once the kernel took the datagram. */
  send(to: string, bytes: Uint8Array): Promise<void> {
    const { host, port } = splitAddress(to);
    this.packetsSent++;
    this.bytesSent += bytes.length;
    return new Promise((resolve) => this.socket.send(bytes, port, host, () => resolve()));
  }

  close(): void {
    try {
      this.socket.close();
    } catch {
      // already closed
    }
  }
}

/** The messages of a received datagram, or [] when it does not decode. */
export function messagesOf(bytes: Uint8Array): readonly Message[] {
  const decoded = decodePacket(bytes);
  return decoded.ok ? decoded.messages : [];
}

// --- forged membership -------------------------------------------------------------------------

/** A name and an address for fake member `i`: 127.66.x.y on the discard port, where nothing answers. */
export function fakeMember(prefix: string, i: number): { name: string; address: string } {
  return { name: `${prefix}${i}`, address: `127.66.${(i >> 8) & 255}.${i & 255}:9` };
}

/** `count` alive messages about fake members, `perPacket` to a datagram. */
export function fakeAlivePackets(prefix: string, count: number, perPacket: number): Buffer[] {
  const packets: Buffer[] = [];
  for (let first = 0; first < count; first += perPacket) {
    const messages: AliveMessage[] = [];
    for (let i = first; i < Math.min(count, first + perPacket); i++) {
      const fake = fakeMember(prefix, i);
      messages.push({ type: 'alive', incarnation: 1, node: fake.name, address: fake.address, meta: EMPTY });
    }
    packets.push(forgePacket(messages));
  }
  return packets;
}

/** A push-pull carrying `count` fake alive members, as a stream frame. */
export function fakePushPullFrame(prefix: string, count: number): Buffer {
  const members: PushPullEntry[] = [];
  for (let i = 0; i < count; i++) {
    const fake = fakeMember(prefix, i);
    members.push({ name: fake.name, address: fake.address, meta: EMPTY, incarnation: 1, state: 'alive' });
  }
  return frame(forgePacket([{ type: 'push-pull', join: false, members, userState: EMPTY }]));
}

/** How many fake entries make a push-pull frame of about `frameBytes` (entry sizes grow slowly with the index). */
export function pushPullEntriesFor(prefix: string, frameBytes: number): number {
  const sample = 10_000;
  const perEntry = fakePushPullFrame(prefix, sample).length / sample;
  let entries = Math.floor(frameBytes / perEntry);
  // Later names have more digits: shrink until it fits.
  while (fakePushPullFrame(prefix, entries).length > frameBytes) entries = Math.floor(entries * 0.98);
  return entries;
}

// --- streams -----------------------------------------------------------------------------------

/** A 4-byte big-endian length, then the payload (transport-udp's stream framing). */
export function frame(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(4 + payload.length);
  out.writeUInt32BE(payload.length, 0);
  out.set(payload, 4);
  return out;
}

export interface StreamOutcome {
  /** How the connection ended: the reply frame arrived, the peer closed or reset it, or we gave up. */
  readonly end: 'reply' | 'closed' | 'error' | 'timeout';
  readonly ms: number;
  readonly replyBytes: number;
}

/** Send one framed request over a new TCP connection from the attacker's host; wait for a reply frame. */
export function streamRequest(to: string, framed: Uint8Array, timeoutMs: number): Promise<StreamOutcome> {
  const start = performance.now();
  return new Promise((resolve) => {
    const { host, port } = splitAddress(to);
    const socket = connect({ host, port, localAddress: ATTACKER_HOST, noDelay: true });
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (end: StreamOutcome['end']) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ end, ms: performance.now() - start, replyBytes: Math.max(0, received.length - 4) });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('connect', () => socket.write(framed));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 4 && received.length >= 4 + received.readUInt32BE(0)) finish('reply');
    });
    socket.on('error', () => finish('error'));
    socket.on('close', () => finish('closed'));
  });
}

/** A connection that announced a frame and sent only part of it. */
export interface HeldStream {
  readonly socket: Socket;
  /** Bytes the kernel took from us so far (the peer may not have read them yet). */
  flushed: number;
  /** Set once the peer closed or reset the connection. */
  closedAt: number | undefined;
}

/**
 * Announce a frame of `announced` bytes and send `send` bytes of it (in 64 KiB writes), never the
 * rest: the receiver holds the connection and whatever it buffered until it gives up on it.
 */
export function holdPartialFrame(to: string, announced: number, send: number): HeldStream {
  const { host, port } = splitAddress(to);
  const socket = connect({ host, port, localAddress: ATTACKER_HOST });
  const held: HeldStream = { socket, flushed: 0, closedAt: undefined };
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  let left = send;
  const pump = () => {
    while (left > 0 && !socket.destroyed) {
      const n = Math.min(chunk.length, left);
      left -= n;
      const more = socket.write(n === chunk.length ? chunk : chunk.subarray(0, n), () => (held.flushed += n));
      if (!more) return void socket.once('drain', pump);
    }
  };
  socket.on('connect', () => {
    const header = Buffer.allocUnsafe(4);
    header.writeUInt32BE(announced, 0);
    socket.write(header);
    pump();
  });
  socket.on('error', () => {});
  socket.on('close', () => (held.closedAt = Date.now()));
  return held;
}
