import {
  MAX_NAME_BYTES,
  type DecodeErrorCode,
  type DecodeLimits,
  type DecodeResult,
  type Message,
  type WireCodec,
} from '@swim/core';
import { assembleCompound, splitCompound } from './compound.js';
import { compressMessage, inflateMessage } from './compress.js';
import { createCounters, type MemberlistWireCounters } from './counters.js';
import { crc32 } from './crc32.js';
import { DecodeFailure } from './decode-failure.js';
import { GoMsgpackWriter } from './go-msgpack-writer.js';
import { canonicalAddressProblem } from './ip.js';
import {
  EMPTY,
  readAck,
  readError,
  readPacketStruct,
  readPing,
  readPushPull,
  readStreamUser,
  type DecodeContext,
} from './message-decoder.js';
import { writePacketMessage, writeStreamMessage } from './message-encoder.js';
import { COMPOUND_HEADER_BYTES, COMPOUND_LENGTH_BYTES, CRC_HEADER_BYTES, MAX_COMPOUND_PARTS, MSG } from './message-types.js';
import { MsgpackReader } from './msgpack-reader.js';
import { resolveCodecOptions, type MemberlistCodecOptions, type ResolvedCodecOptions } from './options.js';
import { VsnCache } from './vsn.js';
import { decodeSerfAckPayload, encodeSerfAckPayload } from './serf-coordinate.js';

/** A {@link WireCodec} speaking memberlist's wire format, with what it counted. */
export interface MemberlistCodec extends WireCodec {
  /** What this codec refused, skipped and passed since it was made (live: read it, do not change it). */
  readonly counters: MemberlistWireCounters;
  /** The options in use, defaults filled in. */
  readonly options: ResolvedCodecOptions;
  /**
   * Called by the core at construction: our own alive and push-pull entry always carry our own
   * Vsn, whatever peers gossip about our name. Throws an Error when the codec already serves a
   * member (one codec instance per member).
   */
  attach(self: { readonly name: string }): void;
}

/**
 * Compound and compress messages nest (crc(lzw(compound[...])) is everyday Serf traffic);
 * memberlist follows any depth, we follow this many levels and skip deeper ones (counted).
 */
export const MAX_NESTING = 4;
/** Bound on messages taken from one packet, as the native codec's MAX_MESSAGES_PER_PACKET. */
export const MAX_MESSAGES_PER_PACKET = 1024;

/**
 * memberlist's wire format as a codec for the core (one per member: it counts, and remembers
 * peers' Vsn to relay their alives unchanged). Packets: a message, or a compound of up to 255,
 * then LZW when `compress` and smaller, then a CRC-32 when `crc` (memberlist sendMsg /
 * rawSendMsgPacket). Streams: one message, LZW-compressed whenever `compress`. Decoding peels CRC,
 * compress and compound recursively, skips (and counts) what the core must not see, and never
 * throws. Options are checked at once: a RangeError lists every problem.
 */
