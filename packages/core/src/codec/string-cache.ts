import { hashAsWords } from './byte-words.js';
import { decodeUtf8 } from './utf8.js';

/** Strings up to this many bytes are cached: node names and addresses, not payload-like text. */
const MAX_CACHED_BYTES = 64;
/** A key's bytes as little-endian 32-bit words, the last one zero-padded. */
const KEY_WORDS = MAX_CACHED_BYTES / 4;
/** Slots at first and at most (powers of two). At most ~10 MiB of strings and 8 MiB of keys, whatever arrives. */
const FIRST_SLOTS = 1024;
const MAX_SLOTS = 1 << 17;

/**
 * Two-way set-associative: a string lives in slot `hash & mask` or its neighbour `^ 1`, with its
 * UTF-8 bytes kept as words beside it, so a hit compares three or four words with the words the
 * hash was computed from (comparing the cached string's characters with the bytes one by one,
 * and hashing a byte a step, were a third of decoding a packet of known updates). The table
 * doubles each time it has missed twice as often as it has slots while being hit more often
 * than missed, so a process that sees 10,000 members' names and addresses (a simulator, which
 * runs them all in one process) ends up keeping them all (a stream of names never seen again,
 * as a flood of forged ones, does not make it grow): every member then holds the very same
 * string objects in its member table, which saves their memory and makes every table lookup a
 * pointer compare.
 */
let mask = FIRST_SLOTS - 1;
let hashes = new Int32Array(FIRST_SLOTS);
let lengths = new Uint8Array(FIRST_SLOTS);
let keys = new Int32Array(FIRST_SLOTS * KEY_WORDS);
let values: (string | undefined)[] = new Array<string | undefined>(FIRST_SLOTS).fill(undefined);
let misses = 0;
let hits = 0;
/** The words of the bytes being looked up. */
const words = new Int32Array(KEY_WORDS);

/**
 * `decodeUtf8` with a cache of recent short strings. The same few names and addresses arrive in
 * every packet; returning the string decoded last time skips building a new one, and a string
 * the member table has already hashed stays cheap as a map key.
 *
 * A hash plus a compare per lookup; a collision just replaces a slot, so hostile input can only
 * cause misses. The cache never changes a result, only how fast it comes: equal bytes are the
 * same text, and bytes that are not UTF-8 are never cached.
 */
export function decodeCachedUtf8(bytes: Uint8Array, start: number, end: number): string | undefined {
  const length = end - start;
  if (length === 0) return '';
  if (length > MAX_CACHED_BYTES) return decodeUtf8(bytes, start, end);
  const hash = hashAsWords(bytes, start, end, words);
  const count = (length + 3) >> 2;
  const slot = hash & mask;
  if (matches(slot, hash, length, count)) {
    hits++;
    return values[slot];
  }
  if (matches(slot ^ 1, hash, length, count)) {
    hits++;
    return values[slot ^ 1];
  }
  const text = decodeUtf8(bytes, start, end);
  if (text === undefined) return undefined;
  // An empty neighbour first; otherwise the home slot is replaced.
  const target = values[slot] !== undefined && values[slot ^ 1] === undefined ? slot ^ 1 : slot;
  hashes[target] = hash;
  lengths[target] = length;
  keys.set(words.subarray(0, count), target * KEY_WORDS);
  values[target] = text;
  if (++misses > 2 * (mask + 1)) {
    if (hits > misses && mask + 1 < MAX_SLOTS) grow();
    misses = 0;
    hits = 0;
  }
  return text;
}

/** How many strings the table has room for now (for tests: a flood of new names must not grow it). */
export function cachedStringSlots(): number {
  return mask + 1;
}

/** Slot `slot` holds the `length` bytes whose first `count` words are in `words`. */
function matches(slot: number, hash: number, length: number, count: number): boolean {
  if (hashes[slot] !== hash || lengths[slot] !== length || values[slot] === undefined) return false;
  const base = slot * KEY_WORDS;
  for (let w = 0; w < count; w++) if (keys[base + w] !== words[w]) return false;
  return true;
}

/** Twice the slots, every cached string moved over (a slot taken twice keeps the first). */
function grow(): void {
  const oldHashes = hashes;
  const oldLengths = lengths;
  const oldKeys = keys;
  const oldValues = values;
  const slots = (mask + 1) * 2;
  mask = slots - 1;
  hashes = new Int32Array(slots);
  lengths = new Uint8Array(slots);
  keys = new Int32Array(slots * KEY_WORDS);
  values = new Array<string | undefined>(slots).fill(undefined);
  for (let i = 0; i < oldValues.length; i++) {
    const value = oldValues[i];
    if (value === undefined) continue;
    const hash = oldHashes[i]!;
    const slot = hash & mask;
    const target = values[slot] === undefined ? slot : values[slot ^ 1] === undefined ? slot ^ 1 : -1;
    if (target < 0) continue;
    hashes[target] = hash;
    lengths[target] = oldLengths[i]!;
    keys.set(oldKeys.subarray(i * KEY_WORDS, (i + 1) * KEY_WORDS), target * KEY_WORDS);
    values[target] = value;
  }
}
