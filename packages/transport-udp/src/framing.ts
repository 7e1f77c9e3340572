/** Stream frames: a 4-byte big-endian length, then that many bytes. One request and one reply per connection. */

export const FRAME_HEADER_BYTES = 4;

/** `bytes` with its length prefix, as one buffer (a single write). */
export function encodeFrame(bytes: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + bytes.length);
  frame.writeUInt32BE(bytes.length, 0);
  frame.set(bytes, FRAME_HEADER_BYTES);
  return frame;
}

/**
 * Reassembles frames from stream chunks. `push` returns the frames completed by a chunk, or
 * 'oversize' once a header announces more than `maxFrameBytes` (the connection should be closed).
 */
export class FrameReader {
  readonly #maxFrameBytes: number;
  #chunks: Buffer[] = [];
  #buffered = 0;
  /** Body length of the frame being read, once its header is in. */
  #expected: number | undefined;

  constructor(maxFrameBytes: number) {
    this.#maxFrameBytes = maxFrameBytes;
  }

  /** Bytes received that are not part of a completed frame yet. */
  get buffered(): number {
    return this.#buffered;
  }

  push(chunk: Buffer): Uint8Array[] | 'oversize' {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    const frames: Uint8Array[] = [];
    for (;;) {
      if (this.#expected === undefined) {
        if (this.#buffered < FRAME_HEADER_BYTES) break;
        const length = this.#take(FRAME_HEADER_BYTES).readUInt32BE(0);
        if (length > this.#maxFrameBytes) return 'oversize';
        this.#expected = length;
      }
      if (this.#buffered < this.#expected) break;
      const body = this.#take(this.#expected);
      this.#expected = undefined;
      frames.push(new Uint8Array(body.buffer, body.byteOffset, body.length));
    }
    return frames;
  }

  #take(n: number): Buffer {
    const all = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#buffered);
    const taken = all.subarray(0, n);
    const rest = all.subarray(n);
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#buffered = rest.length;
    return taken;
  }
}
