import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** SHA-256 of `text`: equal-length digests let secrets of any length be compared in constant time. */
export function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Whether two secrets are equal, in a time that does not tell how much of a guess was right. */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** Whether `token` is the join token whose digest is `tokenHash`. */
export function tokenMatches(token: string, tokenHash: Buffer): boolean {
  return timingSafeEqual(digest(token), tokenHash);
}

/** A fresh secret a client shows to take its relay back after a reconnect. */
export function newResumeSecret(): string {
  return randomBytes(24).toString('base64url');
}
