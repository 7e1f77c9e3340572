/** The body of POST /join, checked before anything is dialled: each seed costs a connection. */
import { parseHostPort } from '../../flags/host-port.js';
import { MAX_JOIN_SEEDS } from '../../flags/seeds.js';

/** Longest seed accepted: a 253-byte DNS name, brackets, a colon and a port, with room to spare. */
export const MAX_SEED_LENGTH = 300;

/** The seeds of `{"seeds": ["HOST:PORT", ...]}`, or every problem with them in one message. */
export function joinSeeds(body: unknown): string[] | { readonly error: string } {
  const seeds = (body as { seeds?: unknown } | undefined)?.seeds;
  if (!Array.isArray(seeds) || seeds.length === 0) return { error: 'expected {"seeds": ["HOST:PORT", ...]}' };
  if (seeds.length > MAX_JOIN_SEEDS) return { error: `at most ${MAX_JOIN_SEEDS} seeds per join, got ${seeds.length}` };
  const problems: string[] = [];
  seeds.forEach((seed: unknown, i) => {
    if (typeof seed !== 'string') return void problems.push(`seed ${i} is not a string`);
    if (seed.length > MAX_SEED_LENGTH) return void problems.push(`seed ${i} is ${seed.length} characters, more than ${MAX_SEED_LENGTH}`);
    const parsed = parseHostPort(seed, { ipOnly: false, allowZero: false });
    if (typeof parsed === 'string') problems.push(`seed '${seed}': ${parsed}`);
  });
  return problems.length > 0 ? { error: problems.join('; ') } : (seeds as string[]);
}
