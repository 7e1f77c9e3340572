/**
 * Serf's tags, carried as memberlist node meta: the byte 0xff, then a msgpack map of string to
 * string (serf encodeTags / decodeTags). Written the way Go's go-msgpack 0.5 writes it (keys in
 * bytewise order, strings in the raw-string family: fixstr, str16, str32; maps as fixmap, map16,
 * map32) and read leniently (str8 and bin too, keys in any order, bytes after the map ignored).
 *
 * Pure: no platform API (not even TextEncoder), so it runs wherever the core does. The 512-byte
 * bound on meta (memberlist MetaMaxSize) is the caller's to check on the encoded size.
 */

/** serf tagMagicByte: meta that starts with it holds encoded tags. */
const TAG_MAGIC_BYTE = 0xff;

/** `tags` as Serf encodes them: 0xff + a msgpack map, keys sorted; `{}` is `ff 80`. */
export function encodeTags(tags: Readonly<Record<string, string>>): Uint8Array {
  const entries = Object.entries(tags).map(([key, value]) => [utf8Bytes(key), utf8Bytes(value)] as const);
  // Bytewise order of the UTF-8 keys (what a Go sort of strings gives), not JavaScript's UTF-16 order.
  entries.sort(([a], [b]) => compareBytes(a, b));
  let size = 1 + headerSize(entries.length, 15);
  for (const [key, value] of entries) size += headerSize(key.length, 31) + key.length + headerSize(value.length, 31) + value.length;
  const out = new Uint8Array(size);
  out[0] = TAG_MAGIC_BYTE;
  let at = writeHeader(out, 1, entries.length, 15, 0x80, 0xde);
  for (const [key, value] of entries) {
    at = writeString(out, at, key);
    at = writeString(out, at, value);
  }
  return out;
}

/**
 * The tags in a member's meta, as Serf reads them; never throws. Empty meta, or meta not starting
 * with 0xff, is Serf's legacy form: the whole meta is the tag `role`. A map that does not decode
 * gives the entries read before the problem (Serf logs "Failed to decode tags" and keeps the member).
 */
export function decodeTags(meta: Uint8Array): Record<string, string> {
  if (meta.length === 0 || meta[0] !== TAG_MAGIC_BYTE) return { role: utf8Text(meta, 0, meta.length) };
  const tags: Record<string, string> = {};
  const reader = { bytes: meta, at: 1 };
  const count = readMapCount(reader);
  for (let i = 0; i < count; i++) {
    const key = readString(reader);
    if (key === undefined) break;
    const value = readString(reader);
    if (value === undefined) break;
    // An own property even for '__proto__'; a repeated key keeps its last value, like a Go map.
    Object.defineProperty(tags, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return tags;
}

interface Reader {
  readonly bytes: Uint8Array;
  at: number;
}

/** Entries of the map at the reader (nil reads as an empty map, as Go decodes it); 0 when it is no map. */
function readMapCount(reader: Reader): number {
  const { bytes, at } = reader;
  if (at >= bytes.length) return 0;
  const head = bytes[at]!;
  reader.at = at + 1;
  if (head >= 0x80 && head <= 0x8f) return head & 0x0f;
  if (head === 0xde || head === 0xdf) return readUint(reader, head === 0xde ? 2 : 4) ?? 0;
  return 0;
}

/** A string (str or bin of any width; nil is ''), or undefined when the bytes hold something else or end early. */
function readString(reader: Reader): string | undefined {
  const { bytes } = reader;
  if (reader.at >= bytes.length) return undefined;
  const head = bytes[reader.at++]!;
  let length: number | undefined;
  if (head >= 0xa0 && head <= 0xbf) length = head & 0x1f;
  else if (head === 0xc0) length = 0;
  else if (head === 0xd9 || head === 0xc4) length = readUint(reader, 1);
  else if (head === 0xda || head === 0xc5) length = readUint(reader, 2);
  else if (head === 0xdb || head === 0xc6) length = readUint(reader, 4);
  if (length === undefined || reader.at + length > bytes.length) return undefined;
  const text = utf8Text(bytes, reader.at, reader.at + length);
  reader.at += length;
  return text;
}

function readUint(reader: Reader, width: number): number | undefined {
  const { bytes, at } = reader;
  if (at + width > bytes.length) return undefined;
  let value = 0;
  for (let i = 0; i < width; i++) value = value * 256 + bytes[at + i]!;
  reader.at = at + width;
  return value;
}

/** Bytes of the msgpack header for `count`: the fix form up to `fixMax`, then 16 and 32 bits. */
function headerSize(count: number, fixMax: number): number {
  return count <= fixMax ? 1 : count <= 0xffff ? 3 : 5;
}

/** A map (fixmap 0x80, map16 0xde, map32 0xdf) or raw-string (fixstr 0xa0, str16 0xda, str32 0xdb) header. */
function writeHeader(out: Uint8Array, at: number, count: number, fixMax: number, fix: number, wide16: number): number {
  if (count <= fixMax) {
    out[at] = fix | count;
    return at + 1;
  }
  const width = count <= 0xffff ? 2 : 4;
  out[at] = width === 2 ? wide16 : wide16 + 1;
  for (let i = width; i >= 1; i--) out[at + i] = Math.floor(count / 256 ** (width - i)) & 0xff;
  return at + 1 + width;
}

function writeString(out: Uint8Array, at: number, bytes: Uint8Array): number {
  const start = writeHeader(out, at, bytes.length, 31, 0xa0, 0xda);
  out.set(bytes, start);
  return start + bytes.length;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** UTF-8 of `text`; a lone surrogate becomes U+FFFD, as TextEncoder writes it. */
function utf8Bytes(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff) {
      const low = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (code <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        i++;
      } else {
        code = 0xfffd;
      }
    }
    if (code < 0x80) out.push(code);
    else if (code < 0x800) out.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) out.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else out.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
  }
  return Uint8Array.from(out);
}

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
