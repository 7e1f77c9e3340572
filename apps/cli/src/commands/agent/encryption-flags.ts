/**
 * `swim agent --encrypt KEY --keyring-file FILE --label NAME --verify-incoming BOOL
 * --verify-outgoing BOOL`: checked here, so a bad key or label stops the command line with the
 * reason instead of the agent at start.
 */
import { keyArgument } from '../../flags/key.js';
import { UsageError } from '../../flags/usage-error.js';

/** memberlist's label bounds (label.go): 1 to 255 bytes. */
const MAX_LABEL_BYTES = 255;

export interface EncryptionArgs {
  /** `--encrypt`: a key, base64 (checked). */
  readonly key: string | undefined;
  /** `--keyring-file`: where the keyring is loaded from and saved to. */
  readonly keyringFile: string | undefined;
  readonly label: string | undefined;
  readonly verifyIncoming: boolean;
  readonly verifyOutgoing: boolean;
}

export function encryptionArgs(strings: ReadonlyMap<string, string>): EncryptionArgs {
  const command = 'agent';
  const keyText = strings.get('encrypt');
  const key = keyText === undefined ? undefined : keyArgument(keyText);
  if (typeof key === 'object') throw new UsageError(`--encrypt: ${key.problem}`, command);
  const keyringFile = strings.get('keyring-file');
  const label = strings.get('label');
  if (label !== undefined && new TextEncoder().encode(label).length > MAX_LABEL_BYTES) {
    throw new UsageError(`--label is ${new TextEncoder().encode(label).length} bytes, more than ${MAX_LABEL_BYTES}`, command);
  }
  const verifyIncoming = booleanFlag(strings, 'verify-incoming');
  const verifyOutgoing = booleanFlag(strings, 'verify-outgoing');
  const encrypted = key !== undefined || keyringFile !== undefined;
  for (const flag of ['verify-incoming', 'verify-outgoing']) {
    if (!encrypted && strings.has(flag)) throw new UsageError(`--${flag} needs --encrypt or --keyring-file`, command);
  }
  return { key, keyringFile, label, verifyIncoming, verifyOutgoing };
}

function booleanFlag(strings: ReadonlyMap<string, string>, flag: string): boolean {
  const text = strings.get(flag) ?? 'true';
  if (text !== 'true' && text !== 'false') throw new UsageError(`--${flag} '${text}': expected true or false`, 'agent');
  return text === 'true';
}
