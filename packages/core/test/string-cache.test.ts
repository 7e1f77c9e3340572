import { describe, expect, it } from 'vitest';
import { decodeCachedUtf8 } from '../src/codec/string-cache.js';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The cache only changes how fast a string comes back, never which: through its growth and collisions too. */
describe('decodeCachedUtf8', () => {
  it('returns every one of 60,000 distinct names and addresses right, first and second time (the table grows meanwhile)', () => {
    const texts = Array.from({ length: 30_000 }, (_, i) => [`n${i}`, `n${i}:7946`]).flat();
    // Each seen three times in a row (hits outnumber misses, so the table grows), in two rounds.
    // Wrong answers are collected and checked once: 360,000 expect calls took 7.6 s on a quiet host.
    const wrong: string[] = [];
    for (let round = 0; round < 2; round++) {
      for (const text of texts) {
        const bytes = encode(`xx${text}yy`);
        for (let again = 0; again < 3; again++) {
          const decoded = decodeCachedUtf8(bytes, 2, bytes.length - 2);
          if (decoded !== text) wrong.push(`round ${round}, read ${again + 1}: ${JSON.stringify(text)} came back as ${JSON.stringify(decoded)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('tells apart strings of equal length and hash slot, or equal words but for a zero tail, and decodes non-ASCII and overlong text', () => {
    const texts = ['Aa', 'BB', 'é-name', 'ü', 'x'.repeat(65), 'x'.repeat(64), 'name\u{1F600}', 'ab', 'ab\u0000', 'abcd', 'abcd\u0000', 'member-0001', 'member-0002'];
    for (let round = 0; round < 3; round++) {
      for (const text of texts) {
        const bytes = encode(text);
        expect(decodeCachedUtf8(bytes, 0, bytes.length)).toBe(text);
      }
    }
    expect(decodeCachedUtf8(Uint8Array.of(0xc3), 0, 1)).toBeUndefined();
    expect(decodeCachedUtf8(Uint8Array.of(0x41), 0, 0)).toBe('');
  });
});
