/**
 * `bytes[start, end)` as little-endian 32-bit words into `words` (the last one zero-padded), and a
 * hash of them: four bytes a step, then murmur3's finaliser, so that keys differing in one low bit
 * (names n92 and n93, incarnations 6 and 7) do not share a set. The string cache and the update
 * cache keep these words beside what they cache, and a hit compares words, not characters.
 * Fills (end - start + 3) >> 2 words; `words` must have room for them.
 */
export function hashAsWords(bytes: Uint8Array, start: number, end: number, words: Int32Array): number {
  let hash = end - start;
  let count = 0;
  let i = start;
  for (; i + 4 <= end; i += 4) {
    const word = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    words[count++] = word;
    hash = Math.imul(hash ^ word, 0x9e3779b1);
    hash ^= hash >>> 15;
  }
  if (i < end) {
    let word = 0;
    for (let shift = 0; i < end; i++, shift += 8) word |= bytes[i]! << shift;
    words[count++] = word;
    hash = Math.imul(hash ^ word, 0x9e3779b1);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}
