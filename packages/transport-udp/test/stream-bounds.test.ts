import { connect, createServer, type Server, type Socket } from 'node:net';
import type { StreamResult, TransportHandlers } from '@swim/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createUdpTransport, encodeFrame, FrameReader, parseAddress, type ByteBudget, type UdpTransport } from '../src/index.js';
import { transports, waitFor } from './helpers.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** A frame header announcing `length` bytes. */
function header(length: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(length, 0);
  return bytes;
}

/** Echo handlers: every stream is answered with its own bytes. */
const echo: TransportHandlers = { packet: () => {}, stream: (_from, bytes, reply) => reply(bytes) };

interface Raw {
  readonly socket: Socket;
  /** Whether the transport has closed it. */
  readonly isClosed: () => boolean;
  readonly closed: Promise<void>;
}

/** A raw TCP connection to `transport`'s stream port, from `localAddress` (any 127.x.y.z is the loopback on Linux). */
async function rawConnection(transport: UdpTransport, localAddress = '127.0.0.1'): Promise<Raw> {
  const target = parseAddress(transport.address)!;
  const socket = connect({ host: target.host, port: target.port, localAddress });
  socket.on('error', () => {});
  let isClosed = false;
  const closed = new Promise<void>((resolve) =>
    socket.on('close', () => {
      isClosed = true;
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, closed, isClosed: () => isClosed };
}

function request(from: UdpTransport, to: string, bytes: Uint8Array, timeoutMs = 5_000): Promise<StreamResult> {
  return new Promise((resolve) => from.request(to, bytes, { timeoutMs, expectReply: true }, resolve));
}

/** A TCP server that answers every connection with `answer`'s bytes and then keeps it open. */
async function rawServer(answer: Buffer): Promise<{ server: Server; address: string }> {
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => socket.write(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, address: `127.0.0.1:${(server.address() as { port: number }).port}` };
}

describe('frame reader', () => {
  /** A budget that records what it was asked for. */
  function recording(limit = Infinity): ByteBudget & { held: number; asked: number[] } {
    const budget = {
      held: 0,
      asked: [] as number[],
      reserve(bytes: number) {
        budget.asked.push(bytes);
        if (budget.held + bytes > limit) return false;
        budget.held += bytes;
        return true;
      },
      release(bytes: number) {
        budget.held -= bytes;
      },
    };
    return budget;
  }

  it('takes a frame’s announced length from its budget once its header is in, and gives it back when complete', () => {
    const budget = recording();
    const reader = new FrameReader(1 * MiB, budget);
    const frame = encodeFrame(new Uint8Array(100_000).fill(7));
    expect(reader.push(frame.subarray(0, 3))).toEqual([]);
    expect(budget.asked).toEqual([]);
    expect(reader.push(frame.subarray(3, 1_000))).toEqual([]);
    expect(budget.asked).toEqual([100_000]);
    expect(reader.reserved).toBe(100_000);
    expect(reader.buffered).toBe(996);
    let out: ReturnType<FrameReader['push']> = [];
    for (let at = 1_000; at < frame.length; at += 4_096) out = reader.push(frame.subarray(at, at + 4_096));
    expect(out).not.toBe('oversize');
    expect((out as Uint8Array[])[0]!.every((b) => b === 7)).toBe(true);
    expect(budget.held).toBe(0);
    expect(reader.reserved).toBe(0);
  });

  it('refuses an oversize header or one the budget refuses, and discard gives back an incomplete frame', () => {
    expect(new FrameReader(10).push(header(11))).toBe('oversize');
    const budget = recording(1_000);
    expect(new FrameReader(10_000, budget).push(header(1_001))).toBe('over-budget');
    const reader = new FrameReader(10_000, budget);
    expect(reader.push(Buffer.concat([header(600), Buffer.alloc(10)]))).toEqual([]);
    expect(budget.held).toBe(600);
    reader.discard();
    expect(budget.held).toBe(0);
  });
});

describe('stream bounds', () => {
  const pool = transports();
  const servers: Server[] = [];
  const raws: Raw[] = [];
  afterEach(async () => {
    for (const raw of raws.splice(0)) raw.socket.destroy();
    for (const server of servers.splice(0)) server.close();
    await pool.closeAll();
  });
  const open = async (transport: UdpTransport, localAddress?: string): Promise<Raw> => {
    const raw = await rawConnection(transport, localAddress);
    raws.push(raw);
    return raw;
  };

  it('by default frames up to 16 MiB are read, and the caps must agree with each other', async () => {
    const t = await pool.open();
    t.listen(echo);
    // A frame of exactly 16 MiB is read; one byte more is refused.
    const raw = await open(t);
    raw.socket.write(header(16 * MiB + 1));
    await raw.closed;
    expect(t.counters.streamsOversize).toBe(1);
    await expect(createUdpTransport({ bind: { host: '127.0.0.1', port: 0 }, maxFrameBytes: 32 * MiB })).rejects.toThrow(
      /maxFrameBytes \(33554432\) must not exceed maxStreamBytesPerSource \(16777216\)/,
    );
  });

  it('lists every problem with the stream options at once', async () => {
    await expect(
      createUdpTransport({
        bind: { host: '127.0.0.1', port: 0 },
        maxFrameBytes: 1.5,
        maxStreamBytesBuffered: 0,
        maxStreamBytesPerSource: 128 * MiB,
        maxStreamConnections: 8,
        maxStreamConnectionsPerSource: 10,
      }),
    ).rejects.toThrow(
      /\(4 problems\):\n- maxFrameBytes must be .*\n- maxStreamBytesBuffered must be .*\n- maxStreamBytesPerSource \(134217728\) must not exceed maxStreamBytesBuffered \(0\).*\n- maxStreamConnectionsPerSource \(10\) must not exceed maxStreamConnections \(8\)/,
    );
  });

  it('a header announcing more than maxFrameBytes closes the connection at once, before buffering anything', async () => {
    // A minute-long stream timeout: only the oversize header can explain the close.
    const t = await pool.open({ maxFrameBytes: 1 * MiB, streamTimeoutMs: 60_000 });
    t.listen(echo);
    const raw = await open(t);
    raw.socket.write(header(1 * MiB + 1));
    expect(await waitFor(raw.isClosed)).toBe(true);
    expect(t.counters).toMatchObject({ streamsOversize: 1, streamsMalformed: 1, streamBytesBufferedHighWater: 0, streamsServed: 0 });
    expect(t.streamBytesBuffered).toBe(0);
    // A frame of exactly maxFrameBytes is served.
    const a = await pool.open();
    a.listen(echo);
    const result = await request(a, t.address, new Uint8Array(1 * MiB).fill(1));
    expect(result.ok && result.bytes?.length).toBe(1 * MiB);
  });

  it('many connections each sending most of a large frame: buffered bytes stay within maxStreamBytesBuffered', async () => {
    const t = await pool.open({ maxFrameBytes: 1 * MiB, maxStreamBytesPerSource: 2 * MiB, maxStreamBytesBuffered: 4 * MiB, streamTimeoutMs: 60_000 });
    t.listen(echo);
    const partial = Buffer.concat([header(1 * MiB), Buffer.alloc(900 * KiB, 1)]);
    const flood: Raw[] = [];
    // Twelve sources, one connection each: only the total can refuse them.
    for (let i = 0; i < 12; i++) {
      const raw = await open(t, `127.0.0.${i + 2}`);
      raw.socket.write(partial);
      flood.push(raw);
    }
    expect(await waitFor(() => t.counters.streamsOverBudget === 8 && flood.filter((r) => r.isClosed()).length === 8)).toBe(true);
    expect(t.streamBytesBuffered).toBe(4 * MiB);
    expect(t.counters.streamBytesBufferedHighWater).toBe(4 * MiB);
    expect(t.counters.streamsOverSourceBudget).toBe(0);
    // The refused connections' buffers are gone; the held ones give theirs back when they close.
    for (const raw of flood) raw.socket.destroy();
    expect(await waitFor(() => t.streamBytesBuffered === 0 && t.streamConnections === 0)).toBe(true);
    const a = await pool.open();
    a.listen(echo);
    const result = await request(a, t.address, new Uint8Array(512 * KiB));
    expect(result.ok && result.bytes?.length).toBe(512 * KiB);
    expect(t.counters.streamBytesBufferedHighWater).toBe(4 * MiB);
  });

  it('one source holds at most maxStreamBytesPerSource; other sources are still served', async () => {
    const t = await pool.open({ maxFrameBytes: 1 * MiB, maxStreamBytesPerSource: 2 * MiB, maxStreamBytesBuffered: 8 * MiB, streamTimeoutMs: 60_000 });
    t.listen(echo);
    const partial = Buffer.concat([header(1 * MiB), Buffer.alloc(900 * KiB, 1)]);
    const flood: Raw[] = [];
    for (let i = 0; i < 5; i++) {
      const raw = await open(t, '127.0.0.1');
      raw.socket.write(partial);
      flood.push(raw);
    }
    expect(await waitFor(() => t.counters.streamsOverSourceBudget === 3 && flood.filter((r) => r.isClosed()).length === 3)).toBe(true);
    expect(t.streamBytesBuffered).toBe(2 * MiB);
    // Another source (a transport bound to 127.0.0.2 dials from it) is served meanwhile.
    const other = await pool.open({ bind: { host: '127.0.0.2', port: 0 } });
    other.listen(echo);
    const result = await request(other, t.address, new Uint8Array(1 * MiB));
    expect(result.ok && result.bytes?.length).toBe(1 * MiB);
    expect(t.counters.streamsOverBudget).toBe(0);
  });

  it('refuses connections past maxStreamConnectionsPerSource and maxStreamConnections, counted', async () => {
    const t = await pool.open({ maxStreamConnections: 6, maxStreamConnectionsPerSource: 3, streamTimeoutMs: 60_000 });
    t.listen(echo);
    const fromOne: Raw[] = [];
    for (let i = 0; i < 5; i++) fromOne.push(await open(t, '127.0.0.1'));
    expect(await waitFor(() => t.counters.streamsRejectedPerSource === 2 && fromOne.filter((r) => r.isClosed()).length === 2)).toBe(true);
    expect(t.streamConnections).toBe(3);
    // Other sources fill the total of 6; past it the server refuses.
    const others: Raw[] = [];
    for (let i = 0; i < 5; i++) others.push(await open(t, `127.0.0.${i + 2}`));
    expect(await waitFor(() => t.counters.streamsRejected === 4 && others.filter((r) => r.isClosed()).length === 2)).toBe(true);
    expect(t.streamConnections).toBe(6);
    expect(t.counters.streamsRejectedPerSource).toBe(2);
    // Closing its connections lets the source in again.
    for (const raw of fromOne) raw.socket.destroy();
    expect(await waitFor(() => t.streamConnections === 3)).toBe(true);
    const again = await open(t, '127.0.0.1');
    again.socket.write(encodeFrame(new Uint8Array([42])));
    let reply = Buffer.alloc(0);
    again.socket.on('data', (chunk: Buffer) => (reply = Buffer.concat([reply, chunk])));
    expect(await waitFor(() => reply.length === 5)).toBe(true);
    expect([...reply]).toEqual([0, 0, 0, 1, 42]);
  });

  it('a peer trickling its request is cut at streamTimeoutMs and its buffer given back', async () => {
    const t = await pool.open({ streamTimeoutMs: 400 });
    t.listen(echo);
    const raw = await open(t);
    raw.socket.write(header(1_000));
    const trickle = setInterval(() => raw.socket.write(Buffer.from([1])), 20);
    try {
      expect(await waitFor(() => t.streamBytesBuffered === 1_000)).toBe(true);
      expect(await waitFor(raw.isClosed)).toBe(true);
    } finally {
      clearInterval(trickle);
    }
    expect(t.counters.streamsTimedOut).toBe(1);
    expect(await waitFor(() => t.streamBytesBuffered === 0 && t.streamConnections === 0)).toBe(true);
  });

  it('a reply the peer never reads is held within the budget until streamTimeoutMs, then freed', async () => {
    const big = 24 * MiB;
    const t = await pool.open({ maxStreamBytesPerSource: 32 * MiB, maxStreamBytesBuffered: 32 * MiB, streamTimeoutMs: 800 });
    t.listen({ packet: () => {}, stream: (_from, _bytes, reply) => reply(new Uint8Array(big)) });
    const raw = await open(t);
    raw.socket.pause(); // never reads: the kernel buffers fill, the rest of the reply waits in ours
    raw.socket.write(encodeFrame(new Uint8Array([1])));
    expect(await waitFor(() => t.streamBytesBuffered === big + 4)).toBe(true);
    expect(await waitFor(() => t.counters.streamsTimedOut === 1)).toBe(true);
    expect(await waitFor(() => t.streamBytesBuffered === 0)).toBe(true);
    // A reply larger than the source may hold is not written at all.
    const small = await pool.open({ maxFrameBytes: 1 * MiB, maxStreamBytesPerSource: 16 * MiB, streamTimeoutMs: 60_000 });
    small.listen({ packet: () => {}, stream: (_from, _bytes, reply) => reply(new Uint8Array(big)) });
    const refused = await open(small);
    refused.socket.write(encodeFrame(new Uint8Array([1])));
    expect(await waitFor(refused.isClosed)).toBe(true);
    expect(small.counters.streamsOverSourceBudget).toBe(1);
    expect(small.streamBytesBuffered).toBe(0);
  });

  it('replies to our own requests: an oversize header fails at once, and they count in the total budget', async () => {
    const a = await pool.open({ maxFrameBytes: 1 * MiB, maxStreamBytesPerSource: 1 * MiB, maxStreamBytesBuffered: 1 * MiB });
    a.listen(echo);
    const liar = await rawServer(header(1 * MiB + 1));
    servers.push(liar.server);
    const started = Date.now();
    expect(await request(a, liar.address, new Uint8Array([1]), 30_000)).toEqual({ ok: false, reason: 'oversize reply frame' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(a.counters.streamsOversize).toBe(1);
    // A reply of 1 MiB arriving slowly holds the whole budget: a second one is refused.
    const slow = await rawServer(Buffer.concat([header(1 * MiB), Buffer.alloc(1_000)]));
    servers.push(slow.server);
    const first = request(a, slow.address, new Uint8Array([1]), 30_000);
    expect(await waitFor(() => a.streamBytesBuffered === 1 * MiB)).toBe(true);
    expect(await request(a, slow.address, new Uint8Array([2]), 30_000)).toEqual({ ok: false, reason: 'reply refused: stream buffers full' });
    expect(a.counters.streamsOverBudget).toBe(1);
    await a.close();
    expect(await first).toEqual({ ok: false, reason: 'transport closed' });
    expect(a.streamBytesBuffered).toBe(0);
  });
});
