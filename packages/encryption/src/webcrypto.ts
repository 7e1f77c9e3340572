/**
 * WebCrypto, the same object in Node 20 and browsers (the global `crypto`). Read at call time, not
 * at import, so that importing this package never fails where WebCrypto is missing (an insecure
 * browser context has no `crypto.subtle`); using it there fails with a clear message.
 */
export function subtle(): SubtleCrypto {
  const subtle = typeof crypto === 'undefined' ? undefined : crypto.subtle;
  if (subtle === undefined) throw new Error('WebCrypto (crypto.subtle) is not available: browsers offer it only in secure contexts (https, localhost)');
  return subtle;
}

export function randomBytes(n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  crypto.getRandomValues(bytes);
  return bytes;
}

/** Random bytes drawn ahead for nonces: one getRandomValues call per 341 nonces instead of one each. */
const POOL_BYTES = 4096;
let pool: Uint8Array = new Uint8Array(0);
let poolOffset = 0;

/** `n` fresh random bytes (a copy: nothing else ever sees them), from the pool. */
export function randomNonce(n: number): Uint8Array {
  if (poolOffset + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const nonce = pool.slice(poolOffset, poolOffset + n);
  poolOffset += n;
  return nonce;
}
