import { hashAsWords } from './byte-words.js';
import type { Message } from './messages.js';
import { LookupSampler } from './lookup-sampler.js';

/**
 * Membership updates (alive, suspect, dead) decoded recently, by their bytes. Gossip hands every
 * member each update about retransmitLimit times (SWIM §4.1's infection-style dissemination), so
 * most updates a member decodes it has decoded before, byte for byte: in a simulated join storm
 * 11 of 12. Decoding equal bytes again gives an equal message, so the one decoded first is
 * handed out again: no name or address looked up, no object made. Decoded messages are
 * read-only (their `meta` too, as the empty meta every message shares already is).
 *
 * Two-way set-associative, like the string cache: a row per slot holds the hash, the byte count,
 * whether the bytes were canonical, and the bytes as 32-bit words, so a hit compares words held
 * in one row; a collision replaces a slot. The table doubles (up to MAX_SLOTS) only after missing
 * twice as often as it has slots while being hit more often than missed: a stream of updates
 * never seen again (a forger's) leaves it at its first size.
 */
/** Updates up to this many bytes, array header included, are cached: an alive with a short meta. */
export const MAX_CACHED_UPDATE_BYTES = 120;
/** Int32s per slot: the hash, the byte count × 2 + canonical, then the bytes as words. */
const ROW = 2 + MAX_CACHED_UPDATE_BYTES / 4;
const FIRST_SLOTS = 1024;
const MAX_SLOTS = 1 << 15;

let mask = FIRST_SLOTS - 1;
let rows = new Int32Array(FIRST_SLOTS * ROW);
let messages: (Message | undefined)[] = new Array<Message | undefined>(FIRST_SLOTS).fill(undefined);
let misses = 0;
let hits = 0;

/** A member that rarely hears an update twice (a saturated receive path) looks up only a sample. */
const sampler = new LookupSampler();

/** The bytes of the latest lookup, as words, and what {@link keepUpdate} stores them under. */
const words = new Int32Array(ROW - 2);
let wordCount = 0;
let lookedUpHash = 0;
let lookedUpLength = -1;
/** Whether the bytes of the latest hit were canonical (see MsgpackReader.canonical). */
let hitCanonical = false;

/**
 * The message decoded earlier from bytes equal to `bytes[start, end)` (at most
 * {@link MAX_CACHED_UPDATE_BYTES}), or undefined. After a miss, {@link keepUpdate} stores the
 * message those bytes decode to; after a hit, {@link lastHitCanonical} says whether they were canonical.
 */
export function findUpdate(bytes: Uint8Array, start: number, end: number): Message | undefined {
  const length = end - start;
  lookedUpLength = -1;
  if (!sampler.worthLookingUp(bytes, start, end)) return undefined;
  const hash = hashAsWords(bytes, start, end, words);
  const count = (length + 3) >> 2;
  wordCount = count;
  lookedUpHash = hash;
  lookedUpLength = length;
  const slot = hash & mask;
  const found = matching(slot, hash, length, count) ?? matching(slot ^ 1, hash, length, count);
  if (found !== undefined) hits++;
  sampler.note(found !== undefined);
  return found;
}

/** Whether the bytes of the latest {@link findUpdate} hit were canonical. */
export function lastHitCanonical(): boolean {
  return hitCanonical;
}

/**
 * Remember `message`, decoded from the bytes of the latest {@link findUpdate} (which missed), and
 * whether they were canonical. Call before any other lookup.
 */
export function keepUpdate(message: Message, canonical: boolean): void {
  if (lookedUpLength < 0) return;
  const hash = lookedUpHash;
  const slot = hash & mask;
  // An empty neighbour first; otherwise the home slot is replaced.
  const target = messages[slot] !== undefined && messages[slot ^ 1] === undefined ? slot ^ 1 : slot;
  const base = target * ROW;
  rows[base] = hash;
  rows[base + 1] = lookedUpLength * 2 + (canonical ? 1 : 0);
  rows.set(words.subarray(0, wordCount), base + 2);
  messages[target] = message;
  lookedUpLength = -1;
  if (++misses > 2 * (mask + 1)) {
    if (hits > misses && mask + 1 < MAX_SLOTS) grow();
    misses = 0;
    hits = 0;
  }
}

/** How many updates the table has room for now (for tests: a flood of new updates must not grow it). */
export function cachedUpdateSlots(): number {
  return mask + 1;
}

function matching(slot: number, hash: number, length: number, count: number): Message | undefined {
  const base = slot * ROW;
  if (rows[base] !== hash || rows[base + 1]! >> 1 !== length) return undefined;
  const message = messages[slot];
  if (message === undefined) return undefined;
  for (let w = 0; w < count; w++) if (rows[base + 2 + w] !== words[w]) return undefined;
  hitCanonical = (rows[base + 1]! & 1) === 1;
  lookedUpLength = -1;
  return message;
}

/** Twice the slots, every cached update moved over (a slot taken twice keeps the first). */
function grow(): void {
  const oldRows = rows;
  const oldMessages = messages;
  const slots = (mask + 1) * 2;
  mask = slots - 1;
  rows = new Int32Array(slots * ROW);
  messages = new Array<Message | undefined>(slots).fill(undefined);
  for (let i = 0; i < oldMessages.length; i++) {
    const message = oldMessages[i];
    if (message === undefined) continue;
    const hash = oldRows[i * ROW]!;
    const slot = hash & mask;
    const target = messages[slot] === undefined ? slot : messages[slot ^ 1] === undefined ? slot ^ 1 : -1;
    if (target < 0) continue;
    rows.set(oldRows.subarray(i * ROW, (i + 1) * ROW), target * ROW);
    messages[target] = message;
  }
}
