/**
 * The transport conformance suite: what @swim/runtime relies on from any {@link Transport}, as
 * vitest cases that every transport (memory, UDP + TCP, WebSocket) runs against itself.
 *
 * Usage, in a transport package's test file:
 *
 *     describeTransportConformance('memory (virtual time)', async () => ({ create, settle, close }));
 *
 * The factory runs before each case; `close` after it. Cases only use `settle(ms)` to let time
 * pass, so the same suite runs on real time (a real wait) and on virtual time (advance a clock).
 * What must arrive is awaited in short settles until it has (bounded by {@link DEADLINE_MS}, which
 * a loaded machine never needs); only what must not happen is checked after a fixed settle, and a
 * slow machine can only make that check pass, never fail.
 */
import type { StreamResult, Transport, TransportHandlers } from '@swim/runtime';
export { describeProtocolNegotiation, type NegotiationHarness } from './protocol-negotiation.js';
export { HINT_CODE, NEXT_VERSION, nextVersionCodec, type NextVersionCodec, type NextVersionTally } from './next-version-codec.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

export interface ConformanceHarness {
  /** A new endpoint with its own address, not listening yet. */
  create(): Promise<Transport>;
  /** Let `ms` of time pass: a real wait, or a virtual clock advanced by `ms`. */
  settle(ms: number): Promise<void>;
  /** Release everything the harness made (endpoints, timers, sockets). */
  close(): Promise<void>;
  /**
   * An address nothing listens at (e.g. a free UDP port). Optional: the suite always tries the
   * address of a closed endpoint, and this one too when given.
   */
  readonly unknownAddress?: string;
  /**
   * Time that covers a few one-way deliveries: how long the suite settles before checking that
   * something did NOT arrive (a dropped packet, a second reply). Default 200 ms. What must arrive
   * is awaited with a deadline instead.
   */
  readonly deliveryMs?: number;
}

/**
 * Requests one endpoint has in flight to another at once in the concurrency case. A transport that
 * caps the streams it serves per peer (UDP + TCP: maxStreamConnectionsPerSource, 32 by default; the
 * WebSocket gateway: maxStreamsPerSession, 16) must be configured to serve this many, or the
 * requests past its cap are refused, as they should be, depending on how fast the others complete.
 */
export const CONCURRENT_REQUESTS = 50;

/** Longest wait for something that must arrive, in harness time (or real time, whichever is more). */
const DEADLINE_MS = 20_000;
/** One settle while waiting for a condition. */
const STEP_MS = 10;

/** Incoming traffic of one endpoint, recorded. */
interface Inbox {
  readonly packets: Array<{ from: string; bytes: Uint8Array }>;
  readonly streams: Array<{ from: string; bytes: Uint8Array; reply: (bytes: Uint8Array | undefined) => void }>;
}

/** Records `done` calls, so cases can check it ran exactly once. */
interface Completion {
  readonly results: StreamResult[];
  readonly done: (result: StreamResult) => void;
}

/** Stream timeout used by the timing cases: long enough for a loaded machine to deliver the request first. */
const TIMEOUT_MS = 1_000;

function completion(): Completion {
  const results: StreamResult[] = [];
  return { results, done: (result) => results.push(result) };
}

function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function textOf(bytes: Uint8Array | undefined): string | undefined {
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}

