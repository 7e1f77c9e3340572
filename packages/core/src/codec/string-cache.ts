import { decodeUtf8 } from './utf8.js';

/** Strings up to this many bytes are cached: node names and addresses, not payload-like text. */
const MAX_CACHED_BYTES = 64;
/** Slots at first and at most (powers of two). At most ~10 MiB of strings, whatever arrives. */
const FIRST_SLOTS = 1024;
const MAX_SLOTS = 1 << 17;

/**
 * Two-way set-associative: a string lives in slot `hash & mask` or its neighbour `^ 1`. Only
 * ASCII strings are kept, so a hit compares the cached string's units with the bytes directly
 * (no copy of the key bytes is kept). The table doubles each time it has missed twice as often as
 * it has slots while being hit more often than missed, so a process that sees 10,000 members'
 * names and addresses (a simulator, which runs them all in one process) ends up keeping them all
 * (a stream of names never seen again, as a flood of forged ones, does not make it grow): every member then holds the very same string objects in its member
 * table, which saves their memory and makes every table lookup a pointer compare.
 */
let mask = FIRST_SLOTS - 1;
let hashes = new Int32Array(FIRST_SLOTS);
let values: (string | undefined)[] = new Array<string | undefined>(FIRST_SLOTS).fill(undefined);
let misses = 0;
let hits = 0;

/**
 * `decodeUtf8` with a cache of recent short strings. The same few names and addresses arrive in
 * every packet; returning the string decoded last time skips building a new one, and a string
 * the member table has already hashed stays cheap as a map key.
 *
 * A hash plus a compare per lookup; a collision just replaces a slot, so hostile input can only
 * cause misses. The cache never changes a result, only how fast it comes.
 */
export function decodeCachedUtf8(bytes: Uint8Array, start: number, end: number): string | undefined {
  const length = end - start;
  if (length === 0) return '';
  if (length > MAX_CACHED_BYTES) return decodeUtf8(bytes, start, end);
  let hash = length;
  let ascii = true;
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    if (byte >= 0x80) ascii = false;
    hash = (Math.imul(hash, 31) + byte) | 0;
  }
  if (!ascii) return decodeUtf8(bytes, start, end);
  // Mixed (murmur3's finaliser): names like n92 and n93 differ in one low bit and would
  // otherwise share a set and evict each other.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  const slot = hash & mask;
  if (matches(slot, hash, bytes, start, length)) {
    hits++;
    return values[slot];
  }
  if (matches(slot ^ 1, hash, bytes, start, length)) {
    hits++;
    return values[slot ^ 1];
  }
  const text = decodeUtf8(bytes, start, end);
  if (text === undefined) return undefined;
  // An empty neighbour first; otherwise the home slot is replaced.
  const target = values[slot] !== undefined && values[slot ^ 1] === undefined ? slot ^ 1 : slot;
  hashes[target] = hash;
  values[target] = text;
  if (++misses > 2 * (mask + 1)) {
    if (hits > misses && mask + 1 < MAX_SLOTS) grow();
    misses = 0;
    hits = 0;
  }
  return text;
}

function matches(slot: number, hash: number, bytes: Uint8Array, start: number, length: number): boolean {
  if (hashes[slot] !== hash) return false;
  const value = values[slot];
  if (value === undefined || value.length !== length) return false;
  for (let i = 0; i < length; i++) if (value.charCodeAt(i) !== bytes[start + i]) return false;
  return true;
}

/** Twice the slots, every cached string moved over (a slot taken twice keeps the first). */
function grow(): void {
  const oldHashes = hashes;
  const oldValues = values;
  const slots = (mask + 1) * 2;
  mask = slots - 1;
  hashes = new Int32Array(slots);
  values = new Array<string | undefined>(slots).fill(undefined);
  for (let i = 0; i < oldValues.length; i++) {
    const value = oldValues[i];
    if (value === undefined) continue;
    const hash = oldHashes[i]!;
    const slot = hash & mask;
    const target = values[slot] === undefined ? slot : values[slot ^ 1] === undefined ? slot ^ 1 : -1;
    if (target < 0) continue;
    hashes[target] = hash;
    values[target] = value;
  }
}
