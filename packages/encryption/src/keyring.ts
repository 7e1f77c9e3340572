/**
 * The keyring: the shared AES keys of a cluster, with memberlist's semantics (memberlist keyring.go:
 * NewKeyring, AddKey, UseKey, RemoveKey, GetKeys). The first key is the primary: it encrypts
 * everything sent. Every key is tried on receive, so a new key can be installed everywhere before it
 * is used, and an old one removed only once nobody sends with it (Serf's `keys -install/-use/-remove`).
 *
 * Keys are held as their base64 text (what operators type and what `list()` reports). Error
 * messages never contain key material.
 */
import { decodeBase64, encodeBase64 } from './base64.js';
import { webCryptoEngine, type AesGcmEngine, type AesGcmKey, type MaybePromise } from './engine.js';
import { randomBytes } from './webcrypto.js';

/** AES-128, AES-192, AES-256 (memberlist ValidateKey). */
export const KEY_SIZES: readonly number[] = Object.freeze([16, 24, 32]);

/** A key or keyring change was refused; the message names the problem, never the key. */
export class KeyringError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyringError';
  }
}

function sizeProblem(length: number): string | undefined {
  return KEY_SIZES.includes(length) ? undefined : `key is ${length} bytes, expected 16, 24 or 32`;
}

/**
 * The bytes of a base64 key (standard alphabet, padded; surrounding whitespace, such as the newline
 * of a key file, is ignored). Throws {@link KeyringError} naming the problem, never the key.
 */
export function parseKey(text: string): Uint8Array {
  if (typeof text !== 'string') throw new KeyringError(`key must be a base64 string, got ${typeof text}`);
  const trimmed = text.trim();
  if (trimmed.length === 0) throw new KeyringError('key is empty');
  const bytes = decodeBase64(trimmed);
  if (bytes === undefined) throw new KeyringError('key is not base64 (standard alphabet A-Z a-z 0-9 + /, padded with =)');
  const problem = sizeProblem(bytes.length);
  if (problem !== undefined) throw new KeyringError(problem);
  return bytes;
}

/** Base64 of a key (checks the size). */
export function formatKey(key: Uint8Array): string {
  if (!(key instanceof Uint8Array)) throw new KeyringError('key must be a Uint8Array or base64 text');
  const problem = sizeProblem(key.length);
  if (problem !== undefined) throw new KeyringError(problem);
  return encodeBase64(key);
}

/** A new random 32-byte key as base64 (`swim keygen`, Serf `keygen`). */
export function generateKey(): string {
  return encodeBase64(randomBytes(32));
}

/** The canonical base64 of a key given as text or bytes; throws KeyringError. */
function canonical(key: string | Uint8Array): string {
  return typeof key === 'string' ? encodeBase64(parseKey(key)) : formatKey(key);
}

/**
 * A cluster's AES keys, primary first (memberlist Keyring). Make one with {@link Keyring.from} and
 * give it to {@link secureTransport}; installs, uses and removes apply to that transport at once.
 */
export class Keyring {
  /** Base64 keys, primary first (memberlist keeps the same order in Keyring.keys). */
  #keys: string[];
  readonly #listeners = new Set<(keys: readonly string[]) => void>();
  /** Imported keys, one import per key for as long as it is installed. */
  readonly #imported = new Map<string, Promise<AesGcmKey>>();
  /** `cryptoKeys()` for the current list, until the next change. */
  #current: Promise<readonly AesGcmKey[]> | undefined;
  /** What `#current` resolved to, while the list has not changed. */
  #loaded: readonly AesGcmKey[] | undefined;
  /** Where AES-GCM runs for this keyring's keys (engine.ts). */
  readonly engine: AesGcmEngine;

  private constructor(keys: string[], engine: AesGcmEngine) {
    this.#keys = keys;
    this.engine = engine;
  }

