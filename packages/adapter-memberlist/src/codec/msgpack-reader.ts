import { decodeUtf8 } from '@swim/core';
import { DecodeFailure, invalidField, malformed } from './decode-failure.js';

/**
 * A strict, bounded msgpack reader over untrusted bytes, for memberlist's messages. Hand-written
 * rather than a library decoder, as the core's own codec is, for three reasons:
 * - Go sends []byte fields (addresses, meta, Vsn, payloads) in the msgpack *str* family, which
 *   general decoders turn into lossy JavaScript strings; here every string is raw bytes until a
 *   field that really is text asks for UTF-8;
 * - memberlist streams hold several values and raw bytes back to back with no outer length, so
 *   the reader must report the offset where a value ends;
 * - it reads only what a field asks for: no length is trusted before it is checked against the
 *   bytes left, nothing recurses, no object is built from the packet's keys.
 *
 * Like Go's decoder it accepts any integer width (signed or not) for a number, str, str8 or bin
 * for bytes and strings, nil for any field (its zero value), keys in any order, and skips values
 * of unknown keys. Every failure throws a {@link DecodeFailure}.
 */
export class MsgpackReader {
  readonly #bytes: Uint8Array;
  readonly #end: number;
  #position: number;
  /** The length of the string #stringSpan last claimed (no tuple allocated per field). */
  #spanLength = 0;

  constructor(bytes: Uint8Array, start: number, end = bytes.length) {
    this.#bytes = bytes;
    this.#position = start;
    this.#end = end;
  }

  /** Where the next value starts: after a message, where the next one (or its raw bytes) begins. */
  get position(): number {
    return this.#position;
  }

  get remaining(): number {
    return this.#end - this.#position;
  }

  /** Entries of the map that holds a struct; nil is an empty struct (Go leaves the zero value). */
  mapHeader(what: string): number {
    // Each entry takes at least two bytes: a bigger count cannot be real.
    return this.#header(what, 'map', 0x80, 0xde, 2);
  }

  /** Elements of an array (Go slice); nil is an empty slice. */
  arrayHeader(what: string): number {
    // Each element takes at least one byte: a bigger count cannot be real.
    return this.#header(what, 'array', 0x90, 0xdc, 1);
  }

  /**
   * A map key, as text when it may be one of our field names (short ASCII), else '' (skipped as
   * unknown). go-msgpack matches struct fields by exact name.
   */
  key(): string {
    const start = this.#stringSpan('map key');
    const length = this.#spanLength;
    if (length === 0 || length > 16) return '';
    let name = '';
    for (let i = start; i < start + length; i++) {
      const byte = this.#bytes[i]!;
      if (byte >= 0x80) return '';
      name += String.fromCharCode(byte);
    }
    return name;
  }

  /** An integer in [0, max]; nil is 0. */
  uint(field: string, max: number): number {
    const value = this.#integer(field);
    if (value < 0 || value > max) throw invalidField(field, `must be in 0..${max}, got ${value}`);
    return value;
  }

  bool(field: string): boolean {
    const token = this.#token(field);
    if (token === 0xc3) return true;
    if (token === 0xc2 || token === 0xc0) return false;
    throw invalidField(field, `must be a boolean, got ${describeToken(token)}`);
  }

