/** Seeds to join through: `HOST:PORT`, host names allowed (the join resolves them). */
import type { Command } from '../commands/names.js';
import { parseHostPort } from './host-port.js';
import { UsageError } from './usage-error.js';

/** Seeds one `swim join` (or POST /join) may name: each is dialled. */
export const MAX_JOIN_SEEDS = 64;

/** A seed `HOST:PORT` as given (host names allowed), checked. */
export function seedAddress(command: Command, value: string): string {
  const parsed = parseHostPort(value, { ipOnly: false, allowZero: false });
  if (typeof parsed === 'string') throw new UsageError(`seed '${value}': ${parsed}`, command);
  return value;
}
