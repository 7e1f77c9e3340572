/**
 * The stream framing contract of `@swim/transport-udp` (its framing.ts and stream-budget.ts),
 * declared here with the same shape so that this package stays browser-safe and does not depend
 * on a Node transport: a transport accepts {@link memberlistStreamFraming} structurally.
 */

/** Bytes one reader may take and give back. */
export interface ByteBudget {
  /** Take `bytes` before buffering them; false refuses them. */
  reserve(bytes: number): boolean;
  /** Give back `bytes` taken with `reserve` (a frame handed out, a connection closed). */
  release(bytes: number): void;
}

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
  /** Short name for logs and errors ('memberlist'). */
  readonly name: string;
  /** The bytes to write for one request or reply. */
  frame(bytes: Uint8Array): Uint8Array;
  /** A reader for one connection: refuses frames above `maxFrameBytes`, reserves what it buffers from `budget`. */
  reader(maxFrameBytes: number, budget: ByteBudget): StreamFrameReader;
}
