/**
 * Protocol versions of @swim's own wire, and how members tell each other which they speak
 * (docs/compatibility.md). memberlist does the same with the `Vsn` bytes of its alive messages and
 * push-pull entries ([pmin, pmax, pcur, ...], state.go aliveNode and net.go verifyProtocol); here
 * the range travels in three places:
 * - as two trailing fields `[min, max]` of alive messages and push-pull entries, written only at
 *   version 2 and above (0.1.0's decoder drops a message with fields it does not know);
 * - as the payload of a direct ack, `[min, max]` as msgpack, which 0.1.0 reads and ignores: the
 *   channel that tells members of a cluster still speaking version 1 that they can move up;
 * - as the version byte that opens every packet and stream payload: what it was written in.
 */

/** The protocol versions a member speaks: integers, 1 ≤ min ≤ max ≤ 255. */
export interface ProtocolRange {
  /** The oldest version it can still speak. */
  readonly min: number;
  /** The newest version it speaks. */
  readonly max: number;
}

/**
 * The versions this release speaks:
 * - 1: the wire of 0.1.0 (no ranges in alive messages or push-pull entries);
 * - 2: version 1, with ranges in alive messages and push-pull entries.
 */
export const SWIM_PROTOCOL: ProtocolRange = Object.freeze({ min: 1, max: 2 });

/** The first version whose alive messages and push-pull entries carry the sender's range. */
export const RANGE_FIELDS_VERSION = 2;

/** The highest version byte a protocol range may name (one byte on the wire). */
export const MAX_PROTOCOL_VERSION = 255;

/** Why `range` is not a protocol range; undefined when it is. */
export function protocolRangeProblem(range: ProtocolRange): string | undefined {
  const { min, max } = range;
  if (!Number.isInteger(min) || min < 1 || min > MAX_PROTOCOL_VERSION) return `min must be an integer from 1 to ${MAX_PROTOCOL_VERSION}, got ${String(min)}`;
  if (!Number.isInteger(max) || max < min || max > MAX_PROTOCOL_VERSION) return `max must be an integer from min (${min}) to ${MAX_PROTOCOL_VERSION}, got ${String(max)}`;
  return undefined;
}

/** Whether two ranges share a version. */
export function rangesOverlap(a: ProtocolRange, b: ProtocolRange): boolean {
  return a.min <= b.max && b.min <= a.max;
}

/** "1-2", or "3" for a range of one version: how errors and logs name a range. */
export function describeRange(range: ProtocolRange): string {
  return range.min === range.max ? `${range.min}` : `${range.min}-${range.max}`;
}

/**
 * A direct ack's payload carrying `range`: the msgpack array `[min, max]`. A later version may
 * append elements; {@link decodeRangePayload} reads the first two.
 */
export function encodeRangePayload(range: ProtocolRange): Uint8Array {
  // Versions up to 127 are positive fixints: 0x92 (fixarray of 2), min, max.
  if (range.max <= 0x7f) return Uint8Array.of(0x92, range.min, range.max);
  return Uint8Array.of(0x92, 0xcc, range.min, 0xcc, range.max);
}

/**
 * The range a direct ack's payload announces; undefined when it announces none (an empty payload:
 * a member of 0.1.0, which speaks version 1 only) or bytes that are no range (ignored, as 0.1.0
 * ignores every payload). Reads a msgpack array of at least two uint8s, nothing more.
 */
export function decodeRangePayload(payload: Uint8Array): ProtocolRange | undefined {
  const head = payload[0];
  if (head === undefined || head < 0x92 || head > 0x9f) return undefined;
  let at = 1;
  const read = (): number => {
    const token = payload[at];
    if (token === undefined) return -1;
    if (token <= 0x7f) {
      at += 1;
      return token;
    }
    if (token === 0xcc && at + 1 < payload.length) {
      at += 2;
      return payload[at - 1]!;
    }
    return -1;
  };
  const min = read();
  const max = read();
  if (min < 0 || max < 0) return undefined;
  const range = { min, max };
  return protocolRangeProblem(range) === undefined ? range : undefined;
}
