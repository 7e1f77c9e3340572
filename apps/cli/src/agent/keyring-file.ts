/**
 * The agent's keyring on disk: a JSON array of base64 keys, primary first (Serf's keyring file).
 * Loaded at start; rewritten after every change `swim keys` makes, so a restarted agent comes
 * back with the keys the cluster uses now, not the ones it was started with.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { Keyring, KeyringError } from '@swim/encryption';
import { nodeCryptoEngine } from '@swim/encryption/node';
import type { EncryptionArgs } from '../commands/agent/encryption-flags.js';

/**
 * The agent's AES-GCM runs through node:crypto: WebCrypto costs several times more per packet in
 * Node (`pnpm bench crypto`); the bytes are the same.
 */
const engine = nodeCryptoEngine;

/** A keyring file bigger than this is not a keyring (each key is at most 44 characters). */
const MAX_FILE_BYTES = 64 * 1024;

/** A keyring that cannot be loaded or saved (exit code 1 at start). */
export class KeyringFileError extends Error {
  override name = 'KeyringFileError';
}

export interface LoadedKeyring {
  readonly keyring: Keyring;
  /** What the operator should know: the file was created, or --encrypt was ignored. */
  readonly notes: readonly string[];
}

/** The agent's keyring from its flags, or undefined when it runs without encryption. */
export async function loadKeyring(args: EncryptionArgs): Promise<LoadedKeyring | undefined> {
  const { key, keyringFile } = args;
  if (keyringFile === undefined) return key === undefined ? undefined : { keyring: Keyring.from([key], { engine }), notes: [] };
  const text = await readKeyringText(keyringFile);
  if (text === undefined) {
    if (key === undefined) throw new KeyringFileError(`keyring file ${keyringFile} does not exist: give --encrypt KEY to create it`);
    const keyring = Keyring.from([key], { engine });
    await saveKeyring(keyringFile, keyring.list());
    return { keyring, notes: [`created keyring file ${keyringFile} with the --encrypt key`] };
  }
  const keyring = parseKeyringFile(keyringFile, text);
  // As Consul does: once the file exists it is the truth (rotations since are in it); the flag a
  // service file still carries is not an error.
  const notes = key !== undefined && !keyring.has(key) ? [`--encrypt ignored: the keyring file ${keyringFile} exists and does not hold that key`] : [];
  return { keyring, notes };
}

export function parseKeyringFile(file: string, text: string): Keyring {
  let keys: unknown;
  try {
    keys = JSON.parse(text);
  } catch {
    throw new KeyringFileError(`keyring file ${file} is not JSON (expected an array of base64 keys, primary first)`);
  }
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string')) {
    throw new KeyringFileError(`keyring file ${file} must hold a non-empty JSON array of base64 keys, primary first`);
  }
  try {
    return Keyring.from(keys as string[], { engine });
  } catch (error) {
    if (error instanceof KeyringError) throw new KeyringFileError(`keyring file ${file}: ${error.message}`);
    throw error;
  }
}

/** Write the keys to `file` atomically (a crash leaves the old file or the new one), readable by the owner only. */
export async function saveKeyring(file: string, keys: readonly string[]): Promise<void> {
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, file);
  } catch (error) {
    throw new KeyringFileError(`cannot write keyring file ${file}: ${(error as Error).message}`);
  }
}

async function readKeyringText(file: string): Promise<string | undefined> {
  try {
    const bytes = await readFile(file);
    if (bytes.length > MAX_FILE_BYTES) throw new KeyringFileError(`keyring file ${file} is ${bytes.length} bytes, more than a keyring holds`);
    return bytes.toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof KeyringFileError) throw error;
    throw new KeyringFileError(`cannot read keyring file ${file}: ${(error as Error).message}`);
  }
}
