import { connect, createServer, type Server, type Socket } from 'node:net';
import { encodePacket as encodeSwim } from '@swim/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { WsGateway } from '../src/node/index.js';
import { decodeFrame, encodeRequest, OP_RESULT } from '../src/protocol/framing.js';
import { pool, waitFor } from './helpers.js';
import { rawJoin, stopReading, type RawClient } from './raw.js';

const KiB = 1024;
/** Under the default maxMessageBytes (64 KiB), the relays' frame cap: every one of these reaches the gateway. */
const FRAME_BYTES = 60 * KiB;
/** ws adds a header of at most 14 bytes to each frame it queues; the budget counts payloads. */
const HEADER_SLACK = 1 * KiB;

/** A 4-byte length and `size` bytes: one transport-udp stream frame. */
const streamFrame = (size: number): Buffer => {
  const out = Buffer.alloc(4 + size, 7);
  out.writeUInt32BE(size, 0);
  return out;
};

describe('gateway: a client that never reads costs at most its byte budget', () => {
  const made = pool();
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await made.closeAll();
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  /** A TCP server answering every request frame with a FRAME_BYTES reply; counts what it served. */
  async function bigReplier(): Promise<{ address: string; served: () => number }> {
    let served = 0;
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => {});
      socket.once('data', () => {
        served++;
        socket.end(streamFrame(FRAME_BYTES));
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { address: `127.0.0.1:${(server.address() as { port: number }).port}`, served: () => served };
  }

  /** A stream request straight to a relay over TCP, as any host in the cluster can send. */
  function streamTo(relay: string, size: number): Socket {
    const [host, port] = relay.split(':');
    const socket = connect({ host: host!, port: Number(port) });
    socket.on('error', () => {});
    socket.write(streamFrame(size));
    sockets.push(socket);
    return socket;
  }

  /** What `ws` really holds for `name`'s connection, sampled as the test goes. */
  const queued = (gateway: WsGateway, name: string) => gateway.sessions().find((s) => s.name === name)?.bufferedBytes ?? Number.NaN;

  it('relayed streams and request results stay under maxBufferedBytes; the rest is refused and counted', async () => {
    const budget = 256 * KiB;
    const gateway = await made.gateway({ maxBufferedBytes: budget, rateLimit: false });
    const replier = await bigReplier();
    const sloth = await rawJoin(gateway.url, { name: 'sloth' });
    stopReading(sloth);
    let most = 0;
    const sample = () => {
      most = Math.max(most, queued(gateway, 'sloth'), gateway.counters.bufferedBytes);
      return most;
    };
    const ask = encodeSwim([{ type: 'user', from: 'sloth', payload: new Uint8Array(1) }]).slice();
    // 24 rounds of 16 requests answered with 60 KiB, and 16 streams of 60 KiB sent to the relay:
    // ~45 MiB offered, far more than the kernel's socket buffers take.
    let id = 0;
    for (let round = 0; round < 24; round++) {
      const handled = () => replier.served() + gateway.counters.requestsRefused;
      const target = handled() + 16;
      for (let k = 0; k < 16; k++) sloth.ws.send(encodeRequest(++id, 10_000, true, replier.address, ask));
      const streams = Array.from({ length: 16 }, () => streamTo(sloth.welcome.address, FRAME_BYTES));
      const streamed = () => streams.every((s) => s.destroyed || s.readableEnded) || gateway.counters.streamsIn + gateway.counters.streamsRefused >= (round + 1) * 16;
      expect(await waitFor(() => (sample(), handled() >= target && streamed()))).toBe(true);
      for (const s of streams) s.destroy();
    }
    // Whatever was still in flight has landed (or been refused) once the in-flight count is back to 0.
    expect(await waitFor(() => (sample(), gateway.counters.streamsOut === replier.served() && gateway.counters.bufferedBytes <= budget))).toBe(true);
    expect(sample()).toBeLessThanOrEqual(budget + HEADER_SLACK);
    expect(gateway.counters.resultsDropped + gateway.counters.requestsRefused).toBeGreaterThan(0);
    expect(gateway.counters.streamsRefused).toBeGreaterThan(0);
    expect(gateway.counters.internalErrors).toBe(0);

    // Others are served meanwhile, and the sloth's queue is still there for when it reads.
    const other = await rawJoin(gateway.url, { name: 'other' });
    other.ws.send(encodeRequest(1, 5_000, true, replier.address, encodeSwim([{ type: 'user', from: 'other', payload: new Uint8Array(1) }]).slice()));
    expect(await waitFor(() => other.frames.some((f) => isOkResult(f, 1)))).toBe(true);
    expect(sloth.ws.readyState).toBe(sloth.ws.OPEN);
  });

  it('caps the streams open through one relay at maxStreamsPerSession, both ways', async () => {
    const gateway = await made.gateway({ maxStreamsPerSession: 2 });
    // A server that never answers: requests stay in flight.
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => {});
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const silent = `127.0.0.1:${(server.address() as { port: number }).port}`;
    const client = await rawJoin(gateway.url, { name: 'c' });
    const ask = encodeSwim([{ type: 'user', from: 'c', payload: new Uint8Array(1) }]).slice();
    for (let id = 1; id <= 3; id++) client.ws.send(encodeRequest(id, 10_000, true, silent, ask));
    expect(await waitFor(() => client.frames.some((f) => failedResult(f, 3)?.includes('too many streams') === true))).toBe(true);
    expect(gateway.counters).toMatchObject({ streamsOut: 2, requestsRefused: 1 });
    // Two streams are open: one more from the cluster side is refused at once.
    streamTo(client.welcome.address, 10);
    expect(await waitFor(() => gateway.counters.streamsRefused === 1)).toBe(true);
    expect(gateway.counters.streamsIn).toBe(0);
  });

  it('a relay reads no stream frame larger than maxMessageBytes: 8 x 5 MiB never reach the gateway', async () => {
    const gateway = await made.gateway();
    const sloth: RawClient & { welcome: { address: string } } = await rawJoin(gateway.url, { name: 'sloth' });
    stopReading(sloth);
    const streams = Array.from({ length: 8 }, () => streamTo(sloth.welcome.address, 5 * 1024 * KiB));
    // The relay closes each connection once the header announces too much.
    expect(await waitFor(() => streams.every((s) => s.destroyed || s.readableEnded || s.closed))).toBe(true);
    expect(gateway.counters.streamsIn + gateway.counters.streamsRefused).toBe(0);
    expect(queued(gateway, 'sloth')).toBe(0);
  });
});

function isOkResult(bytes: Uint8Array, id: number): boolean {
  const frame = decodeFrame(bytes);
  return typeof frame !== 'string' && frame.op === OP_RESULT && frame.id === id && frame.ok;
}

function failedResult(bytes: Uint8Array, id: number): string | undefined {
  const frame = decodeFrame(bytes);
  return typeof frame !== 'string' && frame.op === OP_RESULT && frame.id === id && !frame.ok ? frame.reason : undefined;
}
