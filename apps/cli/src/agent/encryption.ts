/**
 * The agent's encryption and cluster label: the layer wrapped around its UDP transport
 * (secureTransport; the keyring comes from keyring-file.ts) and the start line saying what it does.
 */
import { KEY_OPS_SERVICE, keyOpsService, secureTransport, type Keyring, type SecureTransport } from '@swim/encryption';
import type { UdpTransport } from '@swim/transport-udp';
import type { EncryptionArgs } from '../commands/agent/encryption-flags.js';
import type { Wire } from '../commands/agent/flags.js';

export interface SecureLayerOptions {
  readonly wire: Wire;
  readonly encryption: EncryptionArgs;
  /** An exception caught inside the layer, and where. */
  readonly onError: (error: unknown, where: string) => void;
}

/** Encryption and the label wrap the sockets: the member only ever sees what decrypted. Undefined with neither a keyring nor a label. */
export function secureLayer(udp: UdpTransport, keyring: Keyring | undefined, options: SecureLayerOptions): SecureTransport | undefined {
  const { wire, encryption, onError } = options;
  return keyring === undefined && encryption.label === undefined
    ? undefined
    : secureTransport(udp, {
        // Key operations are swim's own service streams; a memberlist cluster rotates keys with Serf's queries.
        ...(keyring === undefined ? {} : { keyring, ...(wire === 'memberlist' ? {} : { services: { [KEY_OPS_SERVICE]: keyOpsService(keyring) } }) }),
        ...(encryption.label === undefined ? {} : { label: encryption.label }),
        verifyIncoming: encryption.verifyIncoming,
        verifyOutgoing: encryption.verifyOutgoing,
        onError,
      });
}

/** The start line about the layer: encryption on (how many keys, never the keys) or not, the label, the verify switches turned off. */
export function describeSecureLayer(secure: SecureTransport, keyring: Keyring | undefined): { readonly text: string; readonly fields: Record<string, unknown> } {
  const what = [keyring === undefined ? 'no encryption' : `encryption on (${keyring.list().length} key${keyring.list().length === 1 ? '' : 's'})`];
  if (secure.label !== undefined) what.push(`label '${secure.label}'`);
  if (!secure.verifyIncoming) what.push('plaintext accepted (--verify-incoming false)');
  if (!secure.verifyOutgoing) what.push('sending plaintext (--verify-outgoing false)');
  return { text: what.join(', '), fields: { encrypted: keyring !== undefined, label: secure.label, verifyIncoming: secure.verifyIncoming, verifyOutgoing: secure.verifyOutgoing } };
}
