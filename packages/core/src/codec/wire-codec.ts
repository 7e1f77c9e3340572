import {
  assemblePacket,
  decodePacket,
  encodedSize,
  encodeSharedMessage,
  encodePacket,
  encodePacketWithParts,
  MAX_MESSAGES_PER_PACKET,
  partAtVersion,
  loneErrorReply,
  receivedPart,
  type DecodeLimits,
  type DecodeResult,
} from './codec.js';
import type { Message } from './messages.js';
import { SWIM_PROTOCOL, type ProtocolRange } from './protocol-range.js';
import { decodeSwimAckPayload, encodeSwimAckPayload, type AckPayload, type AckPayloadContent } from './ack-payload.js';
import { MAX_ADDRESS_BYTES, MIN_PACKET_BYTES, PACKET_HEADER_BYTES } from './wire-schema.js';
import { utf8ByteLength } from '../support/bytes.js';

/**
 * How a member puts its messages into bytes and reads them back: the native codec by default,
 * or another wire format (memberlist's, in @swim/adapter-memberlist). The core only ever sees
 * {@link Message} values; a codec is per member and may keep state (counters, peers' versions).
 * Like the rest of the core, a codec reads no clock and does no I/O.
 */
export interface WireCodec {
  /** Short name for logs and stats ('swim' for the native codec). */
  readonly name: string;
  /**
   * The versions of @swim's protocol this codec speaks, when it speaks them: members then agree on
   * one (protocol-range.ts, docs/compatibility.md) and name it in every `version` argument below.
   * The first byte of each packet and stream payload is then the version it is written in, and an
   * `error` stream reply reads the same in every version: a member that does not speak the version
   * of a request answers with an error written in its own oldest, that first byte changed to the
   * request's, so the requester reads why it was refused.
   * Absent for a codec of another wire (memberlist's negotiates memberlist's own versions); its
   * methods are then called without a version.
   */
  readonly protocol?: ProtocolRange;
  /** A packet of n parts is at most packetOverheadBytes + Σ(part length + partOverheadBytes) bytes. */
  readonly packetOverheadBytes: number;
  /** Bytes each part may add besides its own length (see `packetOverheadBytes`): 0 for {@link swimCodec}. */
  readonly partOverheadBytes: number;
  /** Most parts one packet may carry. */
  readonly maxPartsPerPacket: number;
  /** The smallest maxPacketBytes this codec works with: the core refuses a config below it. */
  readonly minPacketBytes: number;
  /** Why `address` (the member's own advertise address) cannot be carried; undefined when it can. */
  addressProblem(address: string): string | undefined;
  /**
   * One message as a packet part, kept for a while in the broadcast queue. Nothing writes to it
   * afterwards: a codec may hand the same array out again for equal bytes (the native one does,
   * so the members of one simulated process share their queued updates). Throws a RangeError or
   * TypeError for a message the codec cannot carry.
   */
  encodeMessage(message: Message): Uint8Array;
  /**
   * Optional: byte for byte `encodeMessage(messages[index])` taken from the received packet,
   * where `messages` is what this codec's latest `decodePacket` returned (the core asks while it
   * handles that packet, to pass an update on); undefined when the codec cannot vouch for the
   * bytes (then the core encodes the message).
   */
  receivedPart?(messages: readonly Message[], index: number): Uint8Array | undefined;
  /**
   * Optional: a part from {@link encodeMessage}, queued a while ago, as protocol `version` writes
   * it (the same array when nothing changes): the core asks before sending parts in a version
   * older than the one they may have been queued in. Only for codecs with a {@link protocol}.
   */
  partAtVersion?(part: Uint8Array, version: number): Uint8Array;
  /** The byte size of `encodeMessage(message)`. */
  encodedSize(message: Message): number;
  /**
   * Parts from {@link encodeMessage} as one packet, written in protocol `version` (one of
   * {@link protocol}; the codec's oldest when omitted). Never written to later: transports may queue it.
   */
  assemblePacket(parts: readonly Uint8Array[], version?: number): Uint8Array;
  /** Byte for byte `assemblePacket(messages.map(encodeMessage), version)`. */
  encodePacket(messages: readonly Message[], version?: number): Uint8Array;
  /**
   * Optional: byte for byte `assemblePacket([encodeMessage(first), ...parts])`, for a probe or
   * ack with piggybacked gossip, without a part of its own for `first`. The core falls back to
   * encodeMessage + assemblePacket when a codec lacks it.
   */
  encodePacketWithParts?(first: Message, parts: readonly Uint8Array[], version?: number): Uint8Array;
  /** Never throws. A codec may skip parts it does not carry (and count them): ok with fewer messages. */
  decodePacket(bytes: Uint8Array): DecodeResult;
  /** One stream request or reply: push-pull, ping, ack, user or error, in protocol `version` as for packets. */
  encodeStream(message: Message, version?: number): Uint8Array;
  /**
   * Never throws; `ok` holds exactly one message, or none with `skipped` 1 when its type is one
   * this codec does not know (a later version's request or reply). Honours `limits.maxPushPullEntries`.
   */
  decodeStream(bytes: Uint8Array, limits: DecodeLimits): DecodeResult;
  /**
   * Optional: the payload of a direct ack we send to a ping addressed to us (memberlist
   * PingDelegate.AckPayload): our protocol range and our network coordinate, as this wire carries
   * them. Without it the core sends `encodeRangePayload(protocol)` for a codec with a
   * {@link protocol}, else an empty payload, and carries no coordinate. Acks relayed for a
   * ping-req carry no payload (memberlist).
   */
  encodeAckPayload?(payload: AckPayload): Uint8Array;
  /**
   * Optional: what the payload of a direct ack to our probe says (memberlist
   * PingDelegate.NotifyPingComplete's payload). Never throws; the coordinate is returned as read,
   * the core's Vivaldi client judges it. Without it the core reads only a range (decodeRangePayload).
   */
  decodeAckPayload?(payload: Uint8Array): AckPayloadContent;
  /**
   * Called once by the core that uses this codec, at construction (after its options are
   * validated): the codec learns which member it serves. Optional; a codec with per-member state
   * may throw when it is attached a second time (one codec shared by two members).
   */
  attach?(self: { readonly name: string }): void;
}

