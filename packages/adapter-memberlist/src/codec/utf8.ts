/**
 * Strict UTF-8 without TextEncoder/TextDecoder, as the core does it: names must survive the trip
 * unchanged, so a lone surrogate does not encode and ill-formed bytes do not decode (no U+FFFD).
 */

/** UTF-8 bytes of `text`, or undefined when it holds a lone surrogate. */
export function utf8Encode(text: string): Uint8Array | undefined {
  const out = new Uint8Array(text.length * 3);
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    let unit = text.charCodeAt(i);
    if (unit < 0x80) {
      out[at++] = unit;
    } else if (unit < 0x800) {
      out[at++] = 0xc0 | (unit >> 6);
      out[at++] = 0x80 | (unit & 0x3f);
    } else if (unit < 0xd800 || unit > 0xdfff) {
      out[at++] = 0xe0 | (unit >> 12);
      out[at++] = 0x80 | ((unit >> 6) & 0x3f);
      out[at++] = 0x80 | (unit & 0x3f);
    } else {
      const low = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (unit > 0xdbff || low < 0xdc00 || low > 0xdfff) return undefined;
      i++;
      unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
      out[at++] = 0xf0 | (unit >> 18);
      out[at++] = 0x80 | ((unit >> 12) & 0x3f);
      out[at++] = 0x80 | ((unit >> 6) & 0x3f);
      out[at++] = 0x80 | (unit & 0x3f);
    }
  }
  return out.subarray(0, at);
}

/** `bytes[start, end)` as text, or undefined when not well-formed UTF-8 (overlong, surrogate, > U+10FFFF, cut). */
export function utf8Decode(bytes: Uint8Array, start: number, end: number): string | undefined {
  let text = '';
  let ascii = start;
  // Runs of ASCII are sliced in one go; names are nearly always ASCII.
  let i = start;
  let codes: number[] | undefined;
  while (i < end) {
    const b0 = bytes[i]!;
    if (b0 < 0x80) {
      i++;
      continue;
    }
    if (i > ascii) text += latin1(bytes, ascii, i);
    codes ??= [];
    codes.length = 0;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      if (i + 1 >= end) return undefined;
      const b1 = bytes[i + 1]!;
      if ((b1 & 0xc0) !== 0x80) return undefined;
      codes.push(((b0 & 0x1f) << 6) | (b1 & 0x3f));
      i += 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      if (i + 2 >= end) return undefined;
      const b1 = bytes[i + 1]!;
      const b2 = bytes[i + 2]!;
      const low = b0 === 0xe0 ? 0xa0 : 0x80;
      const high = b0 === 0xed ? 0x9f : 0xbf;
      if (b1 < low || b1 > high || (b2 & 0xc0) !== 0x80) return undefined;
      codes.push(((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f));
      i += 3;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      if (i + 3 >= end) return undefined;
      const b1 = bytes[i + 1]!;
      const b2 = bytes[i + 2]!;
      const b3 = bytes[i + 3]!;
      const low = b0 === 0xf0 ? 0x90 : 0x80;
      const high = b0 === 0xf4 ? 0x8f : 0xbf;
      if (b1 < low || b1 > high || (b2 & 0xc0) !== 0x80 || (b3 & 0xc0) !== 0x80) return undefined;
      const codePoint = ((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
      codes.push(0xd800 + ((codePoint - 0x10000) >> 10), 0xdc00 + ((codePoint - 0x10000) & 0x3ff));
      i += 4;
    } else {
      return undefined;
    }
    text += String.fromCharCode(...codes);
    ascii = i;
  }
  if (end > ascii) text += latin1(bytes, ascii, end);
  return text;
}

/** Bytes below 0x80 as text, in slices (engines cap the number of call arguments). */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= 32) {
    // Names: a short loop beats a subarray and an apply.
    let text = '';
    for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i]!);
    return text;
  }
  const SLICE = 8192;
  let text = '';
  for (let at = start; at < end; at += SLICE) {
    text += String.fromCharCode.apply(null, bytes.subarray(at, Math.min(end, at + SLICE)) as unknown as number[]);
  }
  return text;
}
