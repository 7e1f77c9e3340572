// The flags of examples/cluster.ts (`pnpm start`): node:util parseArgs, strict. Before, an unknown
// flag or `--seed` without a value ran the default seed silently. The real processes (exit codes,
// the help through pnpm) are in tooling/scripts/test/start-script.test.ts.
import { describe, expect, it } from 'vitest';
import { CLUSTER_USAGE, parseClusterArgs, UsageError } from '../examples/cluster-args.js';

describe('parseClusterArgs', () => {
  it('defaults: seed 1, the lan preset, no help', () => {
    expect(parseClusterArgs([])).toEqual({ help: false, seed: 1, memberlist: false });
  });

  it('--seed N, --seed=N, --memberlist, --help and -h', () => {
    expect(parseClusterArgs(['--seed', '7'])).toEqual({ help: false, seed: 7, memberlist: false });
    expect(parseClusterArgs(['--seed=0', '--memberlist'])).toEqual({ help: false, seed: 0, memberlist: true });
    expect(parseClusterArgs(['--help']).help).toBe(true);
    expect(parseClusterArgs(['-h']).help).toBe(true);
  });

  it('a leading -- (what `pnpm start -- --help` passes on) is dropped', () => {
    expect(parseClusterArgs(['--', '--help']).help).toBe(true);
    expect(parseClusterArgs(['--', '--seed', '3']).seed).toBe(3);
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['--seed'], /'--seed <value>' argument missing/],
    [['--seed', '--memberlist'], /--seed/],
    [['--seed', 'x'], /non-negative integer, got 'x'/],
    [['--seed=-3'], /non-negative integer, got '-3'/],
    [['--seed='], /non-negative integer, got ''/],
    [['--seed', '1.5'], /non-negative integer/],
    [['stray'], /Unexpected argument 'stray'/],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseClusterArgs(argv)).toThrow(UsageError);
    expect(() => parseClusterArgs(argv)).toThrow(message);
  });

  it('the usage names every flag and how to reach it through pnpm', () => {
    for (const flag of ['--seed N', '--memberlist', '--help']) expect(CLUSTER_USAGE).toContain(flag);
    expect(CLUSTER_USAGE).toContain('pnpm start -- --help');
  });
});