/** The native codec (codec.ts): a version byte, then one msgpack array per message; streams carry one message. */
export const swimCodec: WireCodec = Object.freeze({
  name: 'swim',
  protocol: SWIM_PROTOCOL,
  packetOverheadBytes: PACKET_HEADER_BYTES,
  partOverheadBytes: 0,
  maxPartsPerPacket: MAX_MESSAGES_PER_PACKET,
  minPacketBytes: MIN_PACKET_BYTES,
  addressProblem: (address: string) =>
    utf8ByteLength(address) > MAX_ADDRESS_BYTES ? `address must be at most ${MAX_ADDRESS_BYTES} bytes of UTF-8` : undefined,
  encodeMessage: encodeSharedMessage,
  receivedPart,
  partAtVersion,
  encodedSize,
  assemblePacket,
  encodePacket,
  encodePacketWithParts,
  decodePacket: (bytes: Uint8Array) => decodePacket(bytes),
  encodeAckPayload: encodeSwimAckPayload,
  decodeAckPayload: decodeSwimAckPayload,
  encodeStream: (message: Message, version?: number) => encodePacket([message], version),
  decodeStream(bytes: Uint8Array, limits: DecodeLimits): DecodeResult {
    const decoded = decodePacket(bytes, limits);
    // A refusal from a member of a version we do not speak is still read (loneErrorReply).
    if (!decoded.ok && decoded.error.code === 'version') return loneErrorReply(bytes) ?? decoded;
    // One message, known or of a later version's type (then `messages` is empty and `skipped` 1).
    const count = decoded.ok ? decoded.messages.length + (decoded.skipped ?? 0) : 1;
    if (count === 1) return decoded;
    return { ok: false, error: { code: 'malformed', detail: `a stream carries exactly one message, got ${count}` } };
  },
});
