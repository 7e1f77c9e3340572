import { utf8Bytes } from '@swim/core';

/**
 * Writes msgpack the way hashicorp/go-msgpack 0.5 (memberlist's encoder) does, so that our bytes
 * are the bytes a Go peer would send: structs as maps whose keys the caller writes in sorted
 * order, strings and []byte alike in the old raw-string family (fixstr, str16, str32; never str8
 * or bin), nil for a nil []byte, non-negative integers in the smallest unsigned form whatever
 * their Go type.
 */
export class GoMsgpackWriter {
  #bytes: Uint8Array;
  #at = 0;

  constructor(capacity = 256) {
    this.#bytes = new Uint8Array(capacity);
  }

  get length(): number {
    return this.#at;
  }

  /** The bytes written, as an array of their own. */
  finish(): Uint8Array {
    return this.#bytes.slice(0, this.#at);
  }

  byte(value: number): void {
    this.#reserve(1);
    this.#bytes[this.#at++] = value;
  }

  /** A map header; the caller writes the keys in bytewise order, as go-msgpack sorts struct fields. */
  mapHeader(count: number): void {
    this.#header(count, 0x80, 0xde);
  }

  /** An array header (a Go slice; the caller writes a nil slice with {@link nil}). */
  arrayHeader(count: number): void {
    this.#header(count, 0x90, 0xdc);
  }

  /** A Go float64: always float64 `cb`, even for 0.0, as go-msgpack writes it. */
  float64(value: number): void {
    this.#reserve(9);
    this.#bytes[this.#at++] = 0xcb;
    new DataView(this.#bytes.buffer, this.#bytes.byteOffset).setFloat64(this.#at, value);
    this.#at += 8;
  }

  /** A map key: an ASCII field name. */
  key(name: string): void {
    this.#reserve(name.length + 1);
    this.#bytes[this.#at++] = 0xa0 | name.length;
    for (let i = 0; i < name.length; i++) this.#bytes[this.#at++] = name.charCodeAt(i);
  }

  bool(value: boolean): void {
    this.byte(value ? 0xc3 : 0xc2);
  }

  nil(): void {
    this.byte(0xc0);
  }

  /** A non-negative safe integer in the smallest of positive fixint, uint 8/16/32/64. */
  uint(value: number): void {
    this.#reserve(9);
    const bytes = this.#bytes;
    if (value < 0x80) bytes[this.#at++] = value;
    else if (value < 0x100) {
      bytes[this.#at++] = 0xcc;
      bytes[this.#at++] = value;
    } else if (value < 0x10000) {
      bytes[this.#at++] = 0xcd;
      this.#uint16(value);
    } else if (value <= 0xffff_ffff) {
      bytes[this.#at++] = 0xce;
      this.#uint32(value);
    } else {
      bytes[this.#at++] = 0xcf;
      this.#uint32(Math.floor(value / 0x1_0000_0000));
      this.#uint32(value >>> 0);
    }
  }

  /** Bytes as a raw string (go-msgpack writes []byte so); an empty array as nil when `nilWhenEmpty`. */
  rawString(value: Uint8Array, nilWhenEmpty = false): void {
    const length = value.length;
    if (length === 0 && nilWhenEmpty) return this.nil();
    this.#reserve(length + 5);
    const bytes = this.#bytes;
    if (length < 32) bytes[this.#at++] = 0xa0 | length;
    else if (length < 0x10000) {
      bytes[this.#at++] = 0xda;
      this.#uint16(length);
    } else {
      bytes[this.#at++] = 0xdb;
      this.#uint32(length);
    }
    this.raw(value);
  }

  /** A Go string: UTF-8 in the raw-string family. False (nothing written) when `text` holds a lone surrogate. */
  text(text: string): boolean {
    const encoded = utf8Bytes(text);
    if (encoded === undefined) return false;
    this.rawString(encoded);
    return true;
  }

  /** Bytes appended as they are. */
  raw(value: Uint8Array): void {
    this.#reserve(value.length);
    this.#bytes.set(value, this.#at);
    this.#at += value.length;
  }

  /** A map or array header: fix form below 16, else the 16-bit form `wide16` or the 32-bit one after it. */
  #header(count: number, fix: number, wide16: number): void {
    this.#reserve(5);
    if (count < 16) this.#bytes[this.#at++] = fix | count;
    else if (count < 0x10000) {
      this.#bytes[this.#at++] = wide16;
      this.#uint16(count);
    } else {
      this.#bytes[this.#at++] = wide16 + 1;
      this.#uint32(count);
    }
  }

  #uint16(value: number): void {
    this.#bytes[this.#at++] = value >>> 8;
    this.#bytes[this.#at++] = value & 0xff;
  }

  #uint32(value: number): void {
    const bytes = this.#bytes;
    bytes[this.#at++] = value >>> 24;
    bytes[this.#at++] = (value >>> 16) & 0xff;
    bytes[this.#at++] = (value >>> 8) & 0xff;
    bytes[this.#at++] = value & 0xff;
  }

  #reserve(extra: number): void {
    if (this.#at + extra <= this.#bytes.length) return;
    const grown = new Uint8Array(Math.max(this.#at + extra, this.#bytes.length * 2));
    grown.set(this.#bytes.subarray(0, this.#at));
    this.#bytes = grown;
  }
}
