import { connect, createServer, type Server } from 'node:net';
import type { StreamResult, TransportHandlers } from '@swim/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createUdpTransport,
  encodeFrame,
  lengthPrefixFraming,
  parseAddress,
  type ByteBudget,
  type FrameReadResult,
  type StreamFrameReader,
  type StreamFraming,
  type UdpTransport,
} from '../src/index.js';
import { transports, waitFor } from './helpers.js';

const NEWLINE = 0x0a;
/** The toy framing refuses this byte anywhere, so a test can send a frame it calls malformed. */
const FORBIDDEN = 0x00;

/**
 * A toy framing: a frame is its bytes then a newline (bytes holding a newline cannot be framed).
 * Like a real one it reserves what it buffers, refuses frames above maxFrameBytes, and scans only
 * the new chunk.
 */
const newlineFraming: StreamFraming & { readers: number } = {
  name: 'newline',
  readers: 0,
  frame(bytes) {
    if (bytes.includes(NEWLINE)) throw new RangeError('newline framing: the bytes hold a newline');
    const framed = new Uint8Array(bytes.length + 1);
    framed.set(bytes);
    framed[bytes.length] = NEWLINE;
    return framed;
  },
  reader(maxFrameBytes: number, budget: ByteBudget): StreamFrameReader {
    newlineFraming.readers++;
    let parts: Uint8Array[] = [];
    let held = 0;
    let failed: 'oversize' | 'over-budget' | 'malformed' | undefined;
    const give = (): void => {
      budget.release(held);
      held = 0;
      parts = [];
    };
    return {
      get buffered() {
        return held;
      },
      get reserved() {
        return held;
      },
      push(chunk): FrameReadResult {
        if (failed !== undefined) return failed;
        const frames: Uint8Array[] = [];
        let start = 0;
        for (let i = 0; i < chunk.length; i++) {
          if (chunk[i] === FORBIDDEN) return (failed = 'malformed');
          if (chunk[i] !== NEWLINE) continue;
          const piece = chunk.subarray(start, i);
          if (held + piece.length > maxFrameBytes) return (failed = 'oversize');
          const frame = new Uint8Array(held + piece.length);
          let at = 0;
          for (const part of parts) (frame.set(part, at), (at += part.length));
          frame.set(piece, at);
          give();
          frames.push(frame);
          start = i + 1;
        }
        const rest = chunk.subarray(start);
        if (rest.length > 0) {
          if (held + rest.length > maxFrameBytes) return (failed = 'oversize');
          if (!budget.reserve(rest.length)) return (failed = 'over-budget');
          held += rest.length;
          parts.push(rest.slice());
        }
        return frames;
      },
      discard: give,
    };
  },
};

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString();
const bytesOf = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Echo handlers that record what each stream request was, as the handler saw it. */
function echo(seen: string[] = []): TransportHandlers {
  return {
    packet: () => {},
    stream: (_from, bytes, reply) => {
      seen.push(text(bytes));
      reply(bytesOf(`echo ${text(bytes)}`));
    },
  };
}

function request(from: UdpTransport, to: string, bytes: Uint8Array): Promise<StreamResult> {
  return new Promise((resolve) => from.request(to, bytes, { timeoutMs: 5_000, expectReply: true }, resolve));
}

