/**
 * Where AES-GCM itself runs. The blob format, the keyring and the wrapper do not care: they seal
 * and open through an {@link AesGcmKey}, which an {@link AesGcmEngine} makes from a key's bytes.
 *
 * The default engine is WebCrypto (`crypto.subtle`), the same in Node and browsers. In Node,
 * `@swim/encryption/node` offers `nodeCryptoEngine` (node:crypto, synchronous): WebCrypto's cost per
 * call in Node (argument conversion, a threadpool job and its completion per packet) is several
 * times the cipher's, and 1,000 members in one process sharing one threadpool could not even form
 * a cluster with it (`pnpm bench crypto`, apps/bench/results/crypto.md). Both produce the same bytes.
 */
import { subtle } from './webcrypto.js';

/** A value now, or later: a synchronous engine answers at once, and nothing waits on a promise. */
export type MaybePromise<T> = T | Promise<T>;

/** `f(value)` now when `value` is here, else once it resolves. */
export function after<T, U>(value: MaybePromise<T>, f: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}

/**
 * One AES key, ready to use: AES-GCM with a 12-byte nonce, the 16-byte tag after the ciphertext.
 * An engine may answer synchronously (node:crypto) or with a promise (WebCrypto).
 */
export interface AesGcmKey {
  /** Ciphertext followed by the tag. */
  seal(nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array | undefined): MaybePromise<Uint8Array>;
  /** The plaintext, or undefined when the tag does not verify (wrong key, tampered bytes, other AAD). */
  open(nonce: Uint8Array, sealed: Uint8Array, aad: Uint8Array | undefined): MaybePromise<Uint8Array | undefined>;
}

/**
 * Makes {@link AesGcmKey}s from raw key bytes: {@link webCryptoEngine} by default, or `nodeCryptoEngine`
 * from `@swim/encryption/node`. Both produce the same bytes.
 */
export interface AesGcmEngine {
  /** For reports and errors: "webcrypto", "node:crypto". */
  readonly name: string;
  /** A key of 16, 24 or 32 bytes (AES-128, -192, -256). */
  importKey(raw: Uint8Array): Promise<AesGcmKey>;
}

/** WebCrypto takes views over plain ArrayBuffers. */
function buffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes as Uint8Array<ArrayBuffer>;
}

function gcmParams(nonce: Uint8Array, aad: Uint8Array | undefined): AesGcmParams {
  return aad === undefined || aad.length === 0
    ? { name: 'AES-GCM', iv: buffer(nonce), tagLength: 128 }
    : { name: 'AES-GCM', iv: buffer(nonce), additionalData: buffer(aad), tagLength: 128 };
}

/**
 * AES-GCM through WebCrypto (the default). Chromium's WebCrypto has no AES-192: 24-byte keys fail
 * to import there (Node and Firefox have it).
 */
export const webCryptoEngine: AesGcmEngine = Object.freeze({
  name: 'webcrypto',
  async importKey(raw: Uint8Array): Promise<AesGcmKey> {
    const key = await subtle().importKey('raw', buffer(raw), { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
    return {
      seal: async (nonce, plaintext, aad) => new Uint8Array(await subtle().encrypt(gcmParams(nonce, aad), key, buffer(plaintext))),
      open: async (nonce, sealed, aad) => {
        try {
          return new Uint8Array(await subtle().decrypt(gcmParams(nonce, aad), key, buffer(sealed)));
        } catch {
          return undefined; // OperationError: the tag does not verify under this key
        }
      },
    };
  },
});
