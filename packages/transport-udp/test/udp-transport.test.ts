import { existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import type { TransportHandlers } from '@swim/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createUdpTransport, encodeFrame, formatAddress, FrameReader, parseAddress, type UdpTransport } from '../src/index.js';
import { ipv6LoopbackAvailable, transports, waitFor } from './helpers.js';

const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : new TextDecoder().decode(bytes));
const bytesOf = (value: string) => new TextEncoder().encode(value);

/** Echo server handlers that record packets. */
function echo(received: Array<{ from: string; bytes: Uint8Array }> = []): TransportHandlers {
  return {
    packet: (from, bytes) => received.push({ from, bytes: bytes.slice() }),
    stream: (_from, bytes, reply) => reply(bytesOf(`echo ${text(bytes)}`)),
  };
}

/** A raw TCP connection to `transport`'s stream port, with a promise of its close. */
async function rawConnection(transport: UdpTransport): Promise<{ socket: Socket; closed: Promise<void> }> {
  const target = parseAddress(transport.address)!;
  const socket = connect({ host: target.host, port: target.port });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, closed };
}

function ask(from: UdpTransport, to: UdpTransport, message: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    from.request(to.address, bytesOf(message), { timeoutMs: 5_000, expectReply: true }, (result) => {
      if (result.ok) resolve(text(result.bytes));
      else reject(new Error(result.reason));
    });
  });
}

const hasIPv6 = await ipv6LoopbackAvailable();

describe('addresses', () => {
  it('formats and parses host:port and [v6]:port', () => {
    expect(formatAddress('127.0.0.1', 7946)).toBe('127.0.0.1:7946');
    expect(formatAddress('::1', 7946)).toBe('[::1]:7946');
    expect(formatAddress('::ffff:10.0.0.1', 7946)).toBe('10.0.0.1:7946');
    expect(parseAddress('127.0.0.1:7946')).toEqual({ host: '127.0.0.1', port: 7946 });
    expect(parseAddress('[::1]:7946')).toEqual({ host: '::1', port: 7946 });
    expect(parseAddress('node-1.example:80')).toEqual({ host: 'node-1.example', port: 80 });
    for (const bad of ['', '127.0.0.1', ':80', '::1:80', '[::1]80', '[nope]:80', 'a:0', 'a:65536', 'a:8x']) {
      expect(parseAddress(bad), bad).toBeUndefined();
    }
  });
});

describe('frames', () => {
  it('reassembles frames split anywhere and rejects oversize headers', () => {
    const wire = Buffer.concat([encodeFrame(bytesOf('one')), encodeFrame(new Uint8Array(0)), encodeFrame(bytesOf('three'))]);
    const reader = new FrameReader(100);
    const frames: string[] = [];
    for (let i = 0; i < wire.length; i++) {
      const out = reader.push(wire.subarray(i, i + 1));
      if (typeof out === 'string') throw new Error(`unexpected ${out}`);
      frames.push(...out.map((f) => text(f)!));
    }
    expect(frames).toEqual(['one', '', 'three']);
    expect(new FrameReader(4).push(encodeFrame(bytesOf('12345')))).toBe('oversize');
  });
});

