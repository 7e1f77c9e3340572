/** Stream frames: a 4-byte big-endian length, then that many bytes. One request and one reply per connection. */

import type { ByteBudget } from './stream-budget.js';

export const FRAME_HEADER_BYTES = 4;

/** `bytes` with its length prefix, as one buffer (a single write). */
export function encodeFrame(bytes: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + bytes.length);
  frame.writeUInt32BE(bytes.length, 0);
  frame.set(bytes, FRAME_HEADER_BYTES);
  return frame;
}

/**
 * What a chunk completed: frames, or why the connection must be closed: 'oversize' when a header
 * announces more than `maxFrameBytes`, 'over-budget' when the budget refused the announced bytes.
 */
export type FrameReadResult = Uint8Array[] | 'oversize' | 'over-budget';

const UNLIMITED: ByteBudget = { reserve: () => true, release: () => {} };

/**
 * Reassembles frames from stream chunks. Once a header is in, the frame's announced length is
 * taken from `budget` and its buffer allocated at once; chunks are copied into it, so reading a
 * frame costs one copy of its bytes whatever the chunking (no growing buffer re-concatenated per
 * chunk). A frame is handed out complete and its bytes given back to the budget then (the handler
 * runs synchronously); `discard` gives back a frame left incomplete when the connection closes.
 */
export class FrameReader {
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
