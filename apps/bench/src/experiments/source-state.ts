import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The code a bench ran (it runs the packages from source): git HEAD and the source files changed from it. */
export interface SourceState {
  readonly commit: string;
  readonly uncommitted: readonly string[];
}

/**
 * git HEAD and the files under packages/ and apps/ that differ from it and whose path matches
 * `sources` (the code the bench runs), read once at the start; undefined outside a git checkout.
 */
export function sourceState(sources: RegExp): SourceState | undefined {
  const dir = fileURLToPath(new URL('.', import.meta.url));
  const git = (...args: string[]) => spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  const head = git('rev-parse', '--short=12', 'HEAD');
  if (head.status !== 0) return undefined;
  const root = git('rev-parse', '--show-toplevel').stdout.trim();
  const status = git('-C', root, 'status', '--porcelain', '--untracked-files=no', '--', 'packages', 'apps');
  const uncommitted = status.stdout
    .split('\n')
    .map((line) => line.slice(3).trim())
    .filter((path) => path !== '' && sources.test(path));
  return { commit: head.stdout.trim(), uncommitted };
}
