import type { StreamResult as StreamResultLike } from '@swim/runtime';
import { WebSocket, WebSocketServer } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { leaveOnPageHide, WS_CLOSE, WsConnectError, type WebSocketConstructor } from '../src/index.js';
import { pool, sleep, waitFor } from './helpers.js';

/** The `ws` WebSocket, recording every socket it opens so a test can cut one. */
function recording(): { ctor: WebSocketConstructor; sockets: WebSocket[]; times: number[] } {
  const sockets: WebSocket[] = [];
  const times: number[] = [];
  class Recording extends WebSocket {
    constructor(url: string) {
      super(url);
      sockets.push(this);
      times.push(performance.now());
    }
  }
  return { ctor: Recording as unknown as WebSocketConstructor, sockets, times };
}

describe('WsTransport (client)', () => {
  const made = pool();
  afterEach(made.closeAll);

  it('resolves after the welcome with the relay address, seed and maxPacketBytes', async () => {
    const g = await made.gateway({ seed: '127.0.0.1:7946', maxPacketBytes: 1200 });
    const t = await made.client(g, { name: 'w' });
    expect(t.address).toBe(g.sessions()[0]!.address);
    expect(t.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(t.seed).toBe('127.0.0.1:7946');
    expect(t.maxPacketBytes).toBe(1200);
    expect(t.supportsStreams).toBe(true);
    expect(t.state).toBe('open');
  });

  it('while reconnecting: packets are dropped and counted, pending and new requests fail with a reason; then it resumes', async () => {
    // `a` is never answered, so it never counts as joined: keep its join deadline out of the way.
    const g = await made.gateway({ verify: false, joinTimeoutMs: 60_000 });
    const { ctor, sockets } = recording();
    const randoms: number[] = [];
    const a = await made.client(g, { WebSocket: ctor, reconnect: { initialDelayMs: 200, maxDelayMs: 1_000, jitter: 0.5, random: () => (randoms.push(0), 0) } });
    const b = await made.client(g);
    let streamsAtB = 0;
    b.listen({ packet: () => {}, stream: () => void streamsAtB++ }); // never replies
    const states: string[] = [];
    a.onStateChange((state, previous) => states.push(`${previous}->${state}`));
    const pending = new Promise<StreamResultLike>((resolve) => a.request(b.address, new Uint8Array([1]), { timeoutMs: 10_000, expectReply: true }, resolve));
    // The request is in flight through both relays when the connection drops.
    expect(await waitFor(() => streamsAtB === 1)).toBe(true);
    sockets[0]!.terminate();
    expect(await waitFor(() => a.state === 'reconnecting')).toBe(true);
    expect(await pending).toEqual({ ok: false, reason: 'connection to the gateway lost (1006)' });
    a.sendPacket(b.address, new Uint8Array([2]));
    expect(a.counters.dropped.reconnecting).toBe(1);
    const during = new Promise<StreamResultLike>((resolve) => a.request(b.address, new Uint8Array([3]), { timeoutMs: 10_000, expectReply: true }, resolve));
    expect(await during).toEqual({ ok: false, reason: 'reconnecting to the gateway' });
    expect(await waitFor(() => a.state === 'open')).toBe(true);
    expect(states).toEqual(['open->reconnecting', 'reconnecting->open']);
    expect(randoms).toEqual([0]);
    expect(a.counters).toMatchObject({ connects: 2, disconnects: 1, reconnectAttempts: 1 });
    expect(g.counters.resumed).toBe(1);
    // Traffic flows again, from the same address.
    const got: string[] = [];
    b.listen({ packet: (from) => got.push(from), stream: (_f, _b, reply) => reply(undefined) });
    a.sendPacket(b.address, new Uint8Array([4]));
    expect(await waitFor(() => got.length === 1)).toBe(true);
    expect(got).toEqual([a.address]);
  });

  it('backs off exponentially while the gateway is away, with the injected jitter', async () => {
    const g = await made.gateway();
    const { ctor, times } = recording();
    const t = await made.client(g, { WebSocket: ctor, reconnect: { initialDelayMs: 40, maxDelayMs: 160, jitter: 0.5, random: () => 1 } });
    await g.close(); // the gateway goes away (1001, not fatal): every attempt is refused
    expect(await waitFor(() => t.counters.reconnectAttempts >= 5, 10_000)).toBe(true);
    expect(t.state).toBe('reconnecting');
    // Delays 20, 40, 80, 80 ms: 40·2^n capped at 160, shortened by jitter 0.5 × random 1. Timers
    // never fire early, so each gap between attempts is at least its delay.
    const gaps = times.slice(1).map((time, i) => time - times[i]!);
    expect(gaps[1]).toBeGreaterThanOrEqual(20 - 2);
    expect(gaps[2]).toBeGreaterThanOrEqual(40 - 2);
    expect(gaps[3]).toBeGreaterThanOrEqual(80 - 2);
    expect(gaps[4]).toBeGreaterThanOrEqual(80 - 2);
    await t.close();
    expect(t.state).toBe('closed');
    const attempts = t.counters.reconnectAttempts;
    // A quiet window longer than the largest backoff delay (160 ms): a negative check, which a busy
    // machine can only make weaker, never fail.
    await sleep(300);
    expect(t.counters.reconnectAttempts).toBe(attempts);
  });

  it('closes instead of reconnecting after a fatal close code, or when reconnect is false', async () => {
    const g = await made.gateway();
    const t = await made.client(g, { name: 'one', reconnect: false });
    const { ctor, sockets } = recording();
    const u = await made.client(g, { name: 'two', WebSocket: ctor, reconnect: false });
    sockets[0]!.terminate();
    expect(await waitFor(() => u.state === 'closed')).toBe(true);
    expect(u.closeCause).toEqual({ code: 1006, reason: '' });
    expect(t.state).toBe('open');
    await expect(u.close()).resolves.toBeUndefined();
  });

  it('a connection without a welcome times out', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    const port = (server.address() as { port: number }).port;
    const started = performance.now();
    const g = { url: `ws://127.0.0.1:${port}/` } as Parameters<typeof made.client>[0];
    await expect(made.client(g, { connectTimeoutMs: 200 })).rejects.toThrow(/no welcome .* within 200 ms/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    await new Promise((resolve) => server.close(resolve));
  });

  it('a connection refused by the network rejects with WsConnectError', async () => {
    const g = await made.gateway();
    const url = g.url;
    await g.close();
    await expect(made.client({ url } as Parameters<typeof made.client>[0])).rejects.toBeInstanceOf(WsConnectError);
  });

  it('close is idempotent and releases the relay at once (1000)', async () => {
    const g = await made.gateway();
    const t = await made.client(g);
    expect(g.sessions()).toHaveLength(1);
    await Promise.all([t.close(), t.close()]);
    expect(t.state).toBe('closed');
    expect(await waitFor(() => g.sessions().length === 0)).toBe(true);
    expect(g.counters.relaysClosed).toBe(1);
    expect(g.counters.graceExpired).toBe(0);
    t.sendPacket('127.0.0.1:1', new Uint8Array(1));
    expect(t.counters.dropped.closed).toBe(1);
    expect(WS_CLOSE.normal).toBe(1000);
  });
});

describe('leaveOnPageHide', () => {
  it('leaves then closes the member on pagehide, once; the returned function unsubscribes', async () => {
    const calls: string[] = [];
    const member = {
      leave: async (options?: { timeoutMs?: number }) => {
        calls.push(`leave ${options?.timeoutMs}`);
        return { spread: true };
      },
      close: async () => {
        calls.push('close');
      },
    };
    const target = new EventTarget();
    leaveOnPageHide(member, target);
    target.dispatchEvent(new Event('pagehide'));
    target.dispatchEvent(new Event('pagehide'));
    await sleep(0);
    expect(calls).toEqual(['leave 250', 'close']);

    const other = new EventTarget();
    const stop = leaveOnPageHide(member, other);
    stop();
    other.dispatchEvent(new Event('pagehide'));
    await sleep(0);
    expect(calls).toHaveLength(2);
  });

  it('closes a member whose leave throws (already closed)', async () => {
    const calls: string[] = [];
    const member = {
      leave: () => {
        throw new Error('member is closed');
      },
      close: async () => {
        calls.push('close');
      },
    };
    const target = new EventTarget();
    leaveOnPageHide(member, target);
    target.dispatchEvent(new Event('pagehide'));
    await sleep(0);
    expect(calls).toEqual(['close']);
  });

  it('does nothing where there is no addEventListener (Node globalThis)', () => {
    const member = { leave: async () => ({}), close: async () => {} };
    expect(() => leaveOnPageHide(member)()).not.toThrow();
  });
});
