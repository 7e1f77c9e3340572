import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Keyring } from '@swim/encryption';

/**
 * The member credential: a gateway's signature of a browser member's name, handed to the client in
 * its welcome. Another gateway of the same cluster checks it when the client says hello there with
 * `from` (its relay at a gateway that went away), and only then moves the member instead of
 * refusing it: the name is proved without a round trip to the first gateway, which may be dead.
 *
 *   credential = base64url(HMAC-SHA256(key, "swim-ws-member\0" + name))
 *
 * The gateways of a cluster must share the key's source (README "Several gateways and failover").
 */
export interface CredentialKeys {
  /** Where the key comes from, for the README's table and for tests. */
  readonly source: 'secret' | 'token' | 'keyring' | 'random';
  /** The credential for `name`, made with the primary key. */
  sign(name: string): string;
  /** Whether `credential` is `name`'s under any key (a keyring's every key), compared in constant time. */
  verify(name: string, credential: string): boolean;
}

const CREDENTIAL_LABEL = 'swim-ws-member\0';
/** Keys are derived from their source under this label, so that a credential never is an HMAC keyed by the token or a cluster key itself. */
const KEY_LABEL = 'swim-ws-credential-key\0';

/**
 * The credential keys of a gateway: from `credentialSecret`, else the join `token`, else the relay
 * encryption keyring (signed with the primary, verified with every key, read at each use so that a
 * rotation applies at once), else a random key of this process (then no gateway but this one
 * verifies its credentials: members cannot move to another).
 */
export function credentialKeys(sources: { readonly credentialSecret?: string | undefined; readonly token?: string | undefined; readonly keyring?: Keyring | undefined }): CredentialKeys {
  const { credentialSecret, token, keyring } = sources;
  if (credentialSecret !== undefined) return fixedKeys('secret', deriveKey(Buffer.from(credentialSecret, 'utf8')));
  if (token !== undefined) return fixedKeys('token', deriveKey(Buffer.from(token, 'utf8')));
  if (keyring !== undefined) return keyringKeys(keyring);
  return fixedKeys('random', randomBytes(32));
}

function fixedKeys(source: CredentialKeys['source'], key: Buffer): CredentialKeys {
  return {
    source,
    sign: (name) => sign(key, name),
    verify: (name, credential) => matches(sign(key, name), credential),
  };
}

function keyringKeys(keyring: Keyring): CredentialKeys {
  // Derived keys by base64 key, so that each is derived once however often it verifies. Keys no
  // longer in the keyring are dropped at the next use, so that a removed key's material is not kept.
  const derived = new Map<string, Buffer>();
  const currentKeys = (): readonly string[] => {
    const keys = keyring.list();
    if (derived.size > keys.length) for (const base64 of derived.keys()) if (!keys.includes(base64)) derived.delete(base64);
    return keys;
  };
  const keyOf = (base64: string): Buffer => {
    let key = derived.get(base64);
    if (key === undefined) {
      key = deriveKey(Buffer.from(base64, 'base64'));
      derived.set(base64, key);
    }
    return key;
  };
  return {
    source: 'keyring',
    sign: (name) => {
      currentKeys();
      return sign(keyOf(keyring.primary), name);
    },
    verify: (name, credential) => {
      // Every key is tried (no early exit), so the time does not tell which one matched.
      let ok = false;
      for (const base64 of currentKeys()) ok = matches(sign(keyOf(base64), name), credential) || ok;
      return ok;
    },
  };
}

function deriveKey(source: Buffer): Buffer {
  return createHmac('sha256', source).update(KEY_LABEL, 'utf8').digest();
}

function sign(key: Buffer, name: string): string {
  return createHmac('sha256', key).update(CREDENTIAL_LABEL + name, 'utf8').digest('base64url');
}

/** Constant-time comparison of an expected credential with a presented one of any length. */
function matches(expected: string, presented: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(presented, 'utf8');
  // Compare against itself when the lengths differ, so the time is the same and the answer false.
  return timingSafeEqual(a, b.length === a.length ? b : a) && b.length === a.length;
}
