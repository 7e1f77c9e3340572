/**
 * memberlist's encrypted blob (memberlist security.go: encryptPayload, decryptPayload):
 *
 *     [version 1 B][nonce 12 B][AES-GCM ciphertext][tag 16 B]
 *
 * Version 1 (the default, what Serf sends) encrypts the plaintext as is. Version 0 first pads it
 * with PKCS#7 to a multiple of 16 bytes (a full block when it is aligned). The additional
 * authenticated data is not in the blob: the caller passes what both sides know (the label for
 * packets; the stream header and the label for streams, see envelope.ts).
 */
import { after, type AesGcmKey, type MaybePromise } from './engine.js';
import { randomNonce } from './webcrypto.js';

/** Length of the AES-GCM nonce in a blob, in bytes (memberlist nonceSize). */
export const NONCE_BYTES = 12;
/** Length of the AES-GCM authentication tag at the end of a blob, in bytes (memberlist tagSize). */
export const TAG_BYTES = 16;
/** Newest blob version understood (memberlist maxEncryptionVersion). */
export const MAX_ENCRYPTION_VERSION = 1;
const VERSION_BYTES = 1;
const BLOCK_BYTES = 16;

/**
 * The blob's first byte (memberlist encryptionVersion): 1 encrypts the plaintext as is, 0 pads it
 * with PKCS#7 first (what memberlist sends at protocol version 1).
 */
export type EncryptionVersion = 0 | 1;

/** Bytes a blob adds to its plaintext at most (memberlist encryptOverhead): 45 for version 0, 29 for 1. */
export function encryptionOverhead(version: EncryptionVersion): number {
  return VERSION_BYTES + NONCE_BYTES + (version === 0 ? BLOCK_BYTES : 0) + TAG_BYTES;
}

/** Length of the blob for `plaintextLength` bytes (memberlist encryptedLength). */
export function encryptedLength(version: EncryptionVersion, plaintextLength: number): number {
  const padding = version === 0 ? BLOCK_BYTES - (plaintextLength % BLOCK_BYTES) : 0;
  return VERSION_BYTES + NONCE_BYTES + plaintextLength + padding + TAG_BYTES;
}

/** Options of {@link encryptBlob} and the functions that seal packets and streams. */
export interface EncryptOptions {
  /** Blob version: 1 (default) or 0 (PKCS#7 padded). */
  readonly version?: EncryptionVersion;
  /** The 12-byte nonce; random by default. Inject one for test vectors only: a nonce must never repeat under a key. */
  readonly nonce?: Uint8Array;
}

/** Encrypt `plaintext` into a blob under `key` (memberlist encryptPayload). */
export function encryptBlob(key: AesGcmKey, plaintext: Uint8Array, aad?: Uint8Array, options: EncryptOptions = {}): MaybePromise<Uint8Array> {
  const version = options.version ?? 1;
  if (version !== 0 && version !== 1) throw new RangeError(`encryption version must be 0 or 1, got ${String(version)}`);
  const nonce = options.nonce ?? randomNonce(NONCE_BYTES);
  if (!(nonce instanceof Uint8Array) || nonce.length !== NONCE_BYTES) throw new RangeError(`nonce must be ${NONCE_BYTES} bytes`);
  const source = version === 0 ? pkcs7Pad(plaintext) : plaintext;
  return after(key.seal(nonce, source, aad), (sealed) => {
    const blob = new Uint8Array(VERSION_BYTES + NONCE_BYTES + sealed.length);
    blob[0] = version;
    blob.set(nonce, VERSION_BYTES);
    blob.set(sealed, VERSION_BYTES + NONCE_BYTES);
    return blob;
  });
}

/** Options of {@link decryptBlob} and the functions that open packets and streams. */
export interface DecryptOptions {
  /**
   * Blob versions accepted; default both. The version byte is not authenticated (memberlist
   * security.go), so whoever accepts both lets anyone relabel a blob: a version-0 blob read as
   * version 1 opens with its padding attached, and a version-1 blob whose plaintext happens to end
   * like PKCS#7 padding opens, as version 0, shortened. Accept only the version your peers send.
   */
  readonly versions?: readonly EncryptionVersion[];
}

/**
 * The plaintext of `blob`, trying `keys` in order (memberlist decryptPayload), or undefined when the
 * blob is empty, of a version not accepted, shorter than the smallest blob of its version, or no key
 * opens it (wrong key, tampered bytes or wrong additional data). Never throws for bad input.
 */
export function decryptBlob(keys: readonly AesGcmKey[], blob: Uint8Array, aad?: Uint8Array, options: DecryptOptions = {}): MaybePromise<Uint8Array | undefined> {
  if (blob.length === 0) return undefined;
  const version = blob[0]!;
  if (version > MAX_ENCRYPTION_VERSION) return undefined;
  if (options.versions !== undefined && !options.versions.includes(version as EncryptionVersion)) return undefined;
  if (blob.length < encryptedLength(version as EncryptionVersion, 0)) return undefined;
  const nonce = blob.subarray(VERSION_BYTES, VERSION_BYTES + NONCE_BYTES);
  const sealed = blob.subarray(VERSION_BYTES + NONCE_BYTES);
  const unpad = (plaintext: Uint8Array) => (version === 0 ? pkcs7Unpad(plaintext) : plaintext);
  // Keys in order (memberlist decryptPayload); a synchronous engine never makes a promise.
  const tryFrom = (i: number): MaybePromise<Uint8Array | undefined> => {
    for (; i < keys.length; i++) {
      const opened = keys[i]!.open(nonce, sealed, aad);
      if (opened instanceof Promise) {
        const next = i + 1;
        return opened.then((plaintext) => (plaintext === undefined ? tryFrom(next) : unpad(plaintext)));
      }
      if (opened !== undefined) return unpad(opened);
    }
    return undefined;
  };
  return tryFrom(0);
}

/** memberlist pkcs7encode: 1..16 bytes of value n, a full block when already aligned. */
function pkcs7Pad(plaintext: Uint8Array): Uint8Array {
  const n = BLOCK_BYTES - (plaintext.length % BLOCK_BYTES);
  const padded = new Uint8Array(plaintext.length + n);
  padded.set(plaintext);
  padded.fill(n, plaintext.length);
  return padded;
}

/**
 * memberlist pkcs7decode, checked: Go trusts the last byte (a peer holding the key could make it
 * slice out of range); here padding that is not 1..16 bytes of the same value opens nothing.
 */
function pkcs7Unpad(padded: Uint8Array): Uint8Array | undefined {
  const n = padded[padded.length - 1];
  if (n === undefined || n < 1 || n > BLOCK_BYTES || n > padded.length) return undefined;
  for (let i = padded.length - n; i < padded.length; i++) if (padded[i] !== n) return undefined;
  return padded.subarray(0, padded.length - n);
}
