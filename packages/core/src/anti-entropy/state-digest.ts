import { fmix32 } from '../support/rng.js';

/**
 * A digest of our own push-pull state as we last encoded it for a periodic exchange, so that a
 * peer's state that is byte for byte the same is known without decoding or merging it.
 *
 * In a quiet cluster every member holds the same entries, and with entries in name order
 * (anti-entropy #localState) the same entries encode to the same bytes: each periodic push-pull
 * then carries a state whose merge would change nothing. Decoding and merging n entries on both
 * sides of n/interval exchanges a second was the largest steady cost of a simulated cluster of
 * thousands (docs/memberlist-differences.md, "Push-pull of an identical state").
 *
 * Only the length and two independent 32-bit hashes are kept, not the bytes: a simulated process
 * holds one digest per member, and n copies of an n-entry state would cost n² bytes again. A state
 * built to collide only makes us skip merging what its sender could have left unsent.
 */
export interface OwnState {
  /** The table's change count and the user state the digest was taken at. */
  readonly changes: number;
  readonly userState: Uint8Array;
  readonly length: number;
  readonly hashA: number;
  readonly hashB: number;
  /** No entry a merge could act on even when equal to ours: a suspect entry confirms our suspicion. */
  readonly mergeFree: boolean;
}

/** Two 32-bit hashes of `bytes` (FNV-1a style lanes, a word at a time, finished with murmur3's fmix32). */
export function hashState(bytes: Uint8Array): { readonly hashA: number; readonly hashB: number } {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  const words = bytes.length >>> 2;
  for (let i = 0, at = 0; i < words; i++, at += 4) {
    const word = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
    a = Math.imul(a ^ word, 0x01000193);
    b = Math.imul(b ^ word, 0x5bd1e995) ^ (b >>> 15);
  }
  for (let at = words << 2; at < bytes.length; at++) {
    a = Math.imul(a ^ bytes[at]!, 0x01000193);
    b = Math.imul(b ^ bytes[at]!, 0x5bd1e995) ^ (b >>> 15);
  }
  return { hashA: fmix32(a ^ bytes.length), hashB: fmix32(b) };
}

/** Whether `bytes` is the state `own` was taken of, judged by length and both hashes. */
export function isSameState(own: OwnState, bytes: Uint8Array): boolean {
  if (bytes.length !== own.length) return false;
  const { hashA, hashB } = hashState(bytes);
  return hashA === own.hashA && hashB === own.hashB;
}
