import { EMPTY_BYTES } from '../support/bytes.js';
import { DecodeFailure } from './decode-error.js';
import { decodeCachedUtf8 } from './string-cache.js';

/**
 * A strict reader of the msgpack subset our messages use, over untrusted bytes. It reads what
 * the schema asks for and nothing else, so no input can make it allocate by a length it has not
 * checked against the bytes left, recurse, or build objects from attacker-chosen keys. Every
 * failure throws a {@link DecodeFailure}; `field` names the field for the error detail.
 *
 * Integers are accepted in any msgpack integer width, signed or not, and as floats holding an
 * integer, since standard encoders differ there; the value is then checked against the range.
 */
export class MsgpackReader {
  readonly #bytes: Uint8Array;
  #position: number;
  /**
   * False once a value was read in a form our writer would not use (a wider integer or header
   * than needed, a signed or float integer): the bytes read since it was last set are then not
   * what encoding the decoded values gives back.
   */
  canonical = true;

  constructor(bytes: Uint8Array, start: number) {
    this.#bytes = bytes;
    this.#position = start;
  }

  get atEnd(): boolean {
    return this.#position >= this.#bytes.length;
  }

  get position(): number {
    return this.#position;
  }

  /** Move on to `position` (within the bytes, at or after the current one): past bytes read before. */
  skipTo(position: number): void {
    this.#position = position;
  }

  /** Element count of the array that holds one message. */
  readMessageLength(): number {
    const token = this.#token('message array');
    const count = this.#arrayLength(token, 'message array');
    if (count === undefined) {
      throw new DecodeFailure('malformed', `a message must be a msgpack array, got ${describeToken(token)}`);
    }
    return count;
  }

  /** The type code of a message: any integer; the caller knows which ones exist. */
  readTypeCode(): number {
    const token = this.#token('type');
    if (token < 0x80) return token;
    this.canonical = false;
    const value = this.#readNumberAfter(token, 'type');
    if (value === undefined || !Number.isInteger(value)) {
      throw new DecodeFailure('malformed', `the type code must be an integer, got ${describeToken(token)}`);
    }
    return value;
  }

  /** Element count of an array-valued field. */
  readArrayHeader(field: string): number {
    const token = this.#token(field);
    const count = this.#arrayLength(token, field);
    if (count === undefined) throw invalidField(field, `must be an array, got ${describeToken(token)}`);
    return count;
  }

  /** An integer in [0, max]; `kind` names the range in errors ("a uint32"). */
  readUint(field: string, max: number, kind: string): number {
    const token = this.#token(field);
    let value: number;
    if (token < 0x80) {
      // The common case: a positive fixint is the whole value.
      if (token <= max) return token;
      value = token;
    } else {
      const number = this.#readNumberAfter(token, field);
      if (number === undefined) throw invalidField(field, `must be ${kind}, got ${describeToken(token)}`);
      value = number;
      if (token !== smallestUintToken(value)) this.canonical = false;
    }
    if (!Number.isInteger(value) || value < 0 || value > max) {
      throw invalidField(field, `must be ${kind}, got ${value}`);
    }
    return value;
  }

  readBool(field: string): boolean {
    const token = this.#token(field);
    if (token === 0xc3) return true;
    if (token === 0xc2) return false;
    throw invalidField(field, `must be a boolean, got ${describeToken(token)}`);
  }

