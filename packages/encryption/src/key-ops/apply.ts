import type { Keyring } from '../keyring.js';
import { MAX_KEY_OP_ERROR_CHARS, type KeyOp, type KeyOpReply } from './codec.js';

/** The part of a {@link Keyring} a key op touches. */
export type KeyOpKeyring = Pick<Keyring, 'primary' | 'list' | 'install' | 'use' | 'remove'>;

/**
 * Applies one checked op to this member's keyring and describes the keyring afterwards, with
 * memberlist's Keyring semantics: AddKey of a present key is a no-op, UseKey needs the key
 * installed ("Requested key is not in the keyring"), RemoveKey refuses the primary ("Removing the
 * primary key is not allowed") and is a no-op for a key that is not there; the Keyring enforces
 * them. Never throws.
 */
export function applyKeyOp(keyring: KeyOpKeyring, op: KeyOp): KeyOpReply {
  let error: string | undefined;
  try {
    if (op.op === 'install') keyring.install(op.key);
    else if (op.op === 'use') keyring.use(op.key);
    else if (op.op === 'remove') keyring.remove(op.key);
  } catch (thrown) {
    // The Keyring's refusals (KeyringError) name the problem, never the key; a listener that failed
    // to persist the change (a keyring file) is reported too, though the change took effect.
    error = thrown instanceof Error ? thrown.message : String(thrown);
  }
  return keyringReply(keyring, error);
}

/** A reply carrying the keyring as it is, refused with `error` (cut to what a reply may carry) when given. */
export function keyringReply(keyring: KeyOpKeyring, error?: string): KeyOpReply {
  const keys = keyring.list();
  const primary = keyring.primary;
  if (error === undefined) return { ok: true, keys, primary };
  return { ok: false, error: error.length > MAX_KEY_OP_ERROR_CHARS ? error.slice(0, MAX_KEY_OP_ERROR_CHARS) : error, keys, primary };
}
