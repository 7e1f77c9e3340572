import { writeUtf8 } from './utf8.js';

const INITIAL_BYTES = 2048;
/** A scratch buffer grown past this (a big push-pull) is dropped after use instead of kept. */
const RETAINED_BYTES_LIMIT = 64 * 1024;

/**
 * The subset of msgpack our messages use, written into one growable scratch buffer that is
 * reused across encodes; `copyOut` hands out an independent copy. Encoding is synchronous and
 * calls no user code, so one scratch buffer per module is safe.
 *
 * Numbers are written in their smallest standard form, so the bytes are canonical and any
 * standard msgpack decoder reads them.
 */
export class MsgpackWriter {
  #bytes = new Uint8Array(INITIAL_BYTES);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  reset(): void {
    this.#length = 0;
  }

  /** A fresh Uint8Array holding everything written since the last reset. */
  copyOut(): Uint8Array {
    const copy = this.#bytes.slice(0, this.#length);
    if (this.#bytes.length > RETAINED_BYTES_LIMIT) this.#bytes = new Uint8Array(INITIAL_BYTES);
    this.#length = 0;
    return copy;
  }

  /** Give back a scratch buffer that grew large, without copying anything out. */
  release(): void {
    if (this.#bytes.length > RETAINED_BYTES_LIMIT) this.#bytes = new Uint8Array(INITIAL_BYTES);
    this.#length = 0;
  }

  byte(value: number): void {
    this.#reserve(1);
    this.#bytes[this.#length++] = value;
  }

  arrayHeader(count: number): void {
    this.#reserve(5);
    const bytes = this.#bytes;
    let at = this.#length;
    if (count < 16) {
      bytes[at++] = 0x90 | count;
    } else if (count < 0x10000) {
      bytes[at++] = 0xdc;
      at = writeUint16(bytes, at, count);
    } else {
      bytes[at++] = 0xdd;
      at = writeUint32(bytes, at, count);
    }
    this.#length = at;
  }

  bool(value: boolean): void {
    this.byte(value ? 0xc3 : 0xc2);
  }

  /** A non-negative safe integer, in the smallest of positive fixint, uint 8/16/32/64. */
  uint(value: number): void {
    this.#reserve(9);
    const bytes = this.#bytes;
    let at = this.#length;
    if (value < 0x80) {
      bytes[at++] = value;
    } else if (value < 0x100) {
      bytes[at++] = 0xcc;
      bytes[at++] = value;
    } else if (value < 0x10000) {
      bytes[at++] = 0xcd;
      at = writeUint16(bytes, at, value);
    } else if (value <= 0xffff_ffff) {
      bytes[at++] = 0xce;
      at = writeUint32(bytes, at, value);
    } else {
      bytes[at++] = 0xcf;
      at = writeUint32(bytes, at, Math.floor(value / 0x1_0000_0000));
      at = writeUint32(bytes, at, value >>> 0);
    }
    this.#length = at;
  }

  /**
   * A msgpack str. Returns its UTF-8 byte length, or -1 (writing nothing) when the text holds a
   * lone surrogate.
   */
  str(text: string): number {
    const units = text.length;
    // Room for the worst case: three bytes per UTF-16 unit and the largest header.
    this.#reserve(units * 3 + 5);
    const bytes = this.#bytes;
    const start = this.#length;
    // Guess the header from the unit count (exact for ASCII), move the text if UTF-8 needs more.
    const guessed = strHeaderBytes(units);
    const end = writeUtf8(text, bytes, start + guessed);
    if (end < 0) return -1;
    const byteLength = end - start - guessed;
    const header = strHeaderBytes(byteLength);
    if (header !== guessed) bytes.copyWithin(start + header, start + guessed, end);
    let at = start;
    if (header === 1) {
      bytes[at] = 0xa0 | byteLength;
    } else if (header === 2) {
      bytes[at++] = 0xd9;
      bytes[at] = byteLength;
    } else if (header === 3) {
      bytes[at++] = 0xda;
      writeUint16(bytes, at, byteLength);
    } else {
      bytes[at++] = 0xdb;
      writeUint32(bytes, at, byteLength);
    }
    this.#length = start + header + byteLength;
    return byteLength;
  }

  /** A msgpack bin (never str, never ext), so every decoder sees raw bytes. */
  bin(value: Uint8Array): void {
    const length = value.length;
    this.#reserve(length + 5);
    const bytes = this.#bytes;
    let at = this.#length;
    if (length < 0x100) {
      bytes[at++] = 0xc4;
      bytes[at++] = length;
    } else if (length < 0x10000) {
      bytes[at++] = 0xc5;
      at = writeUint16(bytes, at, length);
    } else {
      bytes[at++] = 0xc6;
      at = writeUint32(bytes, at, length);
    }
    // A call to set() costs more than a short loop.
    if (length < 32) {
      for (let i = 0; i < length; i++) bytes[at + i] = value[i]!;
    } else {
      bytes.set(value, at);
    }
    this.#length = at + length;
  }

  #reserve(extra: number): void {
    const needed = this.#length + extra;
    if (needed <= this.#bytes.length) return;
    const grown = new Uint8Array(Math.max(needed, this.#bytes.length * 2));
    grown.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = grown;
  }
}

function strHeaderBytes(byteLength: number): number {
  return byteLength < 32 ? 1 : byteLength < 0x100 ? 2 : byteLength < 0x10000 ? 3 : 5;
}

function writeUint16(bytes: Uint8Array, at: number, value: number): number {
  bytes[at] = value >>> 8;
  bytes[at + 1] = value;
  return at + 2;
}

function writeUint32(bytes: Uint8Array, at: number, value: number): number {
  bytes[at] = value >>> 24;
  bytes[at + 1] = value >>> 16;
  bytes[at + 2] = value >>> 8;
  bytes[at + 3] = value;
  return at + 4;
}
