/**
 * UTF-8 without TextEncoder/TextDecoder: the core compiles against ES2022 only, and hand-written
 * loops beat a native call for the short names that fill our packets. Both directions are
 * strict: lone surrogates cannot be encoded and ill-formed bytes do not decode, so a name never
 * silently turns into U+FFFD on the way.
 */

import { utf8ByteLength } from '../support/bytes.js';

const fromCharCode = String.fromCharCode;

/**
 * Write `text` from its unit `from` on as UTF-8 into `target` at `at` and return the position
 * after it, or -1 when the text holds a lone surrogate. `target` must have room for the UTF-8
 * written (three bytes per unit always suffice).
 */
export function writeUtf8(text: string, from: number, target: Uint8Array, at: number): number {
  const length = text.length;
  let position = at;
  for (let i = from; i < length; i++) {
    let unit = text.charCodeAt(i);
    if (unit < 0x80) {
      target[position++] = unit;
    } else if (unit < 0x800) {
      target[position++] = 0xc0 | (unit >> 6);
      target[position++] = 0x80 | (unit & 0x3f);
    } else if (unit < 0xd800 || unit > 0xdfff) {
      target[position++] = 0xe0 | (unit >> 12);
      target[position++] = 0x80 | ((unit >> 6) & 0x3f);
      target[position++] = 0x80 | (unit & 0x3f);
    } else {
      const low = i + 1 < length ? text.charCodeAt(i + 1) : 0;
      if (unit > 0xdbff || low < 0xdc00 || low > 0xdfff) return -1;
      i++;
      unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
      target[position++] = 0xf0 | (unit >> 18);
      target[position++] = 0x80 | ((unit >> 12) & 0x3f);
      target[position++] = 0x80 | ((unit >> 6) & 0x3f);
      target[position++] = 0x80 | (unit & 0x3f);
    }
  }
  return position;
}

/** `text` as UTF-8 in an array of its own, or undefined when it holds a lone surrogate. */
export function utf8Bytes(text: string): Uint8Array | undefined {
  const bytes = new Uint8Array(utf8ByteLength(text));
  return writeUtf8(text, 0, bytes, 0) < 0 ? undefined : bytes;
}

/** Code units of the string being decoded; reused so a decode allocates only its result. */
const units: number[] = [];

/**
 * Decode `bytes[start, end)` as UTF-8, or return undefined when they are not well-formed UTF-8
 * (overlong forms, surrogates, code points above U+10FFFF, cut sequences). The caller has
 * checked that `end <= bytes.length`. The result is a flat string (built by one fromCharCode
 * call, not by concatenation), cheap to hash when it becomes a map key.
 */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string | undefined {
  let count = 0;
  let i = start;
  while (i < end) {
    const b0 = bytes[i]!;
    if (b0 < 0x80) {
      units[count++] = b0;
      i += 1;
    } else if (b0 >= 0xc2 && b0 <= 0xdf) {
      if (i + 1 >= end) return undefined;
      const b1 = bytes[i + 1]!;
      if ((b1 & 0xc0) !== 0x80) return undefined;
      units[count++] = ((b0 & 0x1f) << 6) | (b1 & 0x3f);
      i += 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      if (i + 2 >= end) return undefined;
      const b1 = bytes[i + 1]!;
      const b2 = bytes[i + 2]!;
      // E0 needs A0..BF (no overlong form); ED needs 80..9F (no surrogates).
      const low = b0 === 0xe0 ? 0xa0 : 0x80;
      const high = b0 === 0xed ? 0x9f : 0xbf;
      if (b1 < low || b1 > high || (b2 & 0xc0) !== 0x80) return undefined;
      units[count++] = ((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f);
      i += 3;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      if (i + 3 >= end) return undefined;
      const b1 = bytes[i + 1]!;
      const b2 = bytes[i + 2]!;
      const b3 = bytes[i + 3]!;
      // F0 needs 90..BF (no overlong form); F4 needs 80..8F (nothing above U+10FFFF).
      const low = b0 === 0xf0 ? 0x90 : 0x80;
      const high = b0 === 0xf4 ? 0x8f : 0xbf;
      if (b1 < low || b1 > high || (b2 & 0xc0) !== 0x80 || (b3 & 0xc0) !== 0x80) return undefined;
      const codePoint = ((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
      units[count++] = 0xd800 + ((codePoint - 0x10000) >> 10);
      units[count++] = 0xdc00 + ((codePoint - 0x10000) & 0x3ff);
      i += 4;
    } else {
      return undefined;
    }
  }
  units.length = count;
  return unitsToString(units);
}

/** fromCharCode.apply in slices: engines cap the number of call arguments. */
function unitsToString(codes: number[]): string {
  const SLICE = 8192;
  if (codes.length <= SLICE) return fromCharCode.apply(null, codes);
  let text = '';
  for (let i = 0; i < codes.length; i += SLICE) text += fromCharCode.apply(null, codes.slice(i, i + SLICE));
  return text;
}
