import type { Message } from './messages.js';

/**
 * Why a packet was rejected. Decoding is all-or-nothing, so one code describes the whole packet:
 * - `empty`: no bytes at all, or a version byte followed by no message;
 * - `version`: the first byte is not a protocol version the decoder speaks (SWIM_PROTOCOL);
 * - `malformed`: not the msgpack we write (truncated, trailing garbage, a part that is not an
 *   array, a message array with fewer elements than its type has, a type code that is not an
 *   integer, a skipped value nested too deep);
 * - `unknown-type`: a message type code that can never be one (negative; the native codec skips
 *   unknown non-negative codes as a later version's messages, see `skipped`);
 * - `invalid-field`: a field of the wrong msgpack type, out of range, too long or not UTF-8;
 * - `too-many`: more than MAX_MESSAGES_PER_PACKET messages, or a push-pull above the receiver's maxPushPullEntries.
 */
export type DecodeErrorCode = 'empty' | 'version' | 'malformed' | 'unknown-type' | 'invalid-field' | 'too-many';

/** `detail` is for logs and tests; it never echoes string or byte contents of the packet. */
export interface DecodeError {
  /** Which rule the bytes broke; see {@link DecodeErrorCode}. */
  readonly code: DecodeErrorCode;
  /** What exactly, naming the part and the field, e.g. `part 2 (alive): field 'node' must not be empty`. */
  readonly detail: string;
}

/** The outcome of decoding a packet or a stream payload: all of its messages, or one error. */
export type DecodeResult =
  | {
      /** The bytes decoded. */
      readonly ok: true;
      /** The messages in the order they were written; a stream payload holds exactly one (or is skipped). */
      readonly messages: Message[];
      /**
       * Messages of a type this codec does not know, skipped whole (a later version's; the others
       * were decoded); absent when none were.
       */
      readonly skipped?: number;
      /**
       * The protocol version the bytes were written in (their first byte), when not 1; absent for
       * version 1 and for codecs without @swim's versions.
       */
      readonly version?: number;
    }
  | {
      /** The bytes were rejected whole. */
      readonly ok: false;
      /** Why. */
      readonly error: DecodeError;
    };

/**
 * Thrown inside the decoder and turned into a {@link DecodeResult} at its boundary. Not an Error:
 * rejecting hostile input must not pay for a stack trace.
 */
export class DecodeFailure {
  constructor(
    readonly code: DecodeErrorCode,
    readonly detail: string,
  ) {}
}
