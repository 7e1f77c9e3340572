/**
 * The wire codec. A packet (and a stream payload) is one version byte followed by one or more
 * msgpack values, one per message; a packet with several is a compound packet. Each message is
 * a msgpack array `[typeCode, ...fields]` in the field order of messages.ts (codes and arities
 * in wire-schema.ts); byte fields are msgpack bin, push-pull members nested arrays
 * `[name, address, meta, incarnation, state]` with the state as its index in MEMBER_STATES.
 *
 * The bytes are standard msgpack, but both directions are hand-written over that small subset
 * rather than done by msgpackr: it measured 2-3x below the throughput target, and a strict
 * schema-driven reader cannot be steered by hostile input into msgpackr's record, bundled-string
 * or structured-clone extensions, which its unpacker honours whatever the options.
 */
import { DecodeFailure, type DecodeResult } from './decode-error.js';
import { readMessages } from './message-decoder.js';
import { writeMessage } from './message-encoder.js';
import type { Message } from './messages.js';
import { MsgpackWriter } from './msgpack-writer.js';

export type { DecodeError, DecodeErrorCode, DecodeResult } from './decode-error.js';
export { MESSAGE_TYPE_CODES } from './wire-schema.js';

/** First byte of every packet and stream payload; a peer speaking another version is dropped. */
export const PROTOCOL_VERSION = 1;
/** Bytes a packet adds around its messages: packet size = this + Σ encodedSize(message). */
export const PACKET_HEADER_BYTES = 1;
/** Bound on messages in one packet or stream payload, so a tiny-message flood stays cheap. */
export const MAX_MESSAGES_PER_PACKET = 1024;

const writer = new MsgpackWriter();

/**
 * One message as msgpack, without the version byte: a part for {@link assemblePacket}. The
 * result is a fresh array that later encodes never touch, so it can wait in a broadcast queue.
 * Throws a RangeError or TypeError for a message the decoder would reject.
 */
export function encodeMessage(message: Message): Uint8Array {
  writer.reset();
  writeMessage(writer, message);
  return writer.copyOut();
}

/** The byte size of `encodeMessage(message)`, without allocating the result. */
export function encodedSize(message: Message): number {
  writer.reset();
  writeMessage(writer, message);
  const size = writer.length;
  writer.release();
  return size;
}

/** The version byte followed by the parts, each an {@link encodeMessage} result. */
export function assemblePacket(parts: readonly Uint8Array[]): Uint8Array {
  let size = PACKET_HEADER_BYTES;
  for (const part of parts) size += part.length;
  const packet = new Uint8Array(size);
  packet[0] = PROTOCOL_VERSION;
  let at = PACKET_HEADER_BYTES;
  for (const part of parts) {
    packet.set(part, at);
    at += part.length;
  }
  return packet;
}

/** Byte for byte `assemblePacket(messages.map(encodeMessage))`, with one allocation. */
export function encodePacket(messages: readonly Message[]): Uint8Array {
  writer.reset();
  writer.byte(PROTOCOL_VERSION);
  for (const message of messages) writeMessage(writer, message);
  return writer.copyOut();
}

/**
 * Decode a packet or stream payload, all or nothing: one bad part rejects the packet. Pure, and
 * never throws: every failure, expected or not, comes back as `{ ok: false }`. Byte fields of
 * the messages are copies, independent of `bytes`.
 */
export function decodePacket(bytes: Uint8Array): DecodeResult {
  try {
    if (!(bytes instanceof Uint8Array)) return failed('malformed', 'input is not a Uint8Array');
    if (bytes.length === 0) return failed('empty', 'no bytes');
    if (bytes[0] !== PROTOCOL_VERSION) {
      return failed('version', `protocol version ${bytes[0]} is not supported, expected ${PROTOCOL_VERSION}`);
    }
    if (bytes.length === PACKET_HEADER_BYTES) return failed('empty', 'a version byte and no message');
    return { ok: true, messages: readMessages(bytes, PACKET_HEADER_BYTES, MAX_MESSAGES_PER_PACKET) };
  } catch (failure) {
    if (failure instanceof DecodeFailure) return failed(failure.code, failure.detail);
    return failed('malformed', `decoder failure: ${describeUnexpected(failure)}`);
  }
}

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
