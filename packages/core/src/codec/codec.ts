/**
 * The wire codec. A packet (and a stream payload) is one version byte followed by one or more
 * msgpack values, one per message; a packet with several is a compound packet. Each message is
 * a msgpack array `[typeCode, ...fields]` in the field order of messages.ts (codes and arities
 * in wire-schema.ts); byte fields are msgpack bin, push-pull members nested arrays
 * `[name, address, meta, incarnation, state]` with the state as its index in MEMBER_STATES.
 *
 * The bytes are standard msgpack (msgpackr reads and writes them; the tests check both ways),
 * but the codec itself is a hand-written writer and a strict, schema-driven reader of that
 * small subset. Encoding with msgpackr's pack() measured 0.3-0.4 M packets/s for a probe with
 * six updates, under half the target; and its unpacker honours record definitions (fixext
 * 0x72), bundled strings and structured-clone extensions whatever the options, so keeping
 * hostile bytes away from it would take a full pre-scan, which is a decoder already.
 */
import { DecodeFailure, type DecodeResult } from './decode-error.js';
import { readMessages, type MessageSpans, type ReadCounts } from './message-decoder.js';
import { writeMessage } from './message-encoder.js';
import type { Message } from './messages.js';
import { MsgpackWriter } from './msgpack-writer.js';
import { sharedPart } from './shared-parts.js';
import { describeRange, RANGE_FIELDS_VERSION, SWIM_PROTOCOL } from './protocol-range.js';
import { ALIVE_WITH_MOVE_ARITY, ALIVE_WITH_RANGE_ARITY, MESSAGE_TYPE_CODES, PACKET_HEADER_BYTES } from './wire-schema.js';

export type { DecodeError, DecodeErrorCode, DecodeResult } from './decode-error.js';
export {
  ALIVE_PACKET_OVERHEAD_BYTES,
  MAX_ADDRESS_BYTES,
  MAX_KEY_BYTES,
  MAX_NAME_BYTES,
  MESSAGE_TYPE_CODES,
  MIN_PACKET_BYTES,
  PACKET_HEADER_BYTES,
} from './wire-schema.js';

/**
 * The protocol version a packet or stream payload is written in unless the caller names one: the
 * first byte of each (0.1.0's, the only one it reads). A member writes the version its cluster
 * negotiated (protocol-range.ts); the decoder reads every version of SWIM_PROTOCOL.
 */
export const PROTOCOL_VERSION = 1;
/** Bound on messages in one packet or stream payload, so a tiny-message flood stays cheap. */
export const MAX_MESSAGES_PER_PACKET = 1024;

const writer = new MsgpackWriter();

/**
 * One message as msgpack, without the version byte: a part for {@link assemblePacket}, often
 * kept for a while in a broadcast queue. The result owns its buffer; later encodes never touch
 * it. Throws a RangeError or TypeError for a message the decoder would reject.
 */
export function encodeMessage(message: Message): Uint8Array {
  writer.begin();
  writeMessage(writer, message);
  return writer.finishCopy();
}

/**
 * Byte for byte {@link encodeMessage}, but read-only: equal parts encoded earlier in this process
 * (the same update re-gossiped by many simulated members) come back as one shared array. What
 * the native codec hands the broadcast queue, which never writes to its parts.
 */
export function encodeSharedMessage(message: Message): Uint8Array {
  writer.begin();
  writeMessage(writer, message);
  return writer.finishShared();
}

/** The byte size of `encodeMessage(message)`, without keeping the bytes. */
export function encodedSize(message: Message): number {
  writer.begin();
  writeMessage(writer, message);
  const size = writer.length;
  writer.discard();
  return size;
}

/**
 * The version byte followed by the parts, each an {@link encodeMessage} result.
 *
 * Packets are short-lived (handed to the transport and dropped), so like small Node Buffers
 * they are views of a shared pool slab: later encodes never write to them, but read them as
 * views (byteOffset, byteLength) and never transfer or detach their `buffer`.
 */
export function assemblePacket(parts: readonly Uint8Array[], version = PROTOCOL_VERSION): Uint8Array {
  writer.begin();
  writer.byte(checkedVersion(version));
  writer.rawAll(parts);
  return writer.finish();
}

/**
 * Byte for byte `assemblePacket([encodeMessage(first), ...parts])`, without encoding `first` into
 * a part of its own first: a ping or ack and the queued gossip it carries, written once.
 * A view of a pool slab like {@link assemblePacket}'s result.
 */
export function encodePacketWithParts(first: Message, parts: readonly Uint8Array[], version = PROTOCOL_VERSION): Uint8Array {
  writer.begin();
  writer.byte(checkedVersion(version));
  writeMessage(writer, first);
  writer.rawAll(parts);
  return writer.finish();
}

/**
 * Byte for byte `assemblePacket(messages.map(encodeMessage))`, without the intermediate parts;
 * a view of a pool slab like {@link assemblePacket}'s result.
 */
export function encodePacket(messages: readonly Message[], version = PROTOCOL_VERSION): Uint8Array {
  writer.begin();
  writer.byte(checkedVersion(version));
  for (const message of messages) writeMessage(writer, message);
  return writer.finish();
}

/**
 * Decode a packet or stream payload, all or nothing: one bad part rejects the packet, while a part
 * of a type this version does not know is skipped and counted in `skipped`, and fields after the
 * ones a message type has here are skipped (a later version's; docs/compatibility.md). Pure, and
 * never throws: every failure, expected or not, comes back as `{ ok: false }`. Byte fields of
 * the messages are copies, independent of `bytes`. Messages are read-only: an alive, suspect or
 * dead decoded again from equal bytes is the message decoded the first time (update-cache.ts).
 */