  /**
   * A keyring of `keys`, the first one primary; duplicates are collapsed (memberlist NewKeyring).
   * Throws {@link KeyringError} listing every bad key (by position, never by value), or when empty.
   * `engine` runs AES-GCM for these keys: WebCrypto by default; in Node, `nodeCryptoEngine` from
   * `@swim/encryption/node` is several times cheaper per packet (engine.ts).
   */
  static from(keys: readonly (string | Uint8Array)[], options: { readonly engine?: AesGcmEngine } = {}): Keyring {
    if (!Array.isArray(keys) || keys.length === 0) throw new KeyringError('a keyring needs at least one key');
    const engine = options.engine ?? webCryptoEngine;
    if (typeof engine !== 'object' || engine === null || typeof engine.importKey !== 'function') throw new KeyringError('engine must be an AesGcmEngine (importKey)');
    const problems: string[] = [];
    const canonicalKeys: string[] = [];
    keys.forEach((key, i) => {
      try {
        const text = canonical(key);
        if (!canonicalKeys.includes(text)) canonicalKeys.push(text);
      } catch (error) {
        problems.push(`key ${i + 1}: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
    if (problems.length > 0) {
      const n = problems.length;
      throw new KeyringError(`Invalid keyring (${n} problem${n === 1 ? '' : 's'}):\n${problems.map((p) => `- ${p}`).join('\n')}`);
    }
    return new Keyring(canonicalKeys, engine);
  }

  /** Base64 of the primary key, the one that encrypts. */
  get primary(): string {
    return this.#keys[0]!;
  }

  /** Every key as base64, primary first (memberlist GetKeys). */
  list(): string[] {
    return [...this.#keys];
  }

  /** Whether `key` is installed; false for text that is not a valid key. */
  has(key: string | Uint8Array): boolean {
    try {
      return this.#keys.includes(canonical(key));
    } catch {
      return false;
    }
  }

  /** Add a key after the others; a no-op when it is installed already (memberlist AddKey). */
  install(key: string | Uint8Array): void {
    const text = canonical(key);
    if (this.#keys.includes(text)) return;
    this.#set([...this.#keys, text]);
  }

  /** Make an installed key the primary; the others keep their order (memberlist UseKey). */
  use(key: string | Uint8Array): void {
    const text = canonical(key);
    if (!this.#keys.includes(text)) throw new KeyringError('key is not installed: install it on every member first, then use it');
    if (this.#keys[0] === text) return;
    this.#set([text, ...this.#keys.filter((k) => k !== text)]);
  }

  /**
   * Remove a key; a no-op when it is not installed (memberlist RemoveKey). The primary cannot be
   * removed: use another key first.
   */
  remove(key: string | Uint8Array): void {
    const text = canonical(key);
    if (this.#keys[0] === text) throw new KeyringError('removing the primary key is not allowed: use another key first');
    if (!this.#keys.includes(text)) return;
    this.#imported.delete(text);
    this.#set(this.#keys.filter((k) => k !== text));
  }

  /**
   * Call `listener` with the new list after every install, use or remove that changed it (to persist
   * a keyring file, say). Returns a function that removes the listener. Every listener runs; if any
   * threw, the first error is rethrown to the caller of the change, which has taken effect.
   */
  onChange(listener: (keys: readonly string[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The keys imported by the engine, in `list()` order; each key is imported once and cached. */
  cryptoKeys(): MaybePromise<readonly AesGcmKey[]> {
    // Once imported, the keys themselves: the wrapper's synchronous path needs no promise per packet.
    if (this.#loaded !== undefined) return this.#loaded;
    if (this.#current === undefined) {
      const current = Promise.all(this.#keys.map((text) => this.#import(text)));
      this.#current = current;
      current.then(
        (keys) => {
          if (this.#current === current) this.#loaded = keys;
        },
        // A failed import is not cached: the next call tries again.
        () => {
          if (this.#current === current) this.#current = undefined;
        },
      );
    }
    return this.#current;
  }

  #import(text: string): Promise<AesGcmKey> {
    let imported = this.#imported.get(text);
    if (imported === undefined) {
      imported = this.engine.importKey(parseKey(text));
      this.#imported.set(text, imported);
      const pending = imported;
      pending.catch(() => {
        if (this.#imported.get(text) === pending) this.#imported.delete(text);
      });
    }
    return imported;
  }

  #set(keys: string[]): void {
    this.#keys = keys;
    this.#current = undefined;
    this.#loaded = undefined;
    const snapshot = Object.freeze([...keys]);
    let first: { error: unknown } | undefined;
    for (const listener of [...this.#listeners]) {
      try {
        listener(snapshot);
      } catch (error) {
        first ??= { error };
      }
    }
    if (first !== undefined) throw first.error;
  }
}
