/** `swim keygen`: a new random encryption key. */
import { generateKey } from '@swim/encryption';
import { noPositionals, type FlagSpecs, type RawFlags } from '../flags/scan.js';

export interface KeygenArgs {
  readonly command: 'keygen';
}

export const KEYGEN_FLAGS: FlagSpecs = {};

export const KEYGEN_USAGE = `usage: swim keygen

Prints a new random 32-byte key, base64-encoded, for --encrypt or \`swim keys install\`.`;

export function keygenArgs(raw: RawFlags): KeygenArgs {
  noPositionals('keygen', raw);
  return { command: 'keygen' };
}

export function keygen(out: (text: string) => void): void {
  out(generateKey());
}