describe('UdpTransport', () => {
  const pool = transports();
  afterEach(pool.closeAll);

  it('binding port 0 reports the real port, and advertise overrides the address', async () => {
    const t = await pool.open();
    expect(t.port).toBeGreaterThan(0);
    expect(t.address).toBe(`127.0.0.1:${t.port}`);
    const advertised = await pool.open({ advertise: { host: '192.0.2.7', port: 0 } });
    expect(advertised.address).toBe(`192.0.2.7:${advertised.port}`);
    const fixed = await pool.open({ advertise: { host: 'node-1.example', port: 7946 } });
    expect(fixed.address).toBe('node-1.example:7946');
  });

  it('a taken port is refused, and a wildcard bind needs an advertise address', async () => {
    const t = await pool.open();
    await expect(createUdpTransport({ bind: { host: '127.0.0.1', port: t.port } })).rejects.toThrow(/EADDRINUSE/);
    await expect(createUdpTransport({ bind: { host: '0.0.0.0', port: 0 } })).rejects.toThrow(/advertise/);
    await expect(createUdpTransport({ bind: { host: 'localhost', port: 0 } })).rejects.toThrow(/IP literal/);
    // Every problem at once, not the first only.
    await expect(createUdpTransport({ bind: { host: 'localhost', port: 70_000 }, maxBurst: 0, streamTimeoutMs: -1 })).rejects.toThrow(
      /Invalid UDP transport options \(4 problems\):\n- bind.host must be an IP literal, got localhost \(bind needs an IP such as 127\.0\.0\.1, ::1 or 0\.0\.0\.0; host names are for join, which resolves them\)\n- bind.port must be an integer in 0..65535, got 70000\n- streamTimeoutMs .*\n- maxBurst /,
    );
  });

  it('asks the kernel for a 2 MiB receive buffer by default (memberlist udpRecvBufSize), capped by rmem_max', async () => {
    const rmemMax = existsSync('/proc/sys/net/core/rmem_max') ? Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8')) : undefined;
    const t = await pool.open();
    const small = await pool.open({ recvBufferBytes: 64 * 1024 });
    // Linux doubles the value asked for (bookkeeping) after capping it at rmem_max.
    if (rmemMax !== undefined) expect(t.recvBufferBytes).toBe(2 * Math.min(2 * 1024 * 1024, rmemMax));
    expect(small.recvBufferBytes).toBeLessThan(t.recvBufferBytes);
    await expect(createUdpTransport({ bind: { host: '127.0.0.1', port: 0 }, recvBufferBytes: 0 })).rejects.toThrow(/recvBufferBytes/);
  });

  it('counts and drops oversize packets and bad addresses without throwing', async () => {
    const a = await pool.open({ maxPacketBytes: 100 });
    const b = await pool.open();
    const received: Array<{ from: string; bytes: Uint8Array }> = [];
    b.listen(echo(received));
    a.sendPacket(b.address, new Uint8Array(101));
    a.sendPacket('not an address', new Uint8Array(10));
    a.sendPacket(b.address, new Uint8Array(100));
    // A last 1-byte datagram: once it is in, the oversize one would have arrived too, had it been sent.
    a.sendPacket(b.address, new Uint8Array(1));
    expect(await waitFor(() => received.length === 2)).toBe(true);
    expect(received.map((r) => r.bytes.length)).toEqual([100, 1]);
    expect(a.counters.dropped.oversize).toBe(1);
    expect(a.counters.dropped['bad-address']).toBe(1);
    expect(a.counters.packetsSent).toBe(2);
    expect(b.counters.packetsReceived).toBe(2);
  });

  it('closes and counts a garbage frame without affecting other traffic', async () => {
    const a = await pool.open();
    const b = await pool.open();
    a.listen(echo());
    b.listen(echo());
    const raw = await rawConnection(b);
    raw.socket.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3]));
    await raw.closed;
    expect(b.counters.streamsMalformed).toBe(1);
    expect(await ask(a, b, 'still fine?')).toBe('echo still fine?');
    const trailing = await rawConnection(b);
    trailing.socket.write(Buffer.concat([encodeFrame(bytesOf('x')), Buffer.from([9])]));
    await trailing.closed;
    expect(b.counters.streamsMalformed).toBe(2);
  });

  it('closes a stream held open after streamTimeoutMs while other streams are served', async () => {
    const a = await pool.open();
    const b = await pool.open({ streamTimeoutMs: 300 });
    a.listen(echo());
    b.listen(echo());
    const held = await rawConnection(b);
    held.socket.write(Buffer.from([0, 0])); // half a header, then nothing
    const silent = await rawConnection(b); // nothing at all
    expect(await ask(a, b, 'meanwhile')).toBe('echo meanwhile');
    await Promise.all([held.closed, silent.closed]);
    expect(b.counters.streamsTimedOut).toBe(2);
    expect(await ask(a, b, 'after')).toBe('echo after');
  });

  it('reports the sender of a packet and the requester of a stream', async () => {
    const a = await pool.open();
    const b = await pool.open();
    a.listen(echo());
    const received: Array<{ from: string; bytes: Uint8Array }> = [];
    const streamFrom: string[] = [];
    b.listen({
      packet: (from, bytes) => received.push({ from, bytes }),
      stream: (from, _bytes, reply) => {
        streamFrom.push(from);
        reply(undefined);
      },
    });
    a.sendPacket(b.address, bytesOf('hi'));
    const result = await new Promise((resolve) => a.request(b.address, bytesOf('x'), { timeoutMs: 5_000, expectReply: true }, resolve));
    expect(result).toEqual({ ok: false, reason: 'closed without reply' });
    expect(await waitFor(() => received.length === 1)).toBe(true);
    expect(received[0]!.from).toBe(a.address);
    // The stream comes from an ephemeral port of the requester's host.
    expect(streamFrom[0]).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('streams leave from the bind address, as datagrams do', async () => {
    // Any 127.x.y.z is the loopback on Linux: two members on one host with their own addresses.
    const a = await pool.open({ bind: { host: '127.0.0.2', port: 0 } });
    const b = await pool.open({ bind: { host: '127.0.0.3', port: 0 } });
    a.listen(echo());
    const seen: string[] = [];
    b.listen({ packet: (from) => seen.push(`packet ${from}`), stream: (from, _bytes, reply) => (seen.push(`stream ${from.split(':')[0]}`), reply(undefined)) });
    a.sendPacket(b.address, bytesOf('hi'));
    await new Promise((resolve) => a.request(b.address, bytesOf('x'), { timeoutMs: 5_000, expectReply: true }, resolve));
    expect(await waitFor(() => seen.length === 2)).toBe(true);
    expect(seen.sort()).toEqual([`packet ${a.address}`, 'stream 127.0.0.2']);
  });

  it.runIf(hasIPv6)('works on the IPv6 loopback', async () => {
    const v6 = transports('::1');
    try {
      const a = await v6.open();
      const b = await v6.open();
      expect(a.address).toBe(`[::1]:${a.port}`);
      const received: Array<{ from: string; bytes: Uint8Array }> = [];
      a.listen(echo());
      b.listen(echo(received));
      a.sendPacket(b.address, bytesOf('six'));
      expect(await ask(a, b, 'v6')).toBe('echo v6');
      expect(await waitFor(() => received.length === 1)).toBe(true);
      expect(received[0]!.from).toBe(a.address);
    } finally {
      await v6.closeAll();
    }
  });
});