  /** A Go float64: float64 or float32, or an integer of any width as Go's decoder takes it; nil is 0. */
  float(field: string): number {
    const token = this.#peek(field);
    if (token === 0xcb || token === 0xca) {
      this.#position++;
      const size = token === 0xcb ? 8 : 4;
      const at = this.#take(size, field);
      const view = new DataView(this.#bytes.buffer, this.#bytes.byteOffset + at, size);
      return size === 8 ? view.getFloat64(0) : view.getFloat32(0);
    }
    return this.#integer(field);
  }

  /** Bytes from str, str8 or bin (nil and empty give an empty array), at most `maxBytes`; a copy. */
  bytes(field: string, maxBytes: number): Uint8Array {
    if (this.#peek(field) === 0xc0) {
      this.#position++;
      return EMPTY;
    }
    const start = this.#stringSpan(field);
    const length = this.#spanLength;
    if (length > maxBytes) throw invalidField(field, `must be at most ${maxBytes} bytes, got ${length}`);
    return length === 0 ? EMPTY : this.#bytes.slice(start, start + length);
  }

  /** A Go string: at most `maxBytes` bytes of well-formed UTF-8 (nil is ''). */
  text(field: string, maxBytes: number): string {
    if (this.#peek(field) === 0xc0) {
      this.#position++;
      return '';
    }
    const start = this.#stringSpan(field);
    const length = this.#spanLength;
    if (length > maxBytes) throw invalidField(field, `must be at most ${maxBytes} bytes, got ${length}`);
    const text = decodeUtf8(this.#bytes, start, start + length);
    if (text === undefined) throw invalidField(field, 'is not well-formed UTF-8');
    return text;
  }

  /**
   * Skip one value of any type, nested ones included, without recursion: a count of the values
   * still to skip grows by each container's size, bounded by the bytes left (every value takes at
   * least one byte), so neither depth nor a lying count can cost more than the bytes themselves.
   */
  skip(): void {
    let pending = 1;
    while (pending > 0) {
      pending--;
      const token = this.#token('value');
      if (token <= 0x7f || token >= 0xe0 || token === 0xc0 || token === 0xc2 || token === 0xc3) continue;
      if (token <= 0x8f) pending += 2 * (token & 0x0f);
      else if (token <= 0x9f) pending += token & 0x0f;
      else if (token <= 0xbf) this.#take(token & 0x1f, 'value');
      else
        switch (token) {
          case 0xc4:
          case 0xd9:
            this.#take(this.#uint8('value'), 'value');
            break;
          case 0xc5:
          case 0xda:
            this.#take(this.#uint16('value'), 'value');
            break;
          case 0xc6:
          case 0xdb:
            this.#take(this.#uint32('value'), 'value');
            break;
          case 0xc7:
            this.#take(this.#uint8('value') + 1, 'value');
            break;
          case 0xc8:
            this.#take(this.#uint16('value') + 1, 'value');
            break;
          case 0xc9:
            this.#take(this.#uint32('value') + 1, 'value');
            break;
          case 0xca:
          case 0xcc:
          case 0xcd:
          case 0xce:
          case 0xcf:
          case 0xd0:
          case 0xd1:
          case 0xd2:
          case 0xd3:
          case 0xcb:
            this.#take(NUMBER_BYTES[token - 0xca]!, 'value');
            break;
          case 0xd4:
          case 0xd5:
          case 0xd6:
          case 0xd7:
          case 0xd8:
            this.#take(1 + (1 << (token - 0xd4)), 'value');
            break;
          case 0xdc:
            pending += this.#uint16('value');
            break;
          case 0xdd:
            pending += this.#uint32('value');
            break;
          case 0xde:
            pending += 2 * this.#uint16('value');
            break;
          case 0xdf:
            pending += 2 * this.#uint32('value');
            break;
          default:
            throw malformed(`a value starts with ${describeToken(token)}`);
        }
      if (pending > this.remaining) throw truncated('value');
    }
  }

  /** An integer of any msgpack width (floats are not integers to Go's decoder); nil is 0. */
  #integer(field: string): number {
    const token = this.#token(field);
    if (token <= 0x7f) return token;
    if (token >= 0xe0) return token - 0x100;
    switch (token) {
      case 0xc0:
        return 0;
      case 0xcc:
        return this.#uint8(field);
      case 0xcd:
        return this.#uint16(field);
      case 0xce:
        return this.#uint32(field);
      case 0xcf: {
        const high = this.#uint32(field);
        return high * 0x1_0000_0000 + this.#uint32(field);
      }
      case 0xd0:
        return (this.#uint8(field) << 24) >> 24;
      case 0xd1:
        return (this.#uint16(field) << 16) >> 16;
      case 0xd2:
        return this.#uint32(field) | 0;
      case 0xd3: {
        const high = this.#uint32(field) | 0;
        return high * 0x1_0000_0000 + this.#uint32(field);
      }
      default:
        throw invalidField(field, `must be an integer, got ${describeToken(token)}`);
    }
  }

  /** Where a str, str8 or bin starts, its length left in #spanLength, its bytes claimed. */
  #stringSpan(field: string): number {
    const token = this.#token(field);
    let length: number;
    if (token >= 0xa0 && token <= 0xbf) length = token & 0x1f;
    else if (token === 0xd9 || token === 0xc4) length = this.#uint8(field);
    else if (token === 0xda || token === 0xc5) length = this.#uint16(field);
    else if (token === 0xdb || token === 0xc6) length = this.#uint32(field);
    else throw invalidField(field, `must be a string or bytes, got ${describeToken(token)}`);
    this.#spanLength = length;
    return this.#take(length, field);
  }

  #peek(field: string): number {
    if (this.#position >= this.#end) throw truncated(field);
    return this.#bytes[this.#position]!;
  }

  #token(field: string): number {
    if (this.#position >= this.#end) throw truncated(field);
    return this.#bytes[this.#position++]!;
  }

  /** Claim `length` bytes and return where they start. */
  #take(length: number, field: string): number {
    const start = this.#position;
    if (length > this.#end - start) throw truncated(field);
    this.#position = start + length;
    return start;
  }

  /** A map or array header: fix form `fix`..`fix`+15, 16-bit form `wide16`, 32-bit form after it, or nil (0). */
  #header(what: string, kind: 'map' | 'array', fix: number, wide16: number, minItemBytes: number): number {
    const token = this.#token(what);
    let count: number;
    if (token >= fix && token <= fix + 0x0f) count = token & 0x0f;
    else if (token === wide16) count = this.#uint16(what);
    else if (token === wide16 + 1) count = this.#uint32(what);
    else if (token === 0xc0) return 0;
    else throw malformed(`${what} must be a msgpack ${kind}, got ${describeToken(token)}`);
    if (count * minItemBytes > this.remaining) throw truncated(what);
    return count;
  }

  #uint8(field: string): number {
    return this.#bytes[this.#take(1, field)]!;
  }

