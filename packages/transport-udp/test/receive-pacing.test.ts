import { afterEach, describe, expect, it } from 'vitest';
import { ReceivePacer, RECEIVE_DRAIN_MAX_SOURCE_SHARE, RECEIVE_GAP_MS, RECEIVE_MAX_WAIT_MS, RECEIVE_SLICE_MS, type DeferredDelivery } from '../src/receive-pacer.js';
import type { UdpTransport } from '../src/index.js';
import { transports, waitFor } from './helpers.js';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A pacer on a clock the test moves; `deliver` records what it was handed, advancing the clock by `costMs` each. */
function pacerOnFakeClock(costMs: number) {
  let now = 0;
  const pacer = new ReceivePacer(10, () => now);
  const handed: string[] = [];
  const deliver: DeferredDelivery = (from) => {
    handed.push(from);
    now += costMs;
  };
  return { pacer, deliver, handed, advance: (ms: number) => (now += ms) };
}

describe('ReceivePacer (fake clock)', () => {
  /** One inline delivery: asked, then (if allowed) handed on at a cost of `ms`. */
  function deliverInline(pacer: ReceivePacer, advance: (ms: number) => void, ms: number): boolean {
    if (!pacer.mayDeliverNow()) return false;
    advance(ms);
    pacer.delivered();
    return true;
  }

  it('datagrams back to back form one slice: handed on at once until it is spent, then deferred; the next turn drains a slice, in order', async () => {
    const { pacer, deliver, handed, advance } = pacerOnFakeClock(4);
    // 3 ms each, no gap between them: 0-3, 3-6, 6-9, 9-12; the fifth starts at 12 >= 10.
    expect([1, 2, 3, 4, 5].map(() => deliverInline(pacer, advance, 3))).toEqual([true, true, true, true, false]);
    for (let i = 0; i < 5; i++) pacer.defer(deliver, `d${i}`, new Uint8Array(1));
    // Nothing may overtake what waits, even after a pause (shorter than the wait bound).
    advance(RECEIVE_MAX_WAIT_MS / 2);
    expect(pacer.mayDeliverNow()).toBe(false);
    await nextTurn();
    // 4 ms each: d0 (4), d1 (8), d2 (12 >= 10: the slice ends after it).
    expect(handed).toEqual(['d0', 'd1', 'd2']);
    await nextTurn();
    expect(handed).toEqual(['d0', 'd1', 'd2', 'd3', 'd4']);
    expect(pacer.queued).toBe(0);
    // The queue is empty: the next datagram begins a fresh slice at once.
    expect(pacer.mayDeliverNow()).toBe(true);
  });

  it('a gap longer than RECEIVE_GAP_MS begins a new slice; shorter gaps do not', () => {
    const { pacer, advance } = pacerOnFakeClock(0);
    expect(deliverInline(pacer, advance, 4)).toBe(true);
    advance(RECEIVE_GAP_MS / 2);
    expect(deliverInline(pacer, advance, 4)).toBe(true);
    advance(RECEIVE_GAP_MS / 2);
    // 4 + 0.5 + 4 + 0.5 = 9 ms into the slice: still in it, then spent.
    expect(deliverInline(pacer, advance, 4)).toBe(true);
    expect(pacer.mayDeliverNow()).toBe(false);
    advance(RECEIVE_GAP_MS * 2);
    expect(pacer.mayDeliverNow()).toBe(true);
  });

  it('a backlog spread over senders that has waited RECEIVE_MAX_WAIT_MS is handed on past the slice, until the oldest is younger', async () => {
    const { pacer, deliver, handed, advance } = pacerOnFakeClock(4);
    // Ten senders, two datagrams each (10 % of the bytes apiece); the first eight wait the full bound.
    for (let i = 0; i < 8; i++) pacer.defer(deliver, `s${i % 10}`, new Uint8Array(100));
    advance(RECEIVE_MAX_WAIT_MS);
    for (let i = 8; i < 20; i++) pacer.defer(deliver, `s${i % 10}`, new Uint8Array(100));
    await nextTurn();
    // A slice alone would end after 3 (4 ms each); the eight overdue ones go, then the slice is spent.
    expect(handed.length).toBe(8);
    await nextTurn();
    expect(handed.length).toBe(11);
  });

  it("one sender's backlog is paced however long it has waited: it holds more than RECEIVE_DRAIN_MAX_SOURCE_SHARE of what waits", async () => {
    const { pacer, deliver, handed, advance } = pacerOnFakeClock(4);
    // The flood's sender holds 8 of 10 equal datagrams (80 %, over the share); two others one each.
    expect(0.8).toBeGreaterThan(RECEIVE_DRAIN_MAX_SOURCE_SHARE);
    for (let i = 0; i < 8; i++) pacer.defer(deliver, 'flood', new Uint8Array(100));
    pacer.defer(deliver, 'a', new Uint8Array(100));
    pacer.defer(deliver, 'b', new Uint8Array(100));
    advance(10 * RECEIVE_MAX_WAIT_MS);
    await nextTurn();
    expect(handed).toEqual(['flood', 'flood', 'flood']);
    await nextTurn();
    expect(handed.length).toBe(6);
  });

  it('a turn always moves the queue on, even when one datagram costs more than a slice', async () => {
    const { pacer, deliver, handed, advance } = pacerOnFakeClock(50);
    deliverInline(pacer, advance, 50);
    expect(pacer.mayDeliverNow()).toBe(false);
    for (let i = 0; i < 3; i++) pacer.defer(deliver, `d${i}`, new Uint8Array(1));
    await nextTurn();
    expect(handed).toEqual(['d0']);
    await nextTurn();
    expect(handed).toEqual(['d0', 'd1']);
  });
});