export function memberlistCodec(options?: MemberlistCodecOptions): MemberlistCodec {
  const resolved = resolveCodecOptions(options);
  const counters = createCounters();
  const ownVsn = Uint8Array.from(resolved.vsn);
  const ctx: DecodeContext = { vsnCache: new VsnCache(resolved.maxPeerVersions), ownVsn: resolved.vsn };
  const vsnOf = (name: string): Uint8Array => ctx.vsnCache.get(name) ?? ownVsn;
  const packetOverheadBytes = COMPOUND_HEADER_BYTES + (resolved.crc ? CRC_HEADER_BYTES : 0);
  let member: string | undefined;

  const attach = (self: { readonly name: string }): void => {
    if (member !== undefined) {
      throw new Error(
        `this memberlistCodec already serves member ${JSON.stringify(member)}: give every member its own memberlistCodec() (it keeps that member's counters and peers' Vsn)`,
      );
    }
    member = self.name;
    ctx.vsnCache.setOwnName(self.name);
  };

  const encodeMessage = (message: Message): Uint8Array => {
    const w = new GoMsgpackWriter();
    writePacketMessage(w, message, vsnOf);
    return w.finish();
  };

  const assemblePacket = (parts: readonly Uint8Array[]): Uint8Array => {
    if (parts.length === 0) throw new RangeError('a packet needs at least one part');
    // One message goes bare; several as a compound (memberlist sendMsg).
    let message = parts.length === 1 ? parts[0]!.slice() : assembleCompound(parts);
    if (resolved.compress) {
      // On packets only when it makes them smaller (memberlist rawSendMsgPacket).
      const compressed = compressMessage(message);
      if (compressed.length < message.length) {
        message = compressed;
        counters.compressedOut++;
      }
    }
    if (!resolved.crc) return message;
    const packet = new Uint8Array(CRC_HEADER_BYTES + message.length);
    packet[0] = MSG.hasCrc;
    writeUint32(packet, 1, crc32(message));
    packet.set(message, CRC_HEADER_BYTES);
    return packet;
  };

  const decodePacket = (bytes: Uint8Array): DecodeResult => {
    try {
      if (!(bytes instanceof Uint8Array)) return failed('malformed', 'input is not a Uint8Array');
      if (bytes.length === 0) return failed('empty', 'no bytes');
      let start = 0;
      // memberlist ingestPacket: a CRC header only at the top, on five bytes or more.
      if (bytes[0] === MSG.hasCrc && bytes.length >= CRC_HEADER_BYTES) {
        if (crc32(bytes, CRC_HEADER_BYTES) !== readUint32(bytes, 1)) {
          counters.crcFailures++;
          return failed('malformed', 'invalid CRC-32: packet dropped');
        }
        start = CRC_HEADER_BYTES;
      }
      const walk = new PacketWalk(ctx, counters, resolved.maxInflatedPacketBytes);
      walk.dispatch(bytes, start, bytes.length, 0);
      return walk.result();
    } catch (failure) {
      if (failure instanceof DecodeFailure) return failed(failure.code, failure.detail);
      return failed('malformed', `decoder failure: ${describeUnexpected(failure)}`);
    }
  };

  const encodeStream = (message: Message): Uint8Array => {
    const w = new GoMsgpackWriter();
    writeStreamMessage(w, message, vsnOf);
    const bytes = w.finish();
    if (!resolved.compress) return bytes;
    // On streams always, even when larger (memberlist sendAndReceiveState, sendUserMsg).
    counters.compressedOut++;
    return compressMessage(bytes);
  };

  const decodeStream = (bytes: Uint8Array, limits: DecodeLimits): DecodeResult => {
    try {
      if (!(bytes instanceof Uint8Array)) return failed('malformed', 'input is not a Uint8Array');
      if (bytes.length === 0) return failed('empty', 'no bytes');
      let message = bytes;
      // memberlist readStream: one compress wrapper, then the message type from the inflated bytes.
      if (bytes[0] === MSG.compress) {
        message = inflateMessage(bytes, 1, bytes.length, resolved.maxInflatedStreamBytes, true);
        counters.compressedIn++;
        if (message.length === 0) return failed('empty', 'the compressed stream inflates to nothing');
      }
      return { ok: true, messages: [readStreamMessage(message, ctx, counters, limits)] };
    } catch (failure) {
      if (failure instanceof DecodeFailure) {
        counters[failure.counter]++;
        return failed(failure.code, failure.detail);
      }
      return failed('malformed', `decoder failure: ${describeUnexpected(failure)}`);
    }
  };

  const codec: MemberlistCodec = {
    name: 'memberlist',
    packetOverheadBytes,
    partOverheadBytes: COMPOUND_LENGTH_BYTES,
    maxPartsPerPacket: MAX_COMPOUND_PARTS,
    minPacketBytes: 0,
    counters,
    options: resolved,
    addressProblem: canonicalAddressProblem,
    encodeMessage,
    encodedSize: (message: Message) => encodeMessage(message).length,
    assemblePacket,
    encodePacket: (messages: readonly Message[]) => assemblePacket(messages.map(encodeMessage)),
    decodePacket,
    encodeStream,
    decodeStream,
    // Serf's ping delegate: our coordinate in direct acks, theirs read from acks to our probes.
    encodeAckPayload: encodeSerfAckPayload,
    decodeAckPayload: decodeSerfAckPayload,
    attach,
  };
  return Object.freeze({ ...codec, minPacketBytes: smallestPacket(codec) });
}

/** One packet's decode: the messages found, the first reason a part was skipped, the inflate budget left. */
class PacketWalk {
  readonly #ctx: DecodeContext;
  readonly #counters: MemberlistWireCounters;
  #inflateBudget: number;
  readonly #messages: Message[] = [];
  #problem: DecodeFailure | undefined;

  constructor(ctx: DecodeContext, counters: MemberlistWireCounters, inflateBudget: number) {
    this.#ctx = ctx;
    this.#counters = counters;
    this.#inflateBudget = inflateBudget;
  }

  /** memberlist handleCommand on `bytes[start, end)`: one message, maybe a compound or compress of more. */
  dispatch(bytes: Uint8Array, start: number, end: number, depth: number): void {
    if (start >= end) return this.#skip(new DecodeFailure('malformed', 'a message with no type byte'));
    const type = bytes[start]!;
    try {
      switch (type) {
        case MSG.compound: {
          if (depth >= MAX_NESTING) throw tooDeep();
          const split = splitCompound(bytes, start + 1, end);
          if (split instanceof DecodeFailure) throw split;
          if (split.truncated > 0) {
            this.#counters.truncatedParts += split.truncated;
            this.#problem ??= new DecodeFailure('malformed', `compound: ${split.truncated} part(s) truncated`);
          }
          for (const [partStart, partEnd] of split.parts) this.dispatch(bytes, partStart, partEnd, depth + 1);
          return;
        }
        case MSG.compress: {
          if (depth >= MAX_NESTING) throw tooDeep();
          const inflated = inflateMessage(bytes, start + 1, end, this.#inflateBudget, false);
          this.#inflateBudget -= inflated.length;
          this.#counters.compressedIn++;
          this.dispatch(inflated, 0, inflated.length, depth + 1);
          return;
        }
        case MSG.user:
          // memberlist handleUser: the raw bytes after the type byte (Serf's messages among them).
          this.#counters.userMessagesIn++;
          this.#push({ type: 'user', from: '', payload: end - start > 1 ? bytes.slice(start + 1, end) : EMPTY });
          return;
        case MSG.hasLabel:
          throw new DecodeFailure('unknown-type', 'a label header (memberlist >= 0.3): refused', 'labelled');
        default:
          this.#push(readPacketStruct(type, bytes, start + 1, end, this.#ctx));
      }
    } catch (failure) {
      if (!(failure instanceof DecodeFailure) || failure === TOO_MANY_MESSAGES) throw failure;
      this.#skip(failure);
    }
  }

  result(): DecodeResult {
    if (this.#messages.length > 0) return { ok: true, messages: this.#messages };
    const problem = this.#problem ?? new DecodeFailure('empty', 'no message');
    return failed(problem.code, problem.detail);
  }

  #push(message: Message): void {
    if (this.#messages.length === MAX_MESSAGES_PER_PACKET) {
      throw TOO_MANY_MESSAGES;
    }
    this.#messages.push(message);
  }

  #skip(failure: DecodeFailure): void {
    this.#counters[failure.counter]++;
    this.#problem ??= failure;
  }
}

