import { malformed, type DecodeFailure } from './decode-failure.js';
import { COMPOUND_HEADER_BYTES, COMPOUND_LENGTH_BYTES, MAX_COMPOUND_PARTS, MSG } from './message-types.js';

/** `[7][count][count × u16 BE length][parts...]` (memberlist makeCompoundMessage). */
export function assembleCompound(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length > MAX_COMPOUND_PARTS) {
    throw new RangeError(`a compound holds at most ${MAX_COMPOUND_PARTS} parts (its count is one byte), got ${parts.length}`);
  }
  let size = COMPOUND_HEADER_BYTES + COMPOUND_LENGTH_BYTES * parts.length;
  for (const part of parts) {
    if (part.length > 0xffff) throw new RangeError(`a compound part is at most 65535 bytes, got ${part.length}`);
    size += part.length;
  }
  const out = new Uint8Array(size);
  out[0] = MSG.compound;
  out[1] = parts.length;
  let at = COMPOUND_HEADER_BYTES;
  for (const part of parts) {
    out[at++] = part.length >>> 8;
    out[at++] = part.length & 0xff;
  }
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export interface CompoundSplit {
  /** [start, end) of each complete part. */
  readonly parts: readonly (readonly [number, number])[];
  /** Parts announced that the bytes end before. */
  readonly truncated: number;
}

/**
 * The parts of a compound whose body (after the type byte) is `bytes[start, end)`, as memberlist
 * decodeCompoundMessage splits it: a missing count or length table fails the whole compound;
 * parts past the end are reported as truncated and the complete leading ones kept; bytes after
 * the last part are ignored.
 */
export function splitCompound(bytes: Uint8Array, start: number, end: number): CompoundSplit | DecodeFailure {
  if (start >= end) return malformed('compound: missing the count byte');
  const count = bytes[start]!;
  let lengthAt = start + 1;
  if (end - lengthAt < COMPOUND_LENGTH_BYTES * count) return malformed(`compound of ${count} parts: truncated length table`);
  let at = lengthAt + COMPOUND_LENGTH_BYTES * count;
  const parts: [number, number][] = [];
  for (let i = 0; i < count; i++) {
    const length = (bytes[lengthAt]! << 8) | bytes[lengthAt + 1]!;
    lengthAt += COMPOUND_LENGTH_BYTES;
    if (end - at < length) return { parts, truncated: count - i };
    parts.push([at, at + length]);
    at += length;
  }
  return { parts, truncated: 0 };
}
