/**
 * Stream framing: how one request or reply is delimited on a TCP connection (one request and at
 * most one reply per connection). Pluggable: the default is a 4-byte big-endian length prefix;
 * memberlist's streams carry no prefix and are delimited by parsing the message itself
 * (memberlist readStream), which an adapter supplies as its own {@link StreamFraming}.
 */

import type { ByteBudget } from './stream-budget.js';

/**
 * What a chunk completed: frames, or why the connection must be closed: 'oversize' when a frame
 * would be larger than `maxFrameBytes`, 'over-budget' when the budget refused bytes to buffer,
 * 'malformed' when the bytes cannot be a frame of this framing.
 */
export type FrameReadResult = Uint8Array[] | 'oversize' | 'over-budget' | 'malformed';

/** Reassembles the frames of one connection from its chunks. */
export interface StreamFrameReader {
  /** Bytes received that are not part of a completed frame yet. */
  readonly buffered: number;
  /** Bytes taken from the budget now. */
  readonly reserved: number;
  /** Once it returned a refusal, every later push returns the same. */
  push(chunk: Uint8Array): FrameReadResult;
  /** Give back what is reserved: the connection closed. */
  discard(): void;
}

/** How requests and replies are written to, and read from, a stream connection. */
export interface StreamFraming {
  /** Short name for logs and errors. */
  readonly name: string;
  /** The bytes to write for one request or reply (written in one write). */
  frame(bytes: Uint8Array): Uint8Array;
  /** A reader for one connection: refuses frames above `maxFrameBytes`, reserves what it buffers from `budget`. */
  reader(maxFrameBytes: number, budget: ByteBudget): StreamFrameReader;
}

/** Size of the length prefix of {@link lengthPrefixFraming}: a 4-byte big-endian unsigned length. */
export const FRAME_HEADER_BYTES = 4;

/** `bytes` with its length prefix, as one buffer (a single write). */
export function encodeFrame(bytes: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + bytes.length);
  frame.writeUInt32BE(bytes.length, 0);
  frame.set(bytes, FRAME_HEADER_BYTES);
  return frame;
}

const UNLIMITED: ByteBudget = { reserve: () => true, release: () => {} };

/**
 * Reassembles frames from stream chunks. Once a header is in, the frame's announced length is
 * taken from `budget` and its buffer allocated at once; chunks are copied into it, so reading a
 * frame costs one copy of its bytes whatever the chunking (no growing buffer re-concatenated per
 * chunk). A frame is handed out complete and its bytes given back to the budget then (the handler
 * runs synchronously); `discard` gives back a frame left incomplete when the connection closes.
 */
export class FrameReader implements StreamFrameReader {
  readonly #maxFrameBytes: number;
  readonly #budget: ByteBudget;
  readonly #header = Buffer.alloc(FRAME_HEADER_BYTES);
  #headerFill = 0;
  /** The frame being read, allocated to its announced length, and how much of it has arrived. */
  #body: Buffer | undefined;
  #bodyFill = 0;
  #failed: 'oversize' | 'over-budget' | undefined;

  constructor(maxFrameBytes: number, budget: ByteBudget = UNLIMITED) {
    this.#maxFrameBytes = maxFrameBytes;
    this.#budget = budget;
  }

  /** Bytes received that are not part of a completed frame yet. */
  get buffered(): number {
    return this.#headerFill + this.#bodyFill;
  }

  /** Bytes taken from the budget for the frame being read (its announced length), 0 between frames. */
  get reserved(): number {
    return this.#body?.length ?? 0;
  }

  push(chunk: Uint8Array): FrameReadResult {
    if (this.#failed !== undefined) return this.#failed;
    const frames: Uint8Array[] = [];
    let offset = 0;
    for (;;) {
      let body = this.#body;
      if (body === undefined) {
        if (offset === chunk.length) break;
        const n = Math.min(FRAME_HEADER_BYTES - this.#headerFill, chunk.length - offset);
        this.#header.set(chunk.subarray(offset, offset + n), this.#headerFill);
        this.#headerFill += n;
        offset += n;
        if (this.#headerFill < FRAME_HEADER_BYTES) break;
        this.#headerFill = 0;
        const length = this.#header.readUInt32BE(0);
        if (length > this.#maxFrameBytes) return (this.#failed = 'oversize');
        if (!this.#budget.reserve(length)) return (this.#failed = 'over-budget');
        body = this.#body = Buffer.allocUnsafe(length);
        this.#bodyFill = 0;
      }
      const n = Math.min(body.length - this.#bodyFill, chunk.length - offset);
      body.set(chunk.subarray(offset, offset + n), this.#bodyFill);
      this.#bodyFill += n;
      offset += n;
      if (this.#bodyFill < body.length) break;
      this.#body = undefined;
      this.#bodyFill = 0;
      this.#budget.release(body.length);
      frames.push(new Uint8Array(body.buffer, body.byteOffset, body.length));
    }
    return frames;
  }

  /** Give back the frame in progress, if any: the connection closed. */
  discard(): void {
    const body = this.#body;
    this.#body = undefined;
    this.#bodyFill = 0;
    this.#headerFill = 0;
    if (body !== undefined) this.#budget.release(body.length);
  }
}

/** The default framing: a 4-byte big-endian length, then that many bytes. It never returns 'malformed'. */
export const lengthPrefixFraming: StreamFraming = Object.freeze({
  name: 'length-prefix',
  frame: encodeFrame,
  reader: (maxFrameBytes: number, budget: ByteBudget): StreamFrameReader => new FrameReader(maxFrameBytes, budget),
});