/** Spin for `ms` of wall time: a handler that costs what decoding a large forged datagram does. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('receive pacing on real sockets', () => {
  const pool = transports();
  afterEach(pool.closeAll);

  /** 30 datagrams sent in one turn (under libuv's 32 per read event), to `b` whose handler spins `costMs` each. */
  async function burst(b: UdpTransport, costMs: number, size = 200) {
    const a = await pool.open();
    a.listen({ packet: () => {}, stream: (_f, _b, reply) => reply(undefined) });
    const seqs: number[] = [];
    let handledWhenTimerRan: number | undefined;
    let firstHandledAt = 0;
    let handlingBeforeTimerMs: number | undefined;
    b.listen({
      packet: (_from, bytes) => {
        // A timer due at once, set by the first datagram: when it runs tells whether the loop got a turn.
        if (seqs.length === 0) {
          firstHandledAt = performance.now();
          setTimeout(() => {
            handledWhenTimerRan = seqs.length;
            handlingBeforeTimerMs = performance.now() - firstHandledAt;
          }, 0);
        }
        seqs.push(bytes[0]!);
        spin(costMs);
      },
      stream: (_f, _b, reply) => reply(undefined),
    });
    const count = 30;
    for (let i = 0; i < count; i++) a.sendPacket(b.address, new Uint8Array(size).fill(i));
    return { seqs, count, timerRan: () => handledWhenTimerRan, handlingBeforeTimerMs: () => handlingBeforeTimerMs };
  }

  it('a burst that costs more than a slice lets the timers run before it is all handled, and keeps its order', async () => {
    const b = await pool.open();
    const { seqs, count, timerRan, handlingBeforeTimerMs } = await burst(b, 3);
    expect(await waitFor(() => seqs.length + b.counters.packetsDropped === count && timerRan() !== undefined)).toBe(true);
    expect(b.counters.packetsDropped).toBe(0);
    expect(seqs).toEqual(Array.from({ length: count }, (_, i) => i));
    // 3 ms each: a slice of RECEIVE_SLICE_MS is spent after a handful; without pacing all 30 come first.
    expect(timerRan()!).toBeLessThan(count);
    // Not before a slice was spent. Measured in time, not datagrams: on a loaded machine a 3 ms spin
    // may take longer (the process is descheduled in it), and the slice ends after fewer of them.
    expect(handlingBeforeTimerMs()!).toBeGreaterThanOrEqual(RECEIVE_SLICE_MS);
    expect(b.counters.packetsDeferred).toBeGreaterThan(0);
    expect(b.receiveQueueBytes).toBe(0);
  });

  it('what waits is bounded by maxReceiveQueueBytes: past it datagrams are dropped and counted', async () => {
    const b = await pool.open({ maxReceiveQueueBytes: 1000 });
    const { seqs, count } = await burst(b, 3, 200);
    expect(await waitFor(() => seqs.length + b.counters.packetsDropped === count)).toBe(true);
    const dropped = b.counters.dropped['receive-queue-full'];
    expect(dropped).toBeGreaterThan(0);
    expect(b.counters.packetsReceived).toBe(count);
    expect(b.counters.receiveQueueHighWaterBytes).toBeLessThanOrEqual(1000);
    // What was handed on is in order: the drops are the newest.
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i));
  });

  it('datagrams waiting when the transport closes are dropped as closed, not handed on', async () => {
    const b = await pool.open();
    const { seqs, count } = await burst(b, 3);
    // The timer of waitFor runs between slices, while the rest of the burst waits.
    expect(await waitFor(() => b.counters.packetsDeferred > 0)).toBe(true);
    expect(seqs.length).toBeLessThan(count);
    const closing = b.close();
    const handed = seqs.length;
    await closing;
    await nextTurn();
    await nextTurn();
    expect(seqs.length).toBe(handed);
    expect(b.receiveQueueBytes).toBe(0);
    expect(b.counters.dropped.closed).toBe(b.counters.packetsReceived - handed);
    expect(b.counters.dropped.closed).toBeGreaterThan(0);
  });

  it('maxReceiveQueueBytes is validated with the other options', () => {
    return expect(pool.open({ maxReceiveQueueBytes: -1 })).rejects.toThrow(/maxReceiveQueueBytes must be an integer in 0\.\./);
  });
});