/** A stream message after any compress wrapper: push-pull, ping, ack, user or error, ending exactly at the end. */
function readStreamMessage(bytes: Uint8Array, ctx: DecodeContext, counters: MemberlistWireCounters, limits: DecodeLimits): Message {
  const type = bytes[0]!;
  const end = bytes.length;
  switch (type) {
    case MSG.pushPull:
      return readPushPull(bytes, 1, end, ctx, limits.maxPushPullEntries ?? Infinity, () => counters.versionRefused++);
    case MSG.user: {
      const message = readStreamUser(bytes, 1, end);
      counters.userMessagesIn++;
      return message;
    }
    case MSG.ping:
    case MSG.ack:
    case MSG.err: {
      const reader = new MsgpackReader(bytes, 1, end);
      const message = type === MSG.ping ? readPing(reader) : type === MSG.ack ? readAck(reader) : readError(reader);
      if (reader.position !== end) throw new DecodeFailure('malformed', `${end - reader.position} bytes after the message`);
      return message;
    }
    case MSG.hasLabel:
      throw new DecodeFailure('unknown-type', 'a label header (memberlist >= 0.3): refused', 'labelled');
    default:
      // memberlist handleConn: "Received invalid msgType".
      throw new DecodeFailure('unknown-type', `message type ${type} does not travel on streams`, 'unknownParts');
  }
}

/** Drops the whole packet (not one part), as the native codec does. */
const TOO_MANY_MESSAGES = new DecodeFailure('too-many', `more than ${MAX_MESSAGES_PER_PACKET} messages`);

function tooDeep(): DecodeFailure {
  return new DecodeFailure('malformed', `compound and compress nested more than ${MAX_NESTING} deep`, 'tooDeep');
}

/**
 * The smallest maxPacketBytes this codec can work with: the largest packet the core builds
 * without gossip, at the longest names and an IPv6 address: a ping with its buddy-system suspect
 * (Lifeguard §IV.C), an indirect ping, an alive with 512 bytes of meta (memberlist MetaMaxSize,
 * a refutation).
 */
function smallestPacket(codec: WireCodec): number {
  const name = 'n'.repeat(MAX_NAME_BYTES);
  const address = '[1111:2222:3333:4444:5555:6666:7777:8888]:65535';
  // Uncompressed: compression is only used when it makes a packet smaller.
  const size = (...messages: Message[]): number => {
    const parts = messages.map((message) => codec.encodeMessage(message).length);
    const body = parts.length === 1 ? parts[0]! : COMPOUND_HEADER_BYTES + parts.reduce((sum, part) => sum + COMPOUND_LENGTH_BYTES + part, 0);
    return body + codec.packetOverheadBytes - COMPOUND_HEADER_BYTES;
  };
  return Math.max(
    size(
      { type: 'ping', seq: 0xffff_ffff, target: name, sourceName: name, sourceAddress: address },
      { type: 'suspect', incarnation: 0xffff_ffff, node: name, from: name },
    ),
    size({ type: 'ping-req', seq: 0xffff_ffff, target: name, targetAddress: address, nack: true, sourceName: name, sourceAddress: address }),
    size({ type: 'alive', incarnation: 0xffff_ffff, node: name, address, meta: new Uint8Array(512).fill(0xff) }),
  );
}

function failed(code: DecodeErrorCode, detail: string): DecodeResult {
  return { ok: false, error: { code, detail } };
}

function readUint32(bytes: Uint8Array, at: number): number {
  return bytes[at]! * 0x100_0000 + ((bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!);
}

function writeUint32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24;
  bytes[at + 1] = (value >>> 16) & 0xff;
  bytes[at + 2] = (value >>> 8) & 0xff;
  bytes[at + 3] = value & 0xff;
}

/** Never throws, whatever was thrown. */
function describeUnexpected(thrown: unknown): string {
  try {
    return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : typeof thrown;
  } catch {
    return 'unknown';
  }
}
