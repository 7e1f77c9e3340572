/** `key=value` flags (`swim members --tag`, `swim tags --set`). */
import type { Command } from '../commands/names.js';
import { UsageError } from './usage-error.js';

/** `key=value` pairs (a key given once, never empty) into an object. */
export function keyValues(command: Command, flag: string, pairs: readonly string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--${flag} '${pair}': expected key=value`, command);
    const key = pair.slice(0, eq);
    if (Object.hasOwn(result, key)) throw new UsageError(`--${flag} key '${key}' given twice`, command);
    // defineProperty: a tag named __proto__ is a tag like any other.
    Object.defineProperty(result, key, { value: pair.slice(eq + 1), enumerable: true, writable: true, configurable: true });
  }
  return result;
}