  /**
   * True, having read it, when the next value is nil (an optional field a writer left out to write
   * a later one); false, reading nothing, otherwise. Our writer leaves such fields off instead:
   * the bytes are not canonical.
   */
  readNil(): boolean {
    if (this.#bytes[this.#position] !== 0xc0) return false;
    this.#position++;
    this.canonical = false;
    return true;
  }

  /** A str of at most `maxBytes` bytes of well-formed UTF-8. */
  readString(field: string, maxBytes: number): string {
    const token = this.#token(field);
    let length: number;
    if (token >= 0xa0 && token <= 0xbf) length = token & 0x1f;
    else {
      if (token === 0xd9) length = this.#readUint8(field);
      else if (token === 0xda) length = this.#readUint16(field);
      else if (token === 0xdb) length = this.#readUint32(field);
      else throw invalidField(field, `must be a string, got ${describeToken(token)}`);
      if (token !== (length < 0x100 ? (length < 32 ? -1 : 0xd9) : length < 0x10000 ? 0xda : 0xdb)) this.canonical = false;
    }
    if (length > maxBytes) throw invalidField(field, `must be at most ${maxBytes} UTF-8 bytes, got ${length}`);
    const start = this.#take(length, field);
    const text = decodeCachedUtf8(this.#bytes, start, start + length);
    if (text === undefined) throw invalidField(field, 'is not well-formed UTF-8');
    return text;
  }

  /**
   * A bin, copied out: the packet may sit in a buffer the transport reuses, and a member's meta
   * outlives the packet. Empty bins all share EMPTY_BYTES: V8 makes a zero-length typed array
   * about ten times slower than a short one, and most metas and payloads are empty.
   */
  readBin(field: string): Uint8Array {
    const token = this.#token(field);
    let length: number;
    if (token === 0xc4) length = this.#readUint8(field);
    else {
      if (token === 0xc5) length = this.#readUint16(field);
      else if (token === 0xc6) length = this.#readUint32(field);
      else throw invalidField(field, `must be a byte array (bin), got ${describeToken(token)}`);
      if (token !== (length < 0x10000 ? (length < 0x100 ? -1 : 0xc5) : 0xc6)) this.canonical = false;
    }
    if (length === 0) return EMPTY_BYTES;
    const start = this.#take(length, field);
    const copy = new Uint8Array(length);
    const bytes = this.#bytes;
    if (length < 32) {
      for (let i = 0; i < length; i++) copy[i] = bytes[start + i]!;
    } else {
      copy.set(bytes.subarray(start, start + length));
    }
    return copy;
  }

  /**
   * Skip `count` values of any msgpack type: the fields and messages a later version of the wire
   * added, which this one does not know (docs/compatibility.md). Iterative, at most
   * {@link MAX_SKIP_DEPTH} arrays or maps deep, and every length is checked against the bytes left
   * before it is trusted, so skipping costs at most one step per byte. What was skipped is not
   * what our writer would write, so `canonical` turns false.
   */
  skipValues(count: number, field: string): void {
    if (count <= 0) return;
    this.canonical = false;
    // Values still to skip at each open level; the outermost is `count`.
    const pending = [count];
    while (pending.length > 0) {
      const level = pending.length - 1;
      if (pending[level] === 0) {
        pending.pop();
        continue;
      }
      pending[level]!--;
      const nested = this.#skipOne(field);
      if (nested > 0) {
        // pending holds the skipped values' level and one per array or map open inside them.
        if (pending.length > MAX_SKIP_DEPTH) throw new DecodeFailure('malformed', `'${field}' nests more than ${MAX_SKIP_DEPTH} arrays or maps deep`);
        pending.push(nested);
      }
    }
  }

  /** Skip one value's token and its bytes; returns how many values an array or map opened holds (else 0). */
  #skipOne(field: string): number {
    const token = this.#token(field);
    if (token < 0x80 || token >= 0xe0 || token === 0xc0 || token === 0xc2 || token === 0xc3) return 0;
    if (token >= 0xa0 && token <= 0xbf) {
      this.#take(token & 0x1f, field);
      return 0;
    }
    const array = this.#arrayLength(token, field);
    if (array !== undefined) return array;
    if (token >= 0x80 && token <= 0x8f) return this.#mapValues(token & 0x0f, field);
    switch (token) {
      case 0xde:
        return this.#mapValues(this.#readUint16(field), field);
      case 0xdf:
        return this.#mapValues(this.#readUint32(field), field);
      case 0xc4:
      case 0xd9:
        this.#take(this.#readUint8(field), field);
        return 0;
      case 0xc5:
      case 0xda:
        this.#take(this.#readUint16(field), field);
        return 0;
      case 0xc6:
      case 0xdb:
        this.#take(this.#readUint32(field), field);
        return 0;
      case 0xd4:
      case 0xd5:
      case 0xd6:
      case 0xd7:
      case 0xd8:
        // fixext 1, 2, 4, 8, 16: a type byte and 2^(token - 0xd4) bytes.
        this.#take(1 + (1 << (token - 0xd4)), field);
        return 0;
      case 0xc7:
        this.#take(1 + this.#readUint8(field), field);
        return 0;
      case 0xc8:
        this.#take(1 + this.#readUint16(field), field);
        return 0;
      case 0xc9:
        this.#take(1 + this.#readUint32(field), field);
        return 0;
    }
    if (this.#readNumberAfter(token, field) !== undefined) return 0;
    throw new DecodeFailure('malformed', `'${field}' holds ${describeToken(token)}, which is not msgpack`);
  }

  /** A map of `pairs` entries is 2 × pairs values; each takes a byte at least. */
  #mapValues(pairs: number, field: string): number {
    if (pairs * 2 > this.#bytes.length - this.#position) throw truncated(field);
    return pairs * 2;
  }

  #arrayLength(token: number, field: string): number | undefined {
    let count: number;
    if (token >= 0x90 && token <= 0x9f) count = token & 0x0f;
    else {
      if (token === 0xdc) count = this.#readUint16(field);
      else if (token === 0xdd) count = this.#readUint32(field);
      else return undefined;
      if (token !== (count < 0x10000 ? (count < 16 ? -1 : 0xdc) : 0xdd)) this.canonical = false;
    }
    // Every element takes at least one byte: a bigger count cannot be real, whatever it claims.
    if (count > this.#bytes.length - this.#position) throw truncated(field);
    return count;
  }

  /** The numeric value after an integer or float token, or undefined for any other token. */
  #readNumberAfter(token: number, field: string): number | undefined {
    if (token >= 0xe0) return token - 0x100;
    switch (token) {
      case 0xcc:
        return this.#readUint8(field);
      case 0xcd:
        return this.#readUint16(field);
      case 0xce:
        return this.#readUint32(field);
      case 0xcf: {
        const high = this.#readUint32(field);
        return high * 0x1_0000_0000 + this.#readUint32(field);
      }
      case 0xd0:
        return (this.#readUint8(field) << 24) >> 24;
      case 0xd1:
        return (this.#readUint16(field) << 16) >> 16;
      case 0xd2:
        return this.#readUint32(field) | 0;
      case 0xd3: {
        const high = this.#readUint32(field) | 0;
        return high * 0x1_0000_0000 + this.#readUint32(field);
      }
      case 0xca: {
        const start = this.#take(4, field);
        return this.#view().getFloat32(start);
      }
      case 0xcb: {
        const start = this.#take(8, field);
        return this.#view().getFloat64(start);
      }
      default:
        return undefined;
    }
  }

  /** Floats are rare on our wire, so the DataView is made only when one shows up. */
  #view(): DataView {
    return new DataView(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength);
  }

  #token(field: string): number {
    const token = this.#bytes[this.#position];
    if (token === undefined) throw truncated(field);
    this.#position++;
    return token;
  }

  /** Claim `length` bytes and return where they start. */
  #take(length: number, field: string): number {
    const start = this.#position;
    if (length > this.#bytes.length - start) throw truncated(field);
    this.#position = start + length;
    return start;
  }

  #readUint8(field: string): number {
    return this.#bytes[this.#take(1, field)]!;
  }

