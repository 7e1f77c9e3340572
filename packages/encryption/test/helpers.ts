/** Shared test helpers: hex, bounded waits, a fake inner transport that lets a test inject traffic. */
import type { StreamOptions, StreamResult, Transport, TransportHandlers } from '@swim/runtime';

export function hex(text: string): Uint8Array {
  const clean = text.replace(/[\s|]/g, '');
  return Uint8Array.from(clean.match(/../g) ?? [], (byte) => parseInt(byte, 16));
}

export function toHex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Poll `condition` every 10 ms; false if it still fails after `timeoutMs` (generous: loaded machines). */
export async function waitFor(condition: () => boolean, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/** Whether `needle` occurs anywhere in `haystack`. */
export function containsBytes(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * An inner transport under the test's control: what the wrapper sends is recorded, and the test
 * delivers packets and streams to the wrapper directly, synchronously, as many as it likes.
 */
export class FakeTransport implements Transport {
  readonly address = 'fake:1';
  readonly supportsStreams = true;
  readonly sent: Array<{ to: string; bytes: Uint8Array }> = [];
  readonly requests: Array<{ to: string; bytes: Uint8Array; options: StreamOptions; done: (result: StreamResult) => void }> = [];
  handlers: TransportHandlers | undefined;
  closed = false;

  constructor(readonly maxPacketBytes = 1400) {}

  listen(handlers: TransportHandlers): void {
    this.handlers = handlers;
  }

  sendPacket(to: string, bytes: Uint8Array): void {
    this.sent.push({ to, bytes });
  }

  request(to: string, bytes: Uint8Array, options: StreamOptions, done: (result: StreamResult) => void): void {
    this.requests.push({ to, bytes, options, done });
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  deliverPacket(from: string, bytes: Uint8Array): void {
    this.handlers!.packet(from, bytes);
  }

  /** Deliver a stream; the promise resolves with what the wrapper replied (undefined: closed without reply). */
  deliverStream(from: string, bytes: Uint8Array): { replies: Array<Uint8Array | undefined>; replied: Promise<Uint8Array | undefined> } {
    const replies: Array<Uint8Array | undefined> = [];
    let resolve!: (bytes: Uint8Array | undefined) => void;
    const replied = new Promise<Uint8Array | undefined>((r) => (resolve = r));
    this.handlers!.stream(from, bytes, (reply) => {
      replies.push(reply);
      resolve(reply);
    });
    return { replies, replied };
  }
}

/** Handlers that record what reaches the core. */
export function recordingHandlers(answer?: (bytes: Uint8Array) => Uint8Array | undefined) {
  const packets: Array<{ from: string; bytes: Uint8Array }> = [];
  const streams: Array<{ from: string; bytes: Uint8Array }> = [];
  const handlers: TransportHandlers = {
    packet: (from, bytes) => packets.push({ from, bytes }),
    stream: (from, bytes, reply) => {
      streams.push({ from, bytes });
      reply(answer?.(bytes));
    },
  };
  return { packets, streams, handlers };
}
