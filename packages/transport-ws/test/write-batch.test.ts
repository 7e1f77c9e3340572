import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { ByteBudget } from '../src/node/byte-budget.js';
import { Connection } from '../src/node/connection.js';
import { Containment } from '../src/node/containment.js';
import { zeroWsGatewayCounters } from '../src/node/gateway-counters.js';
import { WriteBatch } from '../src/node/write-batch.js';
import { waitFor } from './helpers.js';

/** A frame that says which it is: `index` as 4 bytes, then `size - 4` bytes derived from it. */
function numbered(index: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, index);
  for (let i = 4; i < size; i++) out[i] = (index * 31 + i) & 0xff;
  return out;
}

/** A server-side Connection to a `ws` client that records the binary frames it receives. */
async function connectionPair(perConnection: number) {
  const counters = zeroWsGatewayCounters();
  const errors: unknown[] = [];
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const accepted = new Promise<[WebSocket, IncomingMessage]>((resolve) => server.once('connection', (ws, request) => resolve([ws, request])));
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as { port: number }).port}`);
  const received: Uint8Array[] = [];
  client.on('message', (data) => received.push(new Uint8Array(data as Buffer)));
  const [[ws, request]] = await Promise.all([accepted, new Promise((resolve) => client.once('open', resolve))]);
  const socket = request.socket as Socket;
  const writev: number[] = [];
  // Count the socket's writes as Node hands them to libuv: one per writev (or write) syscall.
  const handle = (socket as unknown as { _handle: { writev: (req: unknown, chunks: unknown[], allBuffers: boolean) => unknown } })._handle;
  const original = handle.writev.bind(handle);
  handle.writev = (req: unknown, chunks: unknown[], allBuffers: boolean) => {
    writev.push(allBuffers ? chunks.length : chunks.length / 2);
    return original(req, chunks, allBuffers);
  };
  const batch = new WriteBatch();
  const budget = new ByteBudget(perConnection, 64 * 1024 * 1024, counters);
  const conn = new Connection(ws, undefined, 'test', budget, new Containment(counters, (error) => errors.push(error)), 60_000, () => {}, socket, batch);
  conn.stopHelloTimer();
  const close = async (): Promise<void> => {
    client.terminate();
    await new Promise((resolve) => server.close(resolve));
  };
  return { conn, counters, received, socket, writev, errors, close };
}

describe('gateway: frames queued in one turn leave in one write', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of cleanups.splice(0)) await close();
  });

  it('delivers every frame of a turn in order and intact, in far fewer writes than frames', async () => {
    const pair = await connectionPair(1024 * 1024);
    cleanups.push(pair.close);
    const FRAMES = 200;
    const sizes = Array.from({ length: FRAMES }, (_, i) => 8 + ((i * 37) % 900));
    for (let i = 0; i < FRAMES; i++) expect(pair.conn.sendWithin(numbered(i, sizes[i]!))).toBe('sent');
    // Corked until the end of the turn: nothing written yet, every byte still held in the budget.
    expect(pair.socket.writableCorked).toBeGreaterThan(0);
    expect(pair.writev).toEqual([]);
    expect(pair.counters.bufferedBytes).toBe(sizes.reduce((a, b) => a + b, 0));

    expect(await waitFor(() => pair.received.length === FRAMES)).toBe(true);
    for (let i = 0; i < FRAMES; i++) expect(pair.received[i]).toEqual(numbered(i, sizes[i]!));
    // One writev for the turn's 200 frames (2 buffers each: header and payload).
    expect(pair.writev).toEqual([2 * FRAMES]);
    expect(pair.socket.writableCorked).toBe(0);
    // The write callbacks ran: the budget is back to nothing held.
    expect(await waitFor(() => pair.counters.bufferedBytes === 0)).toBe(true);
    expect(pair.errors).toEqual([]);
  });

  it('keeps the byte budget exact across a turn: what does not fit is refused, and all of it is released once written', async () => {
    const pair = await connectionPair(10_000);
    cleanups.push(pair.close);
    expect(pair.conn.sendWithin(numbered(1, 6_000))).toBe('sent');
    expect(pair.conn.sendWithin(numbered(2, 4_000))).toBe('sent');
    // The budget is full while the frames wait for the end of the turn.
    expect(pair.conn.sendWithin(numbered(3, 4))).toBe('over');
    expect(pair.counters.bufferedBytes).toBe(10_000);

    expect(await waitFor(() => pair.received.length === 2 && pair.counters.bufferedBytes === 0)).toBe(true);
    expect(pair.received).toEqual([numbered(1, 6_000), numbered(2, 4_000)]);
    // Released: a later turn may use the whole budget again.
    expect(pair.conn.sendWithin(numbered(4, 10_000))).toBe('sent');
    expect(await waitFor(() => pair.received.length === 3 && pair.counters.bufferedBytes === 0)).toBe(true);
    expect(pair.received[2]).toEqual(numbered(4, 10_000));
  });

  it('flushes frames of a connection closed in the same turn, and gives its budget back', async () => {
    const pair = await connectionPair(1024 * 1024);
    cleanups.push(pair.close);
    for (let i = 0; i < 5; i++) pair.conn.sendWithin(numbered(i, 100));
    pair.conn.close(1001, 'bye');
    expect(await waitFor(() => pair.received.length === 5)).toBe(true);
    for (let i = 0; i < 5; i++) expect(pair.received[i]).toEqual(numbered(i, 100));
    expect(await waitFor(() => pair.counters.bufferedBytes === 0)).toBe(true);
  });
});