/** Write `bytes` on a raw TCP connection to `transport`; everything it answers until it closes. */
async function rawExchange(transport: UdpTransport, bytes: Uint8Array): Promise<Buffer> {
  const target = parseAddress(transport.address)!;
  const socket = connect({ host: target.host, port: target.port });
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('connect', () => socket.write(bytes));
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

/** A TCP server that answers the first chunk of every connection with `answer` and keeps it open. */
async function rawServer(answer: Uint8Array): Promise<{ server: Server; address: string }> {
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => socket.write(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, address: `127.0.0.1:${(server.address() as { port: number }).port}` };
}

describe('pluggable stream framing', () => {
  const pool = transports();
  const servers: Server[] = [];
  afterEach(async () => {
    await pool.closeAll();
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it('carries requests and replies in the given framing, on the wire as on both ends', async () => {
    const a = await pool.open({ streamFraming: newlineFraming });
    const b = await pool.open({ streamFraming: newlineFraming });
    const seenByA: string[] = [];
    const seenByB: string[] = [];
    a.listen(echo(seenByA));
    b.listen(echo(seenByB));
    const readersBefore = newlineFraming.readers;
    const result = await request(a, b.address, bytesOf('hello'));
    expect(result).toEqual({ ok: true, bytes: bytesOf('echo hello') });
    expect(seenByB).toEqual(['hello']);
    // One reader for a's reply, one for b's incoming request.
    expect(newlineFraming.readers - readersBefore).toBe(2);
    // On the wire: the newline framing, no length prefix, both ways.
    expect(text(await rawExchange(a, bytesOf('raw\n')))).toBe('echo raw\n');
    expect(seenByA).toEqual(['raw']);
    // A request split across writes, then the reply as one frame.
    const target = parseAddress(b.address)!;
    const split = connect({ host: target.host, port: target.port, noDelay: true });
    const answer: Buffer[] = [];
    split.on('data', (chunk: Buffer) => answer.push(chunk));
    const closed = new Promise((resolve) => split.on('close', resolve));
    await new Promise((resolve) => split.on('connect', resolve));
    split.write('tri');
    expect(await waitFor(() => b.streamBytesBuffered === 3)).toBe(true);
    split.write('ckle\n');
    await closed;
    expect(text(Buffer.concat(answer))).toBe('echo trickle\n');
    expect(b.counters.streamsServed).toBe(2);
    expect(b.counters.streamsMalformed).toBe(0);
    expect(await waitFor(() => a.streamBytesBuffered === 0 && b.streamBytesBuffered === 0)).toBe(true);
  });

  it('a length-prefixed request is not what it reads: the framing decides, not a built-in prefix', async () => {
    const b = await pool.open({ streamFraming: newlineFraming });
    const seen: string[] = [];
    b.listen(echo(seen));
    // encodeFrame('x') is 00 00 00 01 'x': the toy framing refuses its zero bytes.
    expect(await rawExchange(b, encodeFrame(bytesOf('x')))).toHaveLength(0);
    expect(seen).toEqual([]);
    expect(b.counters.streamsMalformedFraming).toBe(1);
  });

  it("closes and counts a request the framing calls 'malformed', and gives its buffered bytes back", async () => {
    const a = await pool.open({ streamFraming: newlineFraming });
    const b = await pool.open({ streamFraming: newlineFraming });
    const seen: string[] = [];
    a.listen(echo());
    b.listen(echo(seen));
    const target = parseAddress(b.address)!;
    const bad = connect({ host: target.host, port: target.port, noDelay: true });
    bad.on('error', () => {});
    const closed = new Promise((resolve) => bad.on('close', resolve));
    await new Promise((resolve) => bad.on('connect', resolve));
    bad.write('part of a frame');
    expect(await waitFor(() => b.streamBytesBuffered === 15)).toBe(true);
    bad.write(Buffer.from([FORBIDDEN]));
    await closed;
    expect(seen).toEqual([]);
    expect(b.counters).toMatchObject({ streamsMalformed: 1, streamsMalformedFraming: 1, streamsOversize: 0, streamsServed: 0 });
    expect(await waitFor(() => b.streamBytesBuffered === 0 && b.streamConnections === 0)).toBe(true);
    // Other traffic goes on.
    expect(await request(a, b.address, bytesOf('still fine?'))).toEqual({ ok: true, bytes: bytesOf('echo still fine?') });
  });

  it("fails and counts a request whose reply the framing calls 'malformed'", async () => {
    const a = await pool.open({ streamFraming: newlineFraming });
    const { server, address } = await rawServer(Buffer.from([0x6f, 0x6b, FORBIDDEN, NEWLINE]));
    servers.push(server);
    const result = await request(a, address, bytesOf('question'));
    expect(result).toEqual({ ok: false, reason: 'malformed reply (newline framing)' });
    expect(a.counters).toMatchObject({ streamsMalformed: 1, streamsMalformedFraming: 1, streamsFailed: 1 });
    expect(a.streamBytesBuffered).toBe(0);
  });

  it('applies maxFrameBytes through the framing', async () => {
    const b = await pool.open({ streamFraming: newlineFraming, maxFrameBytes: 8 });
    b.listen(echo());
    expect(text(await rawExchange(b, bytesOf('12345678\n')))).toBe('echo 12345678\n');
    expect(await rawExchange(b, bytesOf('123456789\n'))).toHaveLength(0);
    expect(b.counters).toMatchObject({ streamsOversize: 1, streamsMalformed: 1, streamsMalformedFraming: 0 });
  });

  it('defaults to the length prefix, and refuses a framing that is not one', async () => {
    expect(lengthPrefixFraming.name).toBe('length-prefix');
    expect([...lengthPrefixFraming.frame(bytesOf('ab'))]).toEqual([0, 0, 0, 2, 0x61, 0x62]);
    const b = await pool.open();
    b.listen(echo());
    expect(text(await rawExchange(b, encodeFrame(bytesOf('default'))))).toBe(`${String.fromCharCode(0, 0, 0, 12)}echo default`);
    const refused = createUdpTransport({ bind: { host: '127.0.0.1', port: 0 }, streamFraming: {} as StreamFraming, maxBurst: 0 });
    await expect(refused).rejects.toThrow(/2 problems/);
    await expect(refused).rejects.toThrow(/maxBurst/);
    await expect(refused).rejects.toThrow(/streamFraming must be a StreamFraming/);
  });
});
