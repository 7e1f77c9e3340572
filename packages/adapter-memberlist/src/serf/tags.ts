/**
 * Serf's tags, carried as memberlist node meta: the byte 0xff, then a msgpack map of string to
 * string (serf encodeTags / decodeTags). Written by the codec's GoMsgpackWriter, as Go's
 * go-msgpack 0.5 writes it (keys in bytewise order, strings in the raw-string family), and read
 * leniently (str8 and bin too, keys in any order, bytes after the map ignored, a map that breaks
 * off keeps what came before).
 *
 * Pure: no platform API (not even TextEncoder), so it runs wherever the core does. The 512-byte
 * bound on meta (memberlist MetaMaxSize) is the caller's to check on the encoded size.
 */

import { utf8Bytes } from '@swim/core';
import { DecodeFailure } from '../codec/decode-failure.js';
import { GoMsgpackWriter } from '../codec/go-msgpack-writer.js';
import { MsgpackReader } from '../codec/msgpack-reader.js';

/** serf tagMagicByte: meta that starts with it holds encoded tags. */
const TAG_MAGIC_BYTE = 0xff;

/** `tags` as Serf encodes them: 0xff + a msgpack map, keys sorted; `{}` is `ff 80`. */
export function encodeTags(tags: Readonly<Record<string, string>>): Uint8Array {
  const entries = Object.entries(tags).map(([key, value]) => [wellFormedUtf8(key), wellFormedUtf8(value)] as const);
  // Bytewise order of the UTF-8 keys (what a Go sort of strings gives), not JavaScript's UTF-16 order.
  entries.sort(([a], [b]) => compareBytes(a, b));
  const w = new GoMsgpackWriter();
  w.byte(TAG_MAGIC_BYTE);
  w.mapHeader(entries.length);
  for (const [key, value] of entries) {
    w.rawString(key);
    w.rawString(value);
  }
  return w.finish();
}

/**
 * The tags in a member's meta, as Serf reads them; never throws. Empty meta, or meta not starting
 * with 0xff, is Serf's legacy form: the whole meta is the tag `role`. A map that does not decode
 * gives the entries read before the problem (Serf logs "Failed to decode tags" and keeps the member).
 */
export function decodeTags(meta: Uint8Array): Record<string, string> {
  if (meta.length === 0 || meta[0] !== TAG_MAGIC_BYTE) return { role: utf8Text(meta, 0, meta.length) };
  const tags: Record<string, string> = {};
  const { count, start } = mapHeader(meta, 1);
  const reader = new MsgpackReader(meta, start);
  try {
    for (let i = 0; i < count; i++) {
      const key = reader.bytes('tag', meta.length);
      const value = reader.bytes('tag', meta.length);
      // An own property even for '__proto__'; a repeated key keeps its last value, like a Go map.
      Object.defineProperty(tags, utf8Text(key, 0, key.length), {
        value: utf8Text(value, 0, value.length),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  } catch (failure) {
    // A value that is no string, or bytes that end early: the entries before it stand.
    if (!(failure instanceof DecodeFailure)) throw failure;
  }
  return tags;
}

/**
 * The entry count of the map at `at` (nil or anything but a map: none) and where its entries
 * start. Unlike MsgpackReader.mapHeader, a count larger than the bytes could hold is taken as it
 * is: entries are read until they run out.
 */
function mapHeader(bytes: Uint8Array, at: number): { count: number; start: number } {
  const head = bytes[at];
  if (head === undefined) return { count: 0, start: at };
  if (head >= 0x80 && head <= 0x8f) return { count: head & 0x0f, start: at + 1 };
  const width = head === 0xde ? 2 : head === 0xdf ? 4 : 0;
  if (width === 0 || at + 1 + width > bytes.length) return { count: 0, start: at + 1 };
  let count = 0;
  for (let i = 1; i <= width; i++) count = count * 256 + bytes[at + i]!;
  return { count, start: at + 1 + width };
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** UTF-8 of `text` as TextEncoder writes it: a lone surrogate becomes U+FFFD. */
function wellFormedUtf8(text: string): Uint8Array {
  return utf8Bytes(text) ?? utf8Bytes(text.replace(LONE_SURROGATE, '\ufffd'))!;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `bytes[start, end)` as text; each ill-formed sequence (its longest valid prefix) becomes one
 * U+FFFD, as TextDecoder does. Go keeps such bytes in its strings; we cannot, so they show as U+FFFD.
 */
function utf8Text(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  let i = start;
  while (i < end) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      text += String.fromCharCode(lead);
      i++;
      continue;
    }
    // Continuation bytes needed, and the range of the first one (no overlong forms, surrogates or code points past U+10FFFF).
    const [needed, low, high] =
      lead >= 0xc2 && lead <= 0xdf ? [1, 0x80, 0xbf]
      : lead === 0xe0 ? [2, 0xa0, 0xbf]
      : lead === 0xed ? [2, 0x80, 0x9f]
      : lead >= 0xe1 && lead <= 0xef ? [2, 0x80, 0xbf]
      : lead === 0xf0 ? [3, 0x90, 0xbf]
      : lead === 0xf4 ? [3, 0x80, 0x8f]
      : lead >= 0xf1 && lead <= 0xf3 ? [3, 0x80, 0xbf]
      : [0, 0, 0];
    let code = needed === 1 ? lead & 0x1f : needed === 2 ? lead & 0x0f : lead & 0x07;
    let taken = 1;
    while (needed > 0 && taken <= needed && i + taken < end) {
      const next = bytes[i + taken]!;
      if (taken === 1 ? next < low || next > high : (next & 0xc0) !== 0x80) break;
      code = (code << 6) | (next & 0x3f);
      taken++;
    }
    if (needed === 0 || taken <= needed) {
      text += '\ufffd';
      i += taken;
      continue;
    }
    text += String.fromCodePoint(code);
    i += taken;
  }
  return text;
}
