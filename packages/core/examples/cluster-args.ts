import { parseArgs } from 'node:util';

/** The flags of examples/cluster.ts (`pnpm start` at the repository root). */
export interface ClusterArgs {
  readonly help: boolean;
  /** Seed of the whole run: same seed, same run. */
  readonly seed: number;
  /** memberlist's behaviour: `memberlistProfile(presets.lan())`, the corrections of docs/design.md off. */
  readonly memberlist: boolean;
}

export const CLUSTER_USAGE = `usage: pnpm start [--seed N] [--memberlist]

A simulated cluster on virtual time: 16 members join through one seed member, one crashes, one is
paused (as SIGSTOP) and resumed, one leaves. Prints a timeline of what the members saw, a summary
and the core counters.

  --seed N        seed of the run (default 1): the same seed gives the same run
  --memberlist    memberlist's behaviour (the memberlist profile: the corrections off)
  --help, -h      this help

pnpm answers \`pnpm start --help\` with its own help; \`pnpm start -- --help\` or
\`pnpm run start --help\` reach this one.`;

/** A mistake in the command line: print it with the usage and exit 2. */
export class UsageError extends Error {}

export function parseClusterArgs(argv: readonly string[]): ClusterArgs {
  // `pnpm start -- --seed 7` passes the `--` on.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        seed: { type: 'string' },
        memberlist: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  const seedText = values.seed;
  const seed = seedText === undefined ? 1 : Number(seedText);
  if (seedText !== undefined && (seedText.trim() === '' || !Number.isSafeInteger(seed) || seed < 0)) {
    throw new UsageError(`--seed wants a non-negative integer, got '${seedText}'`);
  }
  return { help: values.help === true, seed, memberlist: values.memberlist === true };
}
