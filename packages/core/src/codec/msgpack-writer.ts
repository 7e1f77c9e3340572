import { sharedPart } from './shared-parts.js';
import { writeUtf8 } from './utf8.js';

/**
 * Packets are carved from shared slabs of this size, like Node's Buffer pool. V8 allocates a
 * typed array over 64 bytes outside its heap, and one such allocation per packet cost more than
 * encoding the packet (a probe with six updates: 0.3-0.4 M packets/s with an exact-size array
 * each, 1.2 M with slab views).
 */
const SLAB_BYTES = 8 * 1024;

/**
 * Writes the subset of msgpack our messages use. Each output (`begin` ... `finish`) is a view of
 * a slab; later outputs go after it, never over it, so a finished output stays valid for good.
 * Encoding is synchronous and calls no user code, so one writer per module is safe.
 *
 * Numbers are written in their smallest standard form, so the bytes are canonical and any
 * standard msgpack decoder reads them.
 */
export class MsgpackWriter {
  #bytes = new Uint8Array(SLAB_BYTES);
  /** Where the current output starts in `#bytes`. */
  #start = 0;
  /** Where the next byte goes in `#bytes`. */
  #end = 0;

  /** Bytes written to the current output. */
  get length(): number {
    return this.#end - this.#start;
  }

  /** Start a new output, dropping whatever an unfinished one wrote (an encode that threw). */
  begin(): void {
    // A transferred ArrayBuffer is detached (length 0): never write into it again.
    if (this.#bytes.length === 0) this.#newSlab();
    this.#end = this.#start;
  }

  /**
   * The current output, as a view that nothing will write to again. An output bigger than a
   * slab is copied to an exact-size array rather than pinning its oversized buffer.
   */
  finish(): Uint8Array {
    const bytes = this.#bytes;
    if (bytes.length > SLAB_BYTES) {
      const output = bytes.slice(this.#start, this.#end);
      this.#newSlab();
      return output;
    }
    const output = new Uint8Array(bytes.buffer, this.#start, this.#end - this.#start);
    this.#start = this.#end;
    return output;
  }

  /**
   * The current output as an array of its own, for outputs that may be kept for long: a view
   * would pin its whole slab. Its space in the slab is reused.
   */
  finishCopy(): Uint8Array {
    const output = this.#bytes.slice(this.#start, this.#end);
    this.discard();
    return output;
  }

  /**
   * Like {@link finishCopy}, but an output byte for byte equal to an earlier one (an update that
   * several members in this process re-gossip) comes back as that same read-only array
   * (shared-parts.ts). Only for outputs nobody writes to afterwards.
   */
  finishShared(): Uint8Array {
    const part = sharedPart(this.#bytes, this.#start, this.#end);
    this.discard();
    return part;
  }

  /** Drop the current output (it was only measured); an oversized buffer is let go. */
  discard(): void {
    if (this.#bytes.length > SLAB_BYTES) this.#newSlab();
    else this.#end = this.#start;
  }

  byte(value: number): void {
    this.#reserve(1);
    this.#bytes[this.#end++] = value;
  }

  arrayHeader(count: number): void {
    this.#reserve(5);
    const bytes = this.#bytes;
    let at = this.#end;
    if (count < 16) {
      bytes[at++] = 0x90 | count;
    } else if (count < 0x10000) {
      bytes[at++] = 0xdc;
      at = writeUint16(bytes, at, count);
    } else {
      bytes[at++] = 0xdd;
      at = writeUint32(bytes, at, count);
    }
    this.#end = at;
  }

  bool(value: boolean): void {
    this.byte(value ? 0xc3 : 0xc2);
  }

  /** A non-negative safe integer, in the smallest of positive fixint, uint 8/16/32/64. */
  uint(value: number): void {
    this.#reserve(9);
    const bytes = this.#bytes;
    let at = this.#end;
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
    this.#end = at;
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
    const start = this.#end;
    // Guess the header from the unit count (exact for ASCII), move the text if UTF-8 needs more.
    const guessed = strHeaderBytes(units);
    let end = start + guessed;
    // ASCII inline; the general encoder takes over from the first other character.
    let i = 0;
    for (; i < units; i++) {
      const unit = text.charCodeAt(i);
      if (unit >= 0x80) break;
      bytes[end++] = unit;
    }
    if (i < units) {
      end = writeUtf8(text, i, bytes, end);
      if (end < 0) return -1;
    }
    const byteLength = end - start - guessed;
    const header = byteLength === units ? guessed : strHeaderBytes(byteLength);
    if (header !== guessed) bytes.copyWithin(start + header, start + guessed, end);
    if (header === 1) {
      bytes[start] = 0xa0 | byteLength;
    } else if (header === 2) {
      bytes[start] = 0xd9;
      bytes[start + 1] = byteLength;
    } else if (header === 3) {
      bytes[start] = 0xda;
      writeUint16(bytes, start + 1, byteLength);
    } else {
      bytes[start] = 0xdb;
      writeUint32(bytes, start + 1, byteLength);
    }
    this.#end = start + header + byteLength;
    return byteLength;
  }

  /** A msgpack bin (never str, never ext), so every decoder sees raw bytes. */
  bin(value: Uint8Array): void {
    const length = value.length;
    this.#reserve(length + 5);
    const bytes = this.#bytes;
    let at = this.#end;
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
    this.#end = at;
    this.#copy(value);
  }

  /** Encoded messages appended as they are, with room made for all of them at once. */
  rawAll(values: readonly Uint8Array[]): void {
    let total = 0;
    for (let i = 0; i < values.length; i++) total += values[i]!.length;
    this.#reserve(total);
    const bytes = this.#bytes;
    let at = this.#end;
    for (let i = 0; i < values.length; i++) {
      const value = values[i]!;
      bytes.set(value, at);
      at += value.length;
    }
    this.#end = at;
  }

  #copy(value: Uint8Array): void {
    const length = value.length;
    const bytes = this.#bytes;
    const at = this.#end;
    // set() costs about 20 ns whatever the length; a byte loop about 1.5 ns a byte (Node 20), so
    // only the shortest copies are cheaper by hand (a ~30-byte update was 2.5x slower looped).
    if (length < 12) {
      for (let i = 0; i < length; i++) bytes[at + i] = value[i]!;
    } else {
      bytes.set(value, at);
    }
    this.#end = at + length;
  }

  /** Make room for `extra` bytes, moving the current output to a new buffer if needed. */
  #reserve(extra: number): void {
    if (this.#end + extra <= this.#bytes.length) return;
    const written = this.#end - this.#start;
    const needed = written + extra;
    const moved = new Uint8Array(needed <= SLAB_BYTES ? SLAB_BYTES : Math.max(needed, written * 2));
    moved.set(this.#bytes.subarray(this.#start, this.#end));
    this.#bytes = moved;
    this.#start = 0;
    this.#end = written;
  }

  #newSlab(): void {
    this.#bytes = new Uint8Array(SLAB_BYTES);
    this.#start = 0;
    this.#end = 0;
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
