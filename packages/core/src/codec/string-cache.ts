import { decodeUtf8 } from './utf8.js';

/** Strings up to this many bytes are cached: node names and addresses, not payload-like text. */
const MAX_CACHED_BYTES = 64;
/** Direct-mapped slots (a power of two). Bounded: at most ~100 KiB of keys, whatever arrives. */
const SLOTS = 1024;

const keys: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(SLOTS).fill(undefined);
const values: string[] = new Array<string>(SLOTS).fill('');

/**
 * `decodeUtf8` with a cache of recent short strings. The same few names and addresses arrive in
 * every packet; returning the string decoded last time skips building a new one, and a string
 * the member table has already hashed stays cheap as a map key.
 *
 * A hash plus a byte compare per lookup; a collision just replaces the slot, so hostile input
 * can only cause misses. The cache never changes a result, only how fast it comes.
 */
export function decodeCachedUtf8(bytes: Uint8Array, start: number, end: number): string | undefined {
  const length = end - start;
  if (length === 0) return '';
  if (length > MAX_CACHED_BYTES) return decodeUtf8(bytes, start, end);
  let hash = length;
  for (let i = start; i < end; i++) hash = (Math.imul(hash, 31) + bytes[i]!) | 0;
  const slot = (hash ^ (hash >>> 15)) & (SLOTS - 1);
  const key = keys[slot];
  if (key !== undefined && key.length === length) {
    let i = 0;
    while (i < length && key[i] === bytes[start + i]) i++;
    if (i === length) return values[slot];
  }
  const text = decodeUtf8(bytes, start, end);
  if (text === undefined) return undefined;
  keys[slot] = copyKey(bytes, start, length);
  values[slot] = text;
  return text;
}

/**
 * A copy, never a view: the packet may be a Node Buffer, whose slice() is a view, in a buffer
 * the transport overwrites with the next datagram.
 */
function copyKey(bytes: Uint8Array, start: number, length: number): Uint8Array {
  const key = new Uint8Array(length);
  for (let i = 0; i < length; i++) key[i] = bytes[start + i]!;
  return key;
}