  #readUint16(field: string): number {
    const at = this.#take(2, field);
    const bytes = this.#bytes;
    return (bytes[at]! << 8) | bytes[at + 1]!;
  }

  #readUint32(field: string): number {
    const at = this.#take(4, field);
    const bytes = this.#bytes;
    return bytes[at]! * 0x100_0000 + ((bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!);
  }
}

/** How deep {@link MsgpackReader.skipValues} follows arrays and maps inside what it skips. */
export const MAX_SKIP_DEPTH = 16;

/** The token our writer uses for a non-negative integer (MsgpackWriter.uint). */
function smallestUintToken(value: number): number {
  if (!Number.isInteger(value) || value < 0) return -1;
  return value < 0x80 ? value : value < 0x100 ? 0xcc : value < 0x10000 ? 0xcd : value <= 0xffff_ffff ? 0xce : 0xcf;
}

function truncated(field: string): DecodeFailure {
  return new DecodeFailure('malformed', `truncated in '${field}'`);
}

function invalidField(field: string, problem: string): DecodeFailure {
  return new DecodeFailure('invalid-field', `field '${field}' ${problem}`);
}

/** The msgpack family of a token, for error details. */
export function describeToken(token: number): string {
  if (token < 0x80 || token >= 0xe0) return 'an integer';
  if (token < 0x90) return 'a map';
  if (token < 0xa0) return 'an array';
  if (token < 0xc0) return 'a string';
  switch (token) {
    case 0xc0:
      return 'nil';
    case 0xc1:
      return 'the reserved byte 0xc1';
    case 0xc2:
    case 0xc3:
      return 'a boolean';
    case 0xc4:
    case 0xc5:
    case 0xc6:
      return 'a byte array (bin)';
    case 0xca:
    case 0xcb:
      return 'a float';
    case 0xd9:
    case 0xda:
    case 0xdb:
      return 'a string';
    case 0xdc:
    case 0xdd:
      return 'an array';
    case 0xde:
    case 0xdf:
      return 'a map';
    default:
      return token >= 0xcc && token <= 0xd3 ? 'an integer' : 'an extension (ext)';
  }
}