export function describeTransportConformance(name: string, factory: () => Promise<ConformanceHarness>): void {
  describe(`transport conformance: ${name}`, () => {
    let harness: ConformanceHarness;
    let deliveryMs: number;
    /** Harness time this case has settled so far: never more than the real time that passed. */
    let settled: number;

    beforeEach(async () => {
      harness = await factory();
      deliveryMs = harness.deliveryMs ?? 200;
      settled = 0;
    });

    afterEach(async () => {
      await harness.close();
    });

    async function settle(ms: number): Promise<void> {
      await harness.settle(ms);
      settled += ms;
    }

    /**
     * Settle in short steps until `check` holds. Throws naming `what` once {@link DEADLINE_MS} of
     * harness time or of real time has passed, whichever comes first.
     */
    async function settleUntil(what: string, check: () => boolean): Promise<void> {
      const startedAt = performance.now();
      const from = settled;
      while (!check()) {
        if (Math.max(settled - from, performance.now() - startedAt) > DEADLINE_MS) {
          throw new Error(`waited ${DEADLINE_MS} ms until ${what}, in vain`);
        }
        await settle(STEP_MS);
      }
    }

    /** A listening endpoint that records what it receives; streams are answered by `answer`. */
    async function endpoint(answer?: (bytes: Uint8Array) => Uint8Array | undefined | 'never'): Promise<{ transport: Transport; inbox: Inbox }> {
      const transport = await harness.create();
      const inbox: Inbox = { packets: [], streams: [] };
      const handlers: TransportHandlers = {
        packet: (from, bytes) => inbox.packets.push({ from, bytes: bytes.slice() }),
        stream: (from, bytes, reply) => {
          inbox.streams.push({ from, bytes: bytes.slice(), reply });
          if (answer === undefined) return reply(undefined);
          const answered = answer(bytes);
          if (answered !== 'never') reply(answered);
        },
      };
      transport.listen(handlers);
      return { transport, inbox };
    }

    it('delivers a packet with the sender address and the same bytes, never synchronously', async () => {
      const a = await endpoint();
      const b = await endpoint();
      const payload = bytesOf('hello over the wire');
      a.transport.sendPacket(b.transport.address, payload);
      expect(b.inbox.packets, 'delivered inside sendPacket').toHaveLength(0);
      await settleUntil('b receives the packet', () => b.inbox.packets.length > 0);
      expect(b.inbox.packets).toHaveLength(1);
      expect(b.inbox.packets[0]!.from).toBe(a.transport.address);
      expect(textOf(b.inbox.packets[0]!.bytes)).toBe('hello over the wire');
      await settle(deliveryMs);
      expect(b.inbox.packets, 'delivered once').toHaveLength(1);
      expect(a.inbox.packets, 'nothing comes back').toHaveLength(0);
    });

    it('drops packets to a closed or unknown address without throwing', async () => {
      const a = await endpoint();
      const gone = await endpoint();
      const address = gone.transport.address;
      await gone.transport.close();
      expect(() => a.transport.sendPacket(address, bytesOf('anyone?'))).not.toThrow();
      if (harness.unknownAddress !== undefined) {
        const unknown = harness.unknownAddress;
        expect(() => a.transport.sendPacket(unknown, bytesOf('anyone?'))).not.toThrow();
      }
      await settle(deliveryMs);
      expect(gone.inbox.packets).toHaveLength(0);
    });

    it('carries a packet of exactly maxPacketBytes', async () => {
      const a = await endpoint();
      const b = await endpoint();
      const size = a.transport.maxPacketBytes;
      const payload = new Uint8Array(size).map((_, i) => i & 0xff);
      a.transport.sendPacket(b.transport.address, payload);
      await settleUntil(`b receives the ${size}-byte packet`, () => b.inbox.packets.length > 0);
      expect(b.inbox.packets).toHaveLength(1);
      expect(b.inbox.packets[0]!.bytes).toEqual(payload);
    });

    it('a request gets its reply, and the peer sees the request bytes', async () => {
      const a = await endpoint();
      const b = await endpoint((bytes) => bytesOf(`re: ${textOf(bytes)}`));
      const call = completion();
      a.transport.request(b.transport.address, bytesOf('ping'), { timeoutMs: DEADLINE_MS, expectReply: true }, call.done);
      expect(call.results, 'done called inside request').toHaveLength(0);
      await settleUntil('the request completes', () => call.results.length > 0);
      expect(b.inbox.streams.map((s) => textOf(s.bytes))).toEqual(['ping']);
      expect(call.results).toHaveLength(1);
      const result = call.results[0]!;
      expect(result.ok).toBe(true);
      expect(result.ok && textOf(result.bytes)).toBe('re: ping');
    });

    it('a request with expectReply false completes ok once written', async () => {
      const a = await endpoint();
      const b = await endpoint();
      const call = completion();
      a.transport.request(b.transport.address, bytesOf('fire and forget'), { timeoutMs: DEADLINE_MS, expectReply: false }, call.done);
      await settleUntil('the request completes and b receives it', () => call.results.length > 0 && b.inbox.streams.length > 0);
      expect(b.inbox.streams.map((s) => textOf(s.bytes))).toEqual(['fire and forget']);
      expect(call.results).toEqual([{ ok: true, bytes: undefined }]);
    });

    it('a request to a peer that never replies fails at its timeout: not before, not never', async () => {
      const a = await endpoint();
      const b = await endpoint(() => 'never');
      const startedAt = performance.now();
      const from = settled;
      // When done is called: harness time on a virtual clock (to within the settle under way), real
      // time on a real one; the larger of the two.
      let doneAfterMs: number | undefined;
      const call = completion();
      a.transport.request(b.transport.address, bytesOf('hello?'), { timeoutMs: TIMEOUT_MS, expectReply: true }, (result) => {
        doneAfterMs ??= Math.max(settled - from, performance.now() - startedAt);
        call.done(result);
      });
      await settleUntil('the request fails at its timeout', () => call.results.length > 0);
      expect(doneAfterMs, `failed before the ${TIMEOUT_MS} ms timeout`).toBeGreaterThanOrEqual(TIMEOUT_MS - STEP_MS);
      // The transport set its timer before the first of these settles, each a timer of this process
      // set when the previous one ran: one that is due before the transport's timer runs before it,
      // however loaded the machine. So a failure at the timeout is seen within a step of it.
      expect(settled - from, 'failed long after the timeout').toBeLessThanOrEqual(TIMEOUT_MS + deliveryMs);
      expect(b.inbox.streams, 'the peer got the request once').toHaveLength(1);
      expect(call.results).toHaveLength(1);
      expect(call.results[0]!.ok).toBe(false);
    });

    it('a request to a closed peer fails', async () => {
      const a = await endpoint();
      const gone = await endpoint((bytes) => bytes);
      const address = gone.transport.address;
      await gone.transport.close();
      const call = completion();
      a.transport.request(address, bytesOf('anyone?'), { timeoutMs: TIMEOUT_MS, expectReply: true }, call.done);
      await settleUntil('the request to the closed peer fails', () => call.results.length > 0);
      expect(call.results).toHaveLength(1);
      expect(call.results[0]!.ok).toBe(false);
      expect(gone.inbox.streams).toHaveLength(0);
    });

    it('calls done exactly once, even when the peer replies twice or replies after the timeout', async () => {
      const a = await endpoint();
      const b = await endpoint(() => 'never');
      const twice = completion();
      a.transport.request(b.transport.address, bytesOf('1'), { timeoutMs: DEADLINE_MS, expectReply: true }, twice.done);
      await settleUntil('b gets the first request', () => b.inbox.streams.length > 0);
      const first = b.inbox.streams[0]!;
      first.reply(bytesOf('one'));
      first.reply(bytesOf('two'));
      await settleUntil('the first request completes', () => twice.results.length > 0);
      const tooLate = completion();
      a.transport.request(b.transport.address, bytesOf('2'), { timeoutMs: TIMEOUT_MS, expectReply: true }, tooLate.done);
      // On a loaded machine the request may time out before b sees it; then there is nothing to answer late.
      await settleUntil('b gets the second request or it times out', () => b.inbox.streams.length > 1 || tooLate.results.length > 0);
      await settleUntil('the second request times out', () => tooLate.results.length > 0);
      b.inbox.streams[1]?.reply(bytesOf('late'));
      await settle(deliveryMs);
      expect(twice.results).toHaveLength(1);
      expect(twice.results[0]!.ok && textOf(twice.results[0]!.bytes)).toBe('one');
      expect(tooLate.results).toHaveLength(1);
      expect(tooLate.results[0]!.ok).toBe(false);
    });

    it('close is idempotent, stops delivery and fails pending requests', async () => {
      const a = await endpoint();
      const b = await endpoint(() => 'never');
      const pending = completion();
      a.transport.request(b.transport.address, bytesOf('wait'), { timeoutMs: DEADLINE_MS, expectReply: true }, pending.done);
      await settleUntil('b gets the request', () => b.inbox.streams.length > 0);
      const first = a.transport.close();
      const second = a.transport.close();
      await Promise.all([first, second]);
      await expect(a.transport.close()).resolves.toBeUndefined();
      await settleUntil('the pending request of the closed transport fails', () => pending.results.length > 0);
      expect(pending.results, 'pending request of a closed transport').toHaveLength(1);
      expect(pending.results[0]!.ok).toBe(false);
      b.transport.sendPacket(a.transport.address, bytesOf('still there?'));
      await settle(deliveryMs);
      expect(a.inbox.packets).toHaveLength(0);
      // Sending from a closed transport must not throw either.
      expect(() => a.transport.sendPacket(b.transport.address, bytesOf('from the grave'))).not.toThrow();
    });

    it('matches many concurrent requests to their own replies, answered in reverse order', async () => {
      const a = await endpoint();
      // b holds every request until all are open at once, then answers the last first.
      const b = await endpoint(() => 'never');
      const calls = Array.from({ length: CONCURRENT_REQUESTS }, (_, i) => {
        const call = completion();
        a.transport.request(b.transport.address, bytesOf(`request ${i}`), { timeoutMs: DEADLINE_MS, expectReply: true }, call.done);
        return call;
      });
      await settleUntil(`b holds all ${CONCURRENT_REQUESTS} requests open`, () => b.inbox.streams.length === CONCURRENT_REQUESTS);
      for (const stream of [...b.inbox.streams].reverse()) stream.reply(bytesOf(`${textOf(stream.bytes)}!`));
      await settleUntil(`all ${CONCURRENT_REQUESTS} requests complete`, () => calls.every((call) => call.results.length > 0));
      calls.forEach((call, i) => {
        expect(call.results, `request ${i}`).toHaveLength(1);
        const result = call.results[0]!;
        expect(result.ok ? textOf(result.bytes) : result.reason, `request ${i}`).toBe(`request ${i}!`);
      });
    });
  });
}
