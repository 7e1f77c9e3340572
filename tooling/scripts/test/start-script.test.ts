// `pnpm start` (packages/core/examples/cluster.ts through the root script) as a user runs it: a
// wrong flag or `--seed` without a value is a usage error, exit 2 (as `swim` and `pnpm bench`),
// not a silent run with the default seed; the help is ours. pnpm answers `pnpm start --help`
// itself (its built-in `start` command owns --help), so `pnpm start -- --help` and
// `pnpm run start --help` are the ways to reach ours.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** pnpm: the one running us when started by a pnpm script (it may not be on PATH under `npx pnpm`), else from PATH. */
function pnpm(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const execpath = process.env['npm_execpath'];
  const [command, commandArgs] =
    execpath && /pnpm/i.test(execpath) ? (/\.[cm]?js$/.test(execpath) ? [process.execPath, [execpath, ...args]] : [execpath, [...args]]) : ['pnpm', [...args]];
  const result = spawnSync(command, commandArgs, { cwd: root, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('pnpm start', () => {
  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['--seed'], "Option '--seed <value>' argument missing"],
    [['--seed', 'x'], "--seed wants a non-negative integer, got 'x'"],
  ])('pnpm start %j: usage error, exit 2', { timeout: 60_000 }, (args, message) => {
    const { status, stdout, stderr } = pnpm(['start', ...args]);
    expect(stderr).toContain(`cluster example: ${message}`);
    expect(stderr).toContain('usage: pnpm start [--seed N] [--memberlist]');
    expect(stdout).not.toContain('@swim/core simulated cluster');
    expect(status, stdout + stderr).toBe(2);
  });

  it.each([[['start', '--', '--help']], [['run', 'start', '--help']], [['run', 'start', '-h']]])('pnpm %j: our help, exit 0', { timeout: 60_000 }, (args) => {
    const { status, stdout, stderr } = pnpm(args);
    expect(stdout).toContain('usage: pnpm start [--seed N] [--memberlist]');
    expect(stdout).not.toContain('@swim/core simulated cluster');
    expect(status, stdout + stderr).toBe(0);
  });

  it('pnpm start --seed 7 runs seed 7', { timeout: 120_000 }, () => {
    const { status, stdout, stderr } = pnpm(['start', '--seed', '7']);
    expect(stdout).toContain('@swim/core simulated cluster: 16 members, lan preset, seed 7');
    expect(status, stdout + stderr).toBe(0);
  });
});
