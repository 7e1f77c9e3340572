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
 */
import type { StreamResult, Transport, TransportHandlers } from '@swim/runtime';
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
   * Time that covers a few one-way deliveries, with margin: what the suite settles for before
   * expecting something to have arrived. Default 200 ms; a real network may want more.
   */
  readonly deliveryMs?: number;
}

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

/** Stream timeout used by the timing cases. */
const TIMEOUT_MS = 300;

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

    beforeEach(async () => {
      harness = await factory();
      deliveryMs = harness.deliveryMs ?? 200;
    });

    afterEach(async () => {
      await harness.close();
    });

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
      await harness.settle(deliveryMs);
      expect(b.inbox.packets).toHaveLength(1);
      expect(b.inbox.packets[0]!.from).toBe(a.transport.address);
      expect(textOf(b.inbox.packets[0]!.bytes)).toBe('hello over the wire');
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
      await harness.settle(deliveryMs);
      expect(gone.inbox.packets).toHaveLength(0);
    });

    it('carries a packet of exactly maxPacketBytes', async () => {
      const a = await endpoint();
      const b = await endpoint();
      const size = a.transport.maxPacketBytes;
      const payload = new Uint8Array(size).map((_, i) => i & 0xff);
      a.transport.sendPacket(b.transport.address, payload);
      await harness.settle(deliveryMs);
      expect(b.inbox.packets).toHaveLength(1);
      expect(b.inbox.packets[0]!.bytes).toEqual(payload);
    });

    it('a request gets its reply, and the peer sees the request bytes', async () => {
      const a = await endpoint();
      const b = await endpoint((bytes) => bytesOf(`re: ${textOf(bytes)}`));
      const call = completion();
      a.transport.request(b.transport.address, bytesOf('ping'), { timeoutMs: 5_000, expectReply: true }, call.done);
      expect(call.results, 'done called inside request').toHaveLength(0);
      await harness.settle(deliveryMs);
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
      a.transport.request(b.transport.address, bytesOf('fire and forget'), { timeoutMs: 5_000, expectReply: false }, call.done);
      await harness.settle(deliveryMs);
      expect(b.inbox.streams.map((s) => textOf(s.bytes))).toEqual(['fire and forget']);
      expect(call.results).toEqual([{ ok: true, bytes: undefined }]);
    });

    it('a request to a peer that never replies fails at its timeout: not before, not never', async () => {
      const a = await endpoint();
      const b = await endpoint(() => 'never');
      const call = completion();
      a.transport.request(b.transport.address, bytesOf('hello?'), { timeoutMs: TIMEOUT_MS, expectReply: true }, call.done);
      await harness.settle(TIMEOUT_MS / 2);
      expect(b.inbox.streams, 'the peer got the request').toHaveLength(1);
      expect(call.results, `failed before the ${TIMEOUT_MS} ms timeout`).toHaveLength(0);
      await harness.settle(TIMEOUT_MS / 2 + deliveryMs);
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
      await harness.settle(TIMEOUT_MS + deliveryMs);
      expect(call.results).toHaveLength(1);
      expect(call.results[0]!.ok).toBe(false);
      expect(gone.inbox.streams).toHaveLength(0);
    });

    it('calls done exactly once, even when the peer replies twice or replies after the timeout', async () => {
      const a = await endpoint();
      const b = await endpoint(() => 'never');
      const twice = completion();
      a.transport.request(b.transport.address, bytesOf('1'), { timeoutMs: 5_000, expectReply: true }, twice.done);
      await harness.settle(deliveryMs);
      const first = b.inbox.streams[0]!;
      first.reply(bytesOf('one'));
      first.reply(bytesOf('two'));
      const tooLate = completion();
      a.transport.request(b.transport.address, bytesOf('2'), { timeoutMs: TIMEOUT_MS, expectReply: true }, tooLate.done);
      await harness.settle(deliveryMs);
      const late = b.inbox.streams[1]?.reply;
      await harness.settle(TIMEOUT_MS + deliveryMs);
      late?.(bytesOf('late'));
      await harness.settle(deliveryMs);
      expect(twice.results).toHaveLength(1);
      expect(twice.results[0]!.ok && textOf(twice.results[0]!.bytes)).toBe('one');
      expect(tooLate.results).toHaveLength(1);
      expect(tooLate.results[0]!.ok).toBe(false);
    });

    it('close is idempotent, stops delivery and fails pending requests', async () => {
      const a = await endpoint();
      const b = await endpoint(() => 'never');
      const pending = completion();
      a.transport.request(b.transport.address, bytesOf('wait'), { timeoutMs: 5_000, expectReply: true }, pending.done);
      await harness.settle(deliveryMs);
      const first = a.transport.close();
      const second = a.transport.close();
      await Promise.all([first, second]);
      await expect(a.transport.close()).resolves.toBeUndefined();
      await harness.settle(deliveryMs);
      expect(pending.results, 'pending request of a closed transport').toHaveLength(1);
      expect(pending.results[0]!.ok).toBe(false);
      b.transport.sendPacket(a.transport.address, bytesOf('still there?'));
      await harness.settle(deliveryMs);
      expect(a.inbox.packets).toHaveLength(0);
      // Sending from a closed transport must not throw either.
      expect(() => a.transport.sendPacket(b.transport.address, bytesOf('from the grave'))).not.toThrow();
    });

    it('matches many concurrent requests to their own replies', async () => {
      const a = await endpoint();
      const b = await endpoint((bytes) => bytesOf(`${textOf(bytes)}!`));
      const calls = Array.from({ length: 50 }, (_, i) => {
        const call = completion();
        a.transport.request(b.transport.address, bytesOf(`request ${i}`), { timeoutMs: 5_000, expectReply: true }, call.done);
        return call;
      });
      await harness.settle(deliveryMs);
      calls.forEach((call, i) => {
        expect(call.results, `request ${i}`).toHaveLength(1);
        const result = call.results[0]!;
        expect(result.ok && textOf(result.bytes), `request ${i}`).toBe(`request ${i}!`);
      });
    });
  });
}
