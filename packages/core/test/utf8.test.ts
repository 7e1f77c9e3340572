import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8, utf8Bytes } from '../src/index.js';

/** Strings whose surrogates all come in pairs (what TextEncoder writes unchanged). */
const wellFormed = fc.string({ unit: 'binary', maxLength: 60 });

describe('utf8Bytes and decodeUtf8: the strict UTF-8 other codecs share', () => {
  it('utf8Bytes writes what TextEncoder writes, in an array of exactly that size', () => {
    fc.assert(
      fc.property(wellFormed, (text) => {
        const bytes = utf8Bytes(text);
        expect(bytes).toEqual(new TextEncoder().encode(text));
        expect(bytes!.buffer.byteLength).toBe(bytes!.length);
        expect(decodeUtf8(bytes!, 0, bytes!.length)).toBe(text);
      }),
    );
  });

  it('a lone surrogate does not encode (no silent U+FFFD)', () => {
    for (const text of ['\ud800', 'a\udc00', 'x\ud83dy', '\ud83d\ude00\ud83d']) expect(utf8Bytes(text)).toBeUndefined();
    expect(utf8Bytes('\ud83d\ude00')).toEqual(Uint8Array.of(0xf0, 0x9f, 0x98, 0x80));
  });
});