  #uint16(field: string): number {
    const at = this.#take(2, field);
    return (this.#bytes[at]! << 8) | this.#bytes[at + 1]!;
  }

  #uint32(field: string): number {
    const at = this.#take(4, field);
    const b = this.#bytes;
    return b[at]! * 0x100_0000 + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!);
  }
}

const EMPTY = new Uint8Array(0);

/** Bytes after the token of float32, float64, uint8..64, int8..64 (tokens 0xca..0xd3). */
const NUMBER_BYTES = [4, 8, 1, 2, 4, 8, 1, 2, 4, 8];

function truncated(what: string): DecodeFailure {
  return malformed(`truncated in '${what}'`);
}

/** The msgpack family of a token, for error details. */
export function describeToken(token: number): string {
  if (token < 0x80 || token >= 0xe0) return 'an integer';
  if (token < 0x90) return 'a map';
  if (token < 0xa0) return 'an array';
  if (token < 0xc0) return 'a string';
  if (token === 0xc0) return 'nil';
  if (token === 0xc1) return 'the reserved byte 0xc1';
  if (token <= 0xc3) return 'a boolean';
  if (token <= 0xc6) return 'bytes (bin)';
  if (token <= 0xc9 || (token >= 0xd4 && token <= 0xd8)) return 'an extension (ext)';
  if (token <= 0xcb) return 'a float';
  if (token <= 0xd3) return 'an integer';
  if (token <= 0xdb) return 'a string';
  if (token <= 0xdd) return 'an array';
  return 'a map';
}
