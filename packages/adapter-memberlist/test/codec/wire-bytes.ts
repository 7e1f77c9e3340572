// Helpers to build memberlist messages by hand in tests: msgpack pieces as Go (or another
// encoder) would write them, and the wrappers around them.
import { compressMessage } from '../../src/codec/compress.js';
import { crc32 } from '../../src/codec/crc32.js';

export const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));
export const hex = (data: Uint8Array): string => Buffer.from(data).toString('hex');
export const concat = (...parts: (Uint8Array | number[])[]): Uint8Array => {
  const all = parts.map((part) => (part instanceof Uint8Array ? part : Uint8Array.from(part)));
  const out = new Uint8Array(all.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of all) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/** A fixstr (or str8 / str16 when asked) of the UTF-8 of `text`. */
export function str(text: string | Uint8Array, form: 'fix' | 'str8' | 'str16' | 'bin8' = 'fix'): Uint8Array {
  const data = typeof text === 'string' ? new Uint8Array(Buffer.from(text, 'utf8')) : text;
  switch (form) {
    case 'fix':
      return concat([0xa0 | data.length], data);
    case 'str8':
      return concat([0xd9, data.length], data);
    case 'str16':
      return concat([0xda, data.length >> 8, data.length & 0xff], data);
    case 'bin8':
      return concat([0xc4, data.length], data);
  }
}

export const fixmap = (count: number): Uint8Array => Uint8Array.of(0x80 | count);
export const uint = (value: number): Uint8Array =>
  value < 0x80 ? Uint8Array.of(value) : value < 0x100 ? Uint8Array.of(0xcc, value) : value < 0x10000 ? Uint8Array.of(0xcd, value >> 8, value & 0xff) : Uint8Array.of(0xce, value >>> 24, (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff);

/** A struct as a map of (key, value bytes) in the given order. */
export function struct(entries: readonly [string, Uint8Array][]): Uint8Array {
  return concat(fixmap(entries.length), ...entries.flatMap(([key, value]) => [str(key), value]));
}

export function withCrc(message: Uint8Array): Uint8Array {
  const sum = crc32(message);
  return concat([12, sum >>> 24, (sum >> 16) & 0xff, (sum >> 8) & 0xff, sum & 0xff], message);
}

export function compound(parts: readonly Uint8Array[], lengths = parts.map((part) => part.length)): Uint8Array {
  return concat([7, lengths.length], ...lengths.map((length) => [length >> 8, length & 0xff]), ...parts);
}

export const compressed = compressMessage;

/** A go-layout alive with the given Vsn bytes (or none). */
export function alive(node: string, vsn: Uint8Array | undefined, ip = [127, 0, 0, 1], port = 7946): Uint8Array {
  const entries: [string, Uint8Array][] = [
    ['Addr', str(Uint8Array.from(ip))],
    ['Incarnation', uint(1)],
    ['Meta', str(bytes('ff80'))],
    ['Node', str(node)],
    ['Port', uint(port)],
  ];
  if (vsn !== undefined) entries.push(['Vsn', str(vsn)]);
  return concat([4], struct(entries));
}

export function ping(node: string, seq = 1): Uint8Array {
  return concat([0], struct([['Node', str(node)], ['SeqNo', uint(seq)]]));
}

export const SERF_VSN_BYTES = bytes('010502020505');
