import { afterEach, describe, expect, it } from 'vitest';
import { createUdpTransport, type UdpTransport } from '../src/index.js';
import { transports, waitFor } from './helpers.js';

/** A `size`-byte datagram carrying `seq` in its first 4 bytes. */
function datagram(seq: number, size = 200): Uint8Array {
  const bytes = new Uint8Array(size);
  new DataView(bytes.buffer).setUint32(0, seq);
  return bytes;
}

const seqOf = (bytes: Uint8Array): number => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);

/** Listen on `t`, collecting the sequence numbers of the datagrams it receives. */
function collect(t: UdpTransport): number[] {
  const seqs: number[] = [];
  t.listen({ packet: (_from, bytes) => seqs.push(seqOf(bytes)), stream: (_from, _bytes, reply) => reply(undefined) });
  return seqs;
}

describe('send pacing', () => {
  const pool = transports();
  afterEach(pool.closeAll);

  it('a burst of 2,000 datagrams to one receiver in the same process arrives complete and in order', async () => {
    const a = await pool.open();
    const b = await pool.open();
    a.listen({ packet: () => {}, stream: (_f, _b, reply) => reply(undefined) });
    const seqs = collect(b);
    const count = 2_000;
    for (let i = 0; i < count; i++) a.sendPacket(b.address, datagram(i));
    // maxBurst (32) went out at once, the rest waits for later turns.
    expect(a.counters.packetsSent).toBe(32);
    expect(a.queuedPackets).toBe(count - 32);
    expect(await waitFor(() => seqs.length === count)).toBe(true);
    // A last datagram after the burst: once it is in, anything extra sent before it would be too.
    a.sendPacket(b.address, datagram(count));
    expect(await waitFor(() => seqs.includes(count))).toBe(true);
    expect(seqs).toEqual(Array.from({ length: count + 1 }, (_, i) => i));
    expect(a.queuedPackets).toBe(0);
    expect(a.counters).toMatchObject({ packetsSent: count + 1, packetsDropped: 0, packetsQueued: count - 32, sendQueueHighWater: count - 32 });
  });

  it('writes at most maxBurst datagrams per event-loop turn', async () => {
    const a = await pool.open({ maxBurst: 5 });
    const b = await pool.open();
    const seqs = collect(b);
    for (let i = 0; i < 12; i++) a.sendPacket(b.address, datagram(i));
    expect(a.counters.packetsSent).toBe(5);
    await new Promise((resolve) => setImmediate(resolve));
    expect(a.counters.packetsSent).toBe(10);
    await new Promise((resolve) => setImmediate(resolve));
    expect(a.counters.packetsSent).toBe(12);
    expect(await waitFor(() => seqs.length === 12)).toBe(true);
    // A new turn starts a new burst.
    for (let i = 12; i < 17; i++) a.sendPacket(b.address, datagram(i));
    expect(a.counters.packetsSent).toBe(17);
    expect(a.queuedPackets).toBe(0);
  });

  it('drops the oldest waiting datagram when the queue is full, counted as queue-full', async () => {
    const a = await pool.open({ maxBurst: 1, maxQueuedPackets: 10 });
    const b = await pool.open();
    const seqs = collect(b);
    for (let i = 0; i < 20; i++) a.sendPacket(b.address, datagram(i));
    expect(a.queuedPackets).toBe(10);
    expect(a.counters.dropped['queue-full']).toBe(9);
    expect(a.counters.packetsDropped).toBe(9);
    expect(await waitFor(() => seqs.length === 11)).toBe(true);
    expect(seqs).toEqual([0, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });

  it('maxQueuedPackets 0 sends only maxBurst per turn and drops the rest', async () => {
    const a = await pool.open({ maxBurst: 2, maxQueuedPackets: 0 });
    const b = await pool.open();
    const seqs = collect(b);
    for (let i = 0; i < 5; i++) a.sendPacket(b.address, datagram(i));
    expect(a.counters.dropped['queue-full']).toBe(3);
    expect(await waitFor(() => seqs.length === 2)).toBe(true);
    expect(seqs).toEqual([0, 1]);
  });

  it('close drops the waiting datagrams as closed, and sends stay non-throwing', async () => {
    const a = await pool.open({ maxBurst: 1 });
    const b = await pool.open();
    collect(b);
    for (let i = 0; i < 6; i++) a.sendPacket(b.address, datagram(i));
    expect(a.queuedPackets).toBe(5);
    await a.close();
    expect(a.queuedPackets).toBe(0);
    expect(a.counters.dropped.closed).toBe(5);
    expect(() => a.sendPacket(b.address, datagram(7))).not.toThrow();
    expect(a.counters.dropped.closed).toBe(6);
    expect(a.counters.packetsSent).toBe(1);
  });

  it('close at once after a send still delivers what was written (Node writes a datagram a tick later)', async () => {
    const a = await pool.open();
    const b = await pool.open();
    const seqs = collect(b);
    // In one synchronous run, as a member's leave() resolving straight into close() does.
    for (let i = 0; i < 3; i++) a.sendPacket(b.address, datagram(i));
    const closed = a.close();
    await closed;
    expect(await waitFor(() => seqs.length === 3)).toBe(true);
    expect(seqs).toEqual([0, 1, 2]);
    expect(a.counters.dropped['send-error']).toBe(0);
  });

  it('rejects bad pacing options', async () => {
    await expect(createUdpTransport({ bind: { host: '127.0.0.1', port: 0 }, maxBurst: 0 })).rejects.toThrow(/maxBurst/);
    await expect(createUdpTransport({ bind: { host: '127.0.0.1', port: 0 }, maxBurst: 1.5 })).rejects.toThrow(/maxBurst/);
    await expect(createUdpTransport({ bind: { host: '127.0.0.1', port: 0 }, maxQueuedPackets: -1 })).rejects.toThrow(/maxQueuedPackets/);
  });
});