export function decodePacket(bytes: Uint8Array, limits: DecodeLimits = NO_LIMITS): DecodeResult {
  lastDecoded = undefined;
  lastBytes = undefined;
  try {
    if (!(bytes instanceof Uint8Array)) return failed('malformed', 'input is not a Uint8Array');
    if (bytes.length === 0) return failed('empty', 'no bytes');
    const version = bytes[0]!;
    if (version < SWIM_PROTOCOL.min || version > SWIM_PROTOCOL.max) {
      return failed('version', `protocol version ${version} is not supported: this member speaks ${describeRange(SWIM_PROTOCOL)}`);
    }
    if (bytes.length === PACKET_HEADER_BYTES) return failed('empty', 'a version byte and no message');
    const messages = readMessages(bytes, PACKET_HEADER_BYTES, MAX_MESSAGES_PER_PACKET, limits.maxPushPullEntries ?? Infinity, lastSpans, readCounts);
    lastDecoded = messages;
    lastBytes = bytes;
    if (version === PROTOCOL_VERSION) return readCounts.skipped === 0 ? { ok: true, messages } : { ok: true, messages, skipped: readCounts.skipped };
    return readCounts.skipped === 0 ? { ok: true, messages, version } : { ok: true, messages, skipped: readCounts.skipped, version };
  } catch (failure) {
    if (failure instanceof DecodeFailure) return failed(failure.code, failure.detail);
    return failed('malformed', `decoder failure: ${describeUnexpected(failure)}`);
  }
}

/**
 * The messages of the latest successful {@link decodePacket} in this process, the bytes they came
 * from and where each sat in them: a member passing on an update it just received copies the
 * update's own bytes instead of encoding it again, when they are what encoding would give. One
 * packet's worth (its bytes are not copied), replaced by the next decode.
 */
let lastDecoded: readonly Message[] | undefined;
const readCounts: ReadCounts = { skipped: 0 };
let lastBytes: Uint8Array | undefined;
const lastSpans: MessageSpans = {
  starts: new Int32Array(MAX_MESSAGES_PER_PACKET),
  ends: new Int32Array(MAX_MESSAGES_PER_PACKET),
  canonical: new Uint8Array(MAX_MESSAGES_PER_PACKET),
};

/**
 * Byte for byte `encodeSharedMessage(messages[index])`, copied from the packet it was decoded
 * from, when `messages` is the result of the latest {@link decodePacket} (call it while handling
 * that packet, before its bytes can change) and the message's bytes there are canonical (each
 * integer, length and header in the smallest form, as our writer puts them). Undefined
 * otherwise: then encode the message. Read-only, and may be shared like encodeSharedMessage's.
 */
export function receivedPart(messages: readonly Message[], index: number): Uint8Array | undefined {
  if (messages !== lastDecoded || !(index >= 0 && index < messages.length) || lastSpans.canonical[index] !== 1) return undefined;
  return sharedPart(lastBytes as Uint8Array, lastSpans.starts[index] as number, lastSpans.ends[index] as number);
}

/**
 * A part from {@link encodeSharedMessage} as protocol `version` writes it: an alive carrying its
 * member's range (version 2 on), and the address it moved from after it, without both before
 * version 2, where a member of 0.1.0 would drop the packet it rides in; any other part as it is
 * (the same array).
 */
export function partAtVersion(part: Uint8Array, version: number): Uint8Array {
  if (version >= RANGE_FIELDS_VERSION || part[1] !== MESSAGE_TYPE_CODES.alive) return part;
  if (part[0] !== 0x90 + ALIVE_WITH_RANGE_ARITY && part[0] !== 0x90 + ALIVE_WITH_MOVE_ARITY) return part;
  try {
    const [alive] = readMessages(part, 0, 1);
    if (alive?.type !== 'alive' || alive.protocol === undefined) return part;
    const { protocol: _dropped, movedFrom: _alsoDropped, ...withoutRange } = alive;
    return encodeSharedMessage(withoutRange);
  } catch {
    // Not a part we wrote: pass it as it is, as before.
    return part;
  }
}

/**
 * A stream payload in a protocol version this codec does not speak that is one `error` message,
 * read anyway (undefined when it is anything else): the error reply is the one message every
 * version writes alike, so a member refused for its version learns why (wire-codec.ts `protocol`).
 */
export function loneErrorReply(bytes: Uint8Array): DecodeResult | undefined {
  // Version 0 was never one: those bytes are no refusal from a member of another version.
  if (!(bytes[0]! >= 1)) return undefined;
  try {
    const messages = readMessages(bytes, PACKET_HEADER_BYTES, 1);
    const [reply] = messages;
    return messages.length === 1 && reply?.type === 'error' ? { ok: true, messages, version: bytes[0]! } : undefined;
  } catch {
    return undefined;
  }
}

/** A version this codec writes: one of SWIM_PROTOCOL's (a caller's mistake throws, as a bad message does). */
function checkedVersion(version: number): number {
  if (!Number.isInteger(version) || version < SWIM_PROTOCOL.min || version > SWIM_PROTOCOL.max) {
    throw new RangeError(`cannot write protocol version ${String(version)}: this codec speaks ${describeRange(SWIM_PROTOCOL)}`);
  }
  return version;
}

/** Bounds a receiver sets beyond the wire's own. */
export interface DecodeLimits {
  /** A push-pull with more entries is rejected as soon as its array header is read, before any entry is decoded. */
  readonly maxPushPullEntries?: number;
}

const NO_LIMITS: DecodeLimits = Object.freeze({});

function failed(code: DecodeFailure['code'], detail: string): DecodeResult {
  return { ok: false, error: { code, detail } };
}

/** Never throws, whatever was thrown. */
function describeUnexpected(thrown: unknown): string {
  try {
    return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : typeof thrown;
  } catch {
    return 'unknown';
  }
}
