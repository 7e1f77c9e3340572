/**
 * A connection's incoming bytes as a queue of complete msgpack values, each framed by the
 * FrameScanner and bounded before it is buffered: the bytes of a value in progress never exceed
 * `maxRequestBytes` (plus the chunk that completes it), and at most `maxQueued` complete values
 * wait for the session: past that the rest stays unscanned and the session pauses the socket
 * ({@link RequestReader.backlogged}).
 */
import { decodeValue } from './codec.js';
import { FrameScanner, type FrameLimits } from './frame-scanner.js';

export interface RequestReaderEvents {
  /** A value was queued. */
  readonly onValue: () => void;
  /** The stream broke a bound or is not msgpack: close the connection. */
  readonly onRefused: (reason: string) => void;
  /** Whether bytes of an unfinished value are waiting (the session times that). */
  readonly onPartial: (pending: boolean) => void;
}

export class RequestReader {
  readonly #scanner: FrameScanner;
  readonly #events: RequestReaderEvents;
  readonly #queue: unknown[] = [];
  readonly #maxQueued: number;
  #buffer: Buffer;
  /** Bytes [start, length) of the buffer are unread. */
  #start = 0;
  #length = 0;
  #refused = false;
  #scanning = false;

  constructor(limits: FrameLimits & { readonly maxQueued: number }, events: RequestReaderEvents) {
    this.#scanner = new FrameScanner(limits);
    this.#events = events;
    this.#maxQueued = limits.maxQueued;
    this.#buffer = Buffer.allocUnsafe(Math.min(4096, limits.maxBytes));
  }

  /** As many values wait as may: stop reading the socket until the session takes some. */
  get backlogged(): boolean {
    return this.#queue.length >= this.#maxQueued;
  }

  /** The next complete value, or undefined when none is queued. */
  shift(): { readonly value: unknown } | undefined {
    if (this.#queue.length === 0) return undefined;
    const value = this.#queue.shift();
    this.#scanAll();
    return { value };
  }

  push(chunk: Uint8Array): void {
    if (this.#refused) return;
    this.#append(chunk);
    this.#scanAll();
  }

  #scanAll(): void {
    if (this.#scanning || this.#refused) return;
    this.#scanning = true;
    try {
      this.#scanValues();
    } finally {
      this.#scanning = false;
    }
  }

  #scanValues(): void {
    while (this.#queue.length < this.#maxQueued) {
      const unread = this.#buffer.subarray(this.#start, this.#length);
      const result = this.#scanner.scan(unread);
      if (result.kind === 'partial') break;
      if (result.kind === 'refused') return this.#refuse(result.reason);
      let value: unknown;
      try {
        // A copy: decoded bin fields are views of what they were decoded from, and the buffer is reused.
        value = decodeValue(new Uint8Array(unread.subarray(0, result.end)));
      } catch (error) {
        return this.#refuse(`undecodable request: ${(error as Error).message}`);
      }
      this.#start += result.end;
      this.#scanner.reset();
      this.#queue.push(value);
      this.#events.onValue();
      if (this.#refused) return;
    }
    // Bytes left while backlogged may be whole requests not yet scanned: only a value in progress is timed.
    this.#events.onPartial(this.#length > this.#start && !this.backlogged);
  }

  /** Grow by doubling: each byte is copied O(1) times however small the chunks (a drip-feeding client). */
  #append(chunk: Uint8Array): void {
    // Read bytes are dropped once they are half the buffer: each byte moves O(1) times.
    if (this.#start > 0 && (this.#start === this.#length || this.#start >= this.#buffer.length / 2)) {
      this.#buffer.copyWithin(0, this.#start, this.#length);
      this.#length -= this.#start;
      this.#start = 0;
    }
    const needed = this.#length + chunk.length;
    if (needed > this.#buffer.length) {
      let size = this.#buffer.length;
      while (size < needed) size *= 2;
      const grown = Buffer.allocUnsafe(size);
      this.#buffer.copy(grown, 0, 0, this.#length);
      this.#buffer = grown;
    }
    this.#buffer.set(chunk, this.#length);
    this.#length = needed;
  }

  #refuse(reason: string): void {
    this.#refused = true;
    this.#start = this.#length = 0;
    this.#events.onRefused(reason);
  }
}
