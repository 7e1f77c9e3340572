/**
 * Go's compress/lzw with LSB-first bit order and 8-bit literals, the format of memberlist's
 * compress message (memberlist compressPayload / decompressPayload). Ported in both directions,
 * byte for byte: the codec runs inside the pure core (no node:zlib, which has no LZW anyway).
 *
 * Codes 0..255 are literals, 256 is clear and 257 is end; codes start 9 bits wide and widen as
 * the table fills, up to 12 bits.
 */

const LIT_WIDTH = 8;
const CLEAR = 1 << LIT_WIDTH;
const EOF = CLEAR + 1;
const MAX_WIDTH = 12;
/** lzw maxCode: the writer emits a clear code when its next code would reach it. */
const MAX_CODE = (1 << MAX_WIDTH) - 1;
const INVALID_CODE = 0xffff;

// --- writer (Go compress/lzw writer.go) ---

const TABLE_SIZE = 4 * (1 << MAX_WIDTH);
const TABLE_MASK = TABLE_SIZE - 1;
/** Go's hash table of (prefix code << 8 | byte) << 12 | code; 0 marks an empty slot. */
const table = new Uint32Array(TABLE_SIZE);

/** `input` compressed exactly as Go's lzw.NewWriter(w, lzw.LSB, 8) writes it, Close included. */
export function lzwCompress(input: Uint8Array): Uint8Array {
  table.fill(0);
  // At most one code per input byte, plus a clear per table fill, the first clear, the last code and end.
  const maxCodes = input.length + Math.ceil(input.length / (MAX_CODE - EOF)) + 3;
  const out = new Uint8Array(Math.ceil((maxCodes * MAX_WIDTH) / 8) + 1);
  let at = 0;
  let bits = 0;
  let nBits = 0;
  let width = LIT_WIDTH + 1;
  let hi = EOF;
  let overflow = 1 << (LIT_WIDTH + 1);

  const write = (code: number): void => {
    bits |= code << nBits;
    nBits += width;
    while (nBits >= 8) {
      out[at++] = bits & 0xff;
      bits >>>= 8;
      nBits -= 8;
    }
  };
  /** Go incHi: true when the table ran out of codes, was cleared and a clear code sent. */
  const incHi = (): boolean => {
    hi++;
    if (hi === overflow) {
      width++;
      overflow <<= 1;
    }
    if (hi === MAX_CODE) {
      write(CLEAR);
      width = LIT_WIDTH + 1;
      hi = EOF;
      overflow = CLEAR << 1;
      table.fill(0);
      return true;
    }
    return false;
  };

  write(CLEAR);
  if (input.length > 0) {
    let code = input[0]!;
    next: for (let i = 1; i < input.length; i++) {
      const literal = input[i]!;
      const key = (code << 8) | literal;
      let hash = ((key >>> 12) ^ key) & TABLE_MASK;
      for (let h = hash, t = table[hash]!; t !== 0; ) {
        if (key === t >>> 12) {
          code = t & MAX_CODE;
          continue next;
        }
        h = (h + 1) & TABLE_MASK;
        t = table[h]!;
      }
      write(code);
      code = literal;
      if (incHi()) continue;
      while (table[hash] !== 0) hash = (hash + 1) & TABLE_MASK;
      table[hash] = ((key << 12) | hi) >>> 0;
    }
    // Close: the pending code, and the counter bump that may widen the end code.
    write(code);
    incHi();
  }
  write(EOF);
  if (nBits > 0) out[at++] = bits & 0xff;
  return out.slice(0, at);
}

// --- reader (Go compress/lzw reader.go) ---

/** What {@link lzwDecompress} made of its input. */
export type LzwResult =
  | {
      /** The input inflated up to its end code. */
      readonly ok: true;
      /** The inflated bytes. */
      readonly bytes: Uint8Array;
    }
  | {
      /** Inflating stopped; nothing is returned. */
      readonly ok: false;
      /**
       * 'too-large': the output would pass `maxOutputBytes`; 'invalid-code': a code not yet in the
       * table; 'truncated': the input ended before the end code.
       */
      readonly reason: 'too-large' | 'invalid-code' | 'truncated';
    };

const prefix = new Uint16Array(1 << MAX_WIDTH);
const suffix = new Uint8Array(1 << MAX_WIDTH);
/** One code's expansion, written backwards from the end (as Go does): at most 4096 bytes. */
const expansion = new Uint8Array((1 << MAX_WIDTH) + 1);

/**
 * `input` inflated, as Go's lzw.NewReader(r, lzw.LSB, 8) read to the end: the end code is
 * required ('truncated' without it) and bytes after it are ignored. Refuses ('too-large') as soon
 * as the output would pass `maxOutputBytes`, so a small bomb costs at most that much work.
 */
export function lzwDecompress(input: Uint8Array, maxOutputBytes: number): LzwResult {
  let out = new Uint8Array(Math.min(maxOutputBytes, Math.max(64, input.length * 4)));
  let o = 0;
  let position = 0;
  let bits = 0;
  let nBits = 0;
  let width = LIT_WIDTH + 1;
  let hi = EOF;
  let overflow = 1 << width;
  let last = INVALID_CODE;

  for (;;) {
    while (nBits < width) {
      if (position >= input.length) return { ok: false, reason: 'truncated' };
      bits |= input[position++]! << nBits;
      nBits += 8;
    }
    const code = bits & ((1 << width) - 1);
    bits >>>= width;
    nBits -= width;

    let start: number;
    let first: number;
    if (code < CLEAR) {
      start = expansion.length - 1;
      expansion[start] = code;
      first = code;
    } else if (code === CLEAR) {
      width = LIT_WIDTH + 1;
      hi = EOF;
      overflow = 1 << width;
      last = INVALID_CODE;
      continue;
    } else if (code === EOF) {
      return { ok: true, bytes: out.slice(0, o) };
    } else if (code <= hi) {
      let c = code;
      let i = expansion.length - 1;
      if (code === hi && last !== INVALID_CODE) {
        // The code being defined: the last expansion followed by its own first byte.
        c = last;
        while (c >= CLEAR) c = prefix[c]!;
        expansion[i--] = c;
        c = last;
      }
      while (c >= CLEAR) {
        expansion[i--] = suffix[c]!;
        c = prefix[c]!;
      }
      expansion[i] = c;
      start = i;
      first = c;
    } else {
      return { ok: false, reason: 'invalid-code' };
    }

    const length = expansion.length - start;
    if (o + length > out.length) {
      if (o + length > maxOutputBytes) return { ok: false, reason: 'too-large' };
      const grown = new Uint8Array(Math.min(maxOutputBytes, Math.max(o + length, out.length * 2)));
      grown.set(out.subarray(0, o));
      out = grown;
    }
    out.set(expansion.subarray(start), o);
    o += length;
    if (last !== INVALID_CODE) {
      suffix[hi] = first;
      prefix[hi] = last;
    }
    last = code;
    hi++;
    if (hi >= overflow) {
      if (width === MAX_WIDTH) {
        // The table is full: no new entries until a clear code.
        last = INVALID_CODE;
        hi--;
      } else {
        width++;
        overflow = 1 << width;
      }
    }
  }
}
