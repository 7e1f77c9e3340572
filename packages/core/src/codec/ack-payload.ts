import type { Coordinate } from '../coordinates/coordinate.js';
import { decodeRangePayload, encodeRangePayload, type ProtocolRange } from './protocol-range.js';

/**
 * What we tell a member that pinged us, in the payload of our direct ack (memberlist
 * PingDelegate.AckPayload): the protocol versions we speak, on @swim's wire, and our network
 * coordinate when coordinates are on (Serf's ping delegate).
 */
export interface AckPayload {
  /** Our protocol range; only a codec with @swim's versions carries it. */
  readonly protocol?: ProtocolRange;
  /** Our Vivaldi coordinate; absent when coordinates are off. */
  readonly coordinate?: Coordinate;
}

/** What a direct ack's payload said; a codec reads it without judging the coordinate (VivaldiClient does). */
export interface AckPayloadContent {
  /** The range the payload announces; undefined when none (a member of 0.1.0, memberlist's wire). */
  readonly protocol?: ProtocolRange;
  /** The coordinate it carries, as read: any numbers, any dimensionality. */
  readonly coordinate?: Coordinate;
  /** The payload claims to carry a coordinate we cannot read (truncated, wrong types, another version). */
  readonly unreadableCoordinate?: boolean;
}

/** Elements of a coordinate array besides `vec`: error, adjustment, height. */
const SCALARS = 3;
/** The most `vec` components we read (the Vivaldi config's dimensionality is at most 64). */
const MAX_DIMENSIONS = 64;

/**
 * @swim's direct ack payload: the msgpack array `[min, max]` (protocol-range.ts), and with a
 * coordinate a third element, the array `[vec..., error, adjustment, height]` of float64s
 * (docs/compatibility.md). Members before coordinates read the first two elements and ignore the
 * rest; 0.1.0 ignores the payload.
 */
export function encodeSwimAckPayload(payload: AckPayload): Uint8Array {
  const range = payload.protocol === undefined ? undefined : encodeRangePayload(payload.protocol);
  const coordinate = payload.coordinate;
  if (coordinate === undefined || range === undefined) return range ?? new Uint8Array(0);
  const count = coordinate.vec.length + SCALARS;
  const header = count <= 15 ? 1 : 3;
  const bytes = new Uint8Array(range.length + header + 9 * count);
  bytes.set(range);
  bytes[0] = 0x93; // [min, max] becomes [min, max, coordinate]
  let at = range.length;
  if (header === 1) bytes[at++] = 0x90 | count;
  else {
    bytes[at++] = 0xdc;
    bytes[at++] = count >>> 8;
    bytes[at++] = count & 0xff;
  }
  const view = new DataView(bytes.buffer);
  const write = (value: number) => {
    bytes[at] = 0xcb;
    view.setFloat64(at + 1, value);
    at += 9;
  };
  for (const v of coordinate.vec) write(v);
  write(coordinate.error);
  write(coordinate.adjustment);
  write(coordinate.height);
  return bytes;
}

/** Reads what {@link encodeSwimAckPayload} writes, and whatever else arrives; never throws. */
export function decodeSwimAckPayload(payload: Uint8Array): AckPayloadContent {
  const protocol = decodeRangePayload(payload);
  const head = payload[0];
  if (protocol === undefined || head === undefined || head < 0x93 || head > 0x9f) return protocol === undefined ? {} : { protocol };
  const coordinate = readCoordinateArray(payload, rangeBytes(payload));
  return coordinate === undefined ? { protocol, unreadableCoordinate: true } : { protocol, coordinate };
}

/** Bytes of the array header and the two range elements (decodeRangePayload accepted them). */
function rangeBytes(payload: Uint8Array): number {
  let at = 1;
  for (let i = 0; i < 2; i++) at += payload[at] === 0xcc ? 2 : 1;
  return at;
}

function readCoordinateArray(bytes: Uint8Array, start: number): Coordinate | undefined {
  let at = start;
  const head = bytes[at++];
  let count: number;
  if (head === undefined) return undefined;
  if (head >= 0x90 && head <= 0x9f) count = head & 0x0f;
  else if (head === 0xdc && at + 2 <= bytes.length) {
    count = (bytes[at]! << 8) | bytes[at + 1]!;
    at += 2;
  } else return undefined;
  if (count <= SCALARS || count > MAX_DIMENSIONS + SCALARS) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values: number[] = [];
  for (let i = 0; i < count; i++) {
    const token = bytes[at];
    if (token === 0xcb && at + 9 <= bytes.length) {
      values.push(view.getFloat64(at + 1));
      at += 9;
    } else if (token === 0xca && at + 5 <= bytes.length) {
      values.push(view.getFloat32(at + 1));
      at += 5;
    } else return undefined;
  }
  const [error, adjustment, height] = values.splice(count - SCALARS, SCALARS) as [number, number, number];
  return Object.freeze({ vec: Object.freeze(values), error, adjustment, height });
}
