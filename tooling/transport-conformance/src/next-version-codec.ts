/**
 * A test-only "next version" of @swim's wire, to prove protocol negotiation (docs/compatibility.md)
 * before a real incompatible change needs it. It speaks protocol versions 1-3, where version 3 is
 * version 2 with one message type more (a `hint`, type code 11, at the end of every packet) and one
 * field more (a sixth element on every ping). Versions 1 and 2 are today's codec, untouched.
 *
 * It counts what it writes and reads per version, so a test can check that members switch to
 * version 3 only once every live member speaks it, and that the additions then really travel.
 */
import { swimCodec, type DecodeLimits, type DecodeResult, type Message, type WireCodec } from '@swim/core';
import { unpackMultiple } from 'msgpackr';

/** The version this codec adds. */
export const NEXT_VERSION = 3;
/** The wire code of the message type version 3 adds: one today's codec does not know. */
export const HINT_CODE = 11;

/** What one next-version codec wrote and read. */
export interface NextVersionTally {
  /** Packets written, by protocol version. */
  readonly packetsSent: Map<number, number>;
  /** Packets read, by protocol version. */
  readonly packetsReceived: Map<number, number>;
  /** Hints (the added message type) read. */
  hintsReceived: number;
  /** Pings read with the added field. */
  pingsWithFieldReceived: number;
}

/** A next-version codec and what it counted. */
export interface NextVersionCodec extends WireCodec {
  readonly tally: NextVersionTally;
}

/** msgpack of [HINT_CODE, 'v3']: the part version 3 appends to every packet. */
const HINT_PART = Uint8Array.of(0x92, HINT_CODE, 0xa2, 0x76, 0x33);
/** The added ping field's value: msgpack true. */
const PING_FIELD = 0xc3;
/** fixarray headers of a ping as today's codec writes it, and with the added field. */
const PING_HEADER = 0x95;
const PING_WITH_FIELD_HEADER = 0x96;
const PING_CODE = 0;

/**
 * A new next-version codec: one per member, it keeps that member's tally. `oldest` raises the
 * oldest version it speaks (3: a build that dropped versions 1 and 2, to test a refused join).
 */
export function nextVersionCodec(oldest = 1): NextVersionCodec {
  const tally: NextVersionTally = { packetsSent: new Map(), packetsReceived: new Map(), hintsReceived: 0, pingsWithFieldReceived: 0 };
  const count = (map: Map<number, number>, version: number): void => {
    map.set(version, (map.get(version) ?? 0) + 1);
  };

  /** Today's bytes of a version-2 packet, as version 3 writes them. */
  const asVersion3 = (parts: readonly Uint8Array[]): Uint8Array => {
    const v2 = swimCodec.assemblePacket([...parts.map(withPingField), HINT_PART], 2);
    const v3 = Uint8Array.from(v2);
    v3[0] = NEXT_VERSION;
    return v3;
  };

  const assemblePacket = (parts: readonly Uint8Array[], version?: number): Uint8Array => {
    const v = version ?? 1;
    count(tally.packetsSent, v);
    return v === NEXT_VERSION ? asVersion3(parts) : swimCodec.assemblePacket(parts, v);
  };

  const decode = (bytes: Uint8Array, stream: DecodeLimits | undefined): DecodeResult => {
    const version = bytes[0];
    if (version !== undefined && version < oldest) {
      // A refusal reads the same in every version (WireCodec.protocol): only an error reply gets through.
      const refusal = stream === undefined ? undefined : swimCodec.decodeStream(bytes, stream);
      if (refusal?.ok && refusal.messages[0]?.type === 'error') return refusal;
      return { ok: false, error: { code: 'version', detail: `protocol version ${version} is not supported: this member speaks ${oldest}-${NEXT_VERSION}` } };
    }
    if (version !== NEXT_VERSION) {
      const result = stream === undefined ? swimCodec.decodePacket(bytes) : swimCodec.decodeStream(bytes, stream);
      if (result.ok && stream === undefined) count(tally.packetsReceived, result.version ?? 1);
      return result;
    }
    // What version 3 adds, read here; the rest is version 2, which today's decoder reads (skipping
    // the hint and the ping's added field as a later version's).
    try {
      for (const value of unpackMultiple(bytes.subarray(1)) as unknown[]) {
        if (!Array.isArray(value)) continue;
        if (value[0] === HINT_CODE) tally.hintsReceived++;
        if (value[0] === PING_CODE && value.length === 6) tally.pingsWithFieldReceived++;
      }
    } catch {
      // Not msgpack: today's decoder below says why.
    }
    const v2 = Uint8Array.from(bytes);
    v2[0] = 2;
    const result = stream === undefined ? swimCodec.decodePacket(v2) : swimCodec.decodeStream(v2, stream);
    if (!result.ok) return result;
    if (stream === undefined) count(tally.packetsReceived, NEXT_VERSION);
    // The hint is this version's own message: not an unknown one.
    const { skipped: _hints, ...rest } = result;
    return { ...rest, version: NEXT_VERSION };
  };

  return {
    name: 'swim-next',
    protocol: Object.freeze({ min: oldest, max: NEXT_VERSION }),
    packetOverheadBytes: swimCodec.packetOverheadBytes + HINT_PART.length,
    partOverheadBytes: 1,
    maxPartsPerPacket: swimCodec.maxPartsPerPacket - 1,
    minPacketBytes: swimCodec.minPacketBytes + HINT_PART.length + 1,
    tally,
    addressProblem: (address) => swimCodec.addressProblem(address),
    encodeMessage: (message) => swimCodec.encodeMessage(message),
    encodedSize: (message) => swimCodec.encodedSize(message) + (message.type === 'ping' ? 1 : 0),
    partAtVersion: (part, version) => swimCodec.partAtVersion!(part, Math.min(version, 2)),
    assemblePacket,
    encodePacket: (messages, version) => assemblePacket(messages.map((m) => swimCodec.encodeMessage(m)), version),
    decodePacket: (bytes) => decode(bytes, undefined),
    encodeStream(message: Message, version?: number): Uint8Array {
      if (version !== NEXT_VERSION) return swimCodec.encodeStream(message, version);
      const v3 = Uint8Array.from(swimCodec.encodeStream(message, 2));
      v3[0] = NEXT_VERSION;
      return v3;
    },
    decodeStream: (bytes, limits) => decode(bytes, limits),
  };
}

/** A ping part with version 3's added field (a sixth element); any other part as it is. */
function withPingField(part: Uint8Array): Uint8Array {
  if (part[0] !== PING_HEADER || part[1] !== PING_CODE) return part;
  const out = new Uint8Array(part.length + 1);
  out.set(part);
  out[0] = PING_WITH_FIELD_HEADER;
  out[part.length] = PING_FIELD;
  return out;
}
