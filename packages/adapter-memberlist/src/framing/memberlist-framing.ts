import { MemberlistFrameReader } from './memberlist-frame-reader.js';
import type { ByteBudget, StreamFrameReader, StreamFraming } from './stream-framing.js';

/**
 * memberlist's stream framing: a request or reply is written as it is (no length prefix), and a
 * reader finds where each message ends by parsing it as it arrives ({@link MemberlistFrameReader}).
 * Give it to a transport's `streamFraming` option together with the memberlist codec.
 */
export const memberlistStreamFraming: StreamFraming = Object.freeze({
  name: 'memberlist',
  frame: (bytes: Uint8Array): Uint8Array => bytes,
  reader: (maxFrameBytes: number, budget: ByteBudget): StreamFrameReader => new MemberlistFrameReader(maxFrameBytes, budget),
});
