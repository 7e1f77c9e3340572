import { LookupSampler } from './lookup-sampler.js';

/** Parts up to this many bytes are shared: membership updates, not user payloads. */
export const MAX_SHARED_PART_BYTES = 160;
const FIRST_SLOTS = 1024;
const MAX_SLOTS = 1 << 16;

/**
 * Encoded messages handed out more than once, byte for byte: one array per distinct part. In a
 * simulator every member re-gossips the same alive, suspect or dead message; without sharing
 * each of n members kept its own copy of each of n updates in its broadcast queue (n² arrays of
 * ~20 bytes, each with ~100 bytes of array object), and assembling a packet read cold copies.
 * Parts are read-only once handed out (the broadcast queue never writes to them), so one array
 * can serve every member.
 *
 * Two-way set-associative, by a hash of the bytes; a collision replaces a slot, so it only costs a
 * copy. The table doubles (up to MAX_SLOTS) when it keeps missing while also being hit more
 * often than missed: many members in one process. A single member, which encodes each update
 * about once, never grows it past FIRST_SLOTS.
 */
let mask = FIRST_SLOTS - 1;
let hashes = new Int32Array(FIRST_SLOTS);
let parts: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(FIRST_SLOTS).fill(undefined);
let misses = 0;
let hits = 0;

/** A lone member (one core per process) encodes each update about once: it looks up only a sample. */
const sampler = new LookupSampler();

/**
 * `bytes[start, end)` as a read-only array: the shared one equal to it if there is one, else a
 * copy (kept for later calls when sampled).
 */
export function sharedPart(bytes: Uint8Array, start: number, end: number): Uint8Array {
  if (end - start > MAX_SHARED_PART_BYTES || !sampler.worthLookingUp(bytes, start, end)) return bytes.slice(start, end);
  const hash = partHash(bytes, start, end);
  const found = findPart(bytes, start, end, hash);
  if (found !== undefined) return found;
  const part = bytes.slice(start, end);
  keepPart(part, hash);
  return part;
}

/** How many parts the table has room for now (for tests: a flood of new updates must not grow it). */
export function sharedPartSlots(): number {
  return mask + 1;
}

/** Hash of `bytes[start, end)` for {@link findPart} and {@link keepPart}; four bytes a step. */
function partHash(bytes: Uint8Array, start: number, end: number): number {
  let hash = end - start;
  let i = start;
  for (; i + 4 <= end; i += 4) {
    hash = Math.imul(hash ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)), 0x9e3779b1);
    hash ^= hash >>> 15;
  }
  for (; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, 0x9e3779b1);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

/** The shared array equal to `bytes[start, end)`; undefined if none (then {@link keepPart} the copy). */
function findPart(bytes: Uint8Array, start: number, end: number, hash: number): Uint8Array | undefined {
  const slot = hash & mask;
  const found = equalAt(slot, hash, bytes, start, end) ?? equalAt(slot ^ 1, hash, bytes, start, end);
  if (found !== undefined) hits++;
  sampler.note(found !== undefined);
  return found;
}

/** Remember `part` (a fresh copy nobody writes to) for later {@link findPart} calls. */
function keepPart(part: Uint8Array, hash: number): void {
  const slot = hash & mask;
  const target = parts[slot] !== undefined && parts[slot ^ 1] === undefined ? slot ^ 1 : slot;
  hashes[target] = hash;
  parts[target] = part;
  if (++misses > 2 * (mask + 1)) {
    if (hits > misses && mask + 1 < MAX_SLOTS) grow();
    misses = 0;
    hits = 0;
  }
}

function equalAt(slot: number, hash: number, bytes: Uint8Array, start: number, end: number): Uint8Array | undefined {
  if (hashes[slot] !== hash) return undefined;
  const part = parts[slot];
  if (part === undefined || part.length !== end - start) return undefined;
  for (let i = 0; i < part.length; i++) if (part[i] !== bytes[start + i]) return undefined;
  return part;
}

function grow(): void {
  const oldHashes = hashes;
  const oldParts = parts;
  const slots = (mask + 1) * 2;
  mask = slots - 1;
  hashes = new Int32Array(slots);
  parts = new Array<Uint8Array | undefined>(slots).fill(undefined);
  for (let i = 0; i < oldParts.length; i++) {
    const part = oldParts[i];
    if (part === undefined) continue;
    const hash = oldHashes[i]!;
    const slot = hash & mask;
    const target = parts[slot] === undefined ? slot : parts[slot ^ 1] === undefined ? slot ^ 1 : -1;
    if (target < 0) continue;
    hashes[target] = hash;
    parts[target] = part;
  }
}
