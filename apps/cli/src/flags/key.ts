/** An encryption KEY on the command line (`swim agent --encrypt`, `swim keys install|use|remove KEY`), and the actions of `swim keys`. */
import { KeyringError, parseKey } from '@swim/encryption';

export const KEY_ACTIONS = ['list', 'install', 'use', 'remove'] as const;
export type KeyAction = (typeof KEY_ACTIONS)[number];

/** The key as given when it is one, else why not. */
export function keyArgument(text: string): string | { readonly problem: string } {
  try {
    parseKey(text);
    return text;
  } catch (error) {
    if (error instanceof KeyringError) return { problem: error.message };
    throw error;
  }
}
