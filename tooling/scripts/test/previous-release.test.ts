// `pnpm previous-release` without building anything: which commit it builds (tag first, then the
// recorded sha; one clear error for a shallow clone), the lock between concurrent builders, and the
// cache (reused once complete, rebuilt when a build was interrupted). The real build is what the
// mixed-version tests in apps/cli/test run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withLock } from '../release/build-lock.js';
import type { BuildInput, PreviousBuild } from '../release/previous-build.js';
import { pinnedPnpmVersion } from '../release/previous-build.js';
import { PREVIOUS_RELEASE_FILE, readPreviousRelease, resolveCommit, type PreviousRelease } from '../release/previous-commit.js';
import { defaultCacheRoot, ensurePreviousRelease } from '../release/previous-release.js';
import { ROOT } from '../release/workspace.js';

const temps: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), `swim-previous-${prefix}-`));
  temps.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of temps) spawnSync('rm', ['-rf', dir]);
});

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', '-c', 'tag.gpgSign=false', '-c', 'commit.gpgSign=false', ...args], { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** A repository with two commits; returns it and their shas, oldest first. */
function repository(): { dir: string; shas: [string, string] } {
  const dir = temp('repo');
  git(dir, 'init', '-q');
  writeFileSync(join(dir, 'a.txt'), 'one\n');
  git(dir, 'add', 'a.txt');
  git(dir, 'commit', '-q', '-m', 'one');
  const first = git(dir, 'rev-parse', 'HEAD');
  writeFileSync(join(dir, 'a.txt'), 'two\n');
  git(dir, 'commit', '-q', '-am', 'two');
  return { dir, shas: [first, git(dir, 'rev-parse', 'HEAD')] };
}

const release = (commit: string): PreviousRelease => ({ version: '0.1.0', tag: 'v0.1.0', commit });

describe('the recorded previous release', () => {
  it('is read from tooling/previous-release.json: a version, a tag and a full sha', () => {
    const recorded = readPreviousRelease(ROOT);
    expect(recorded.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(recorded.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(recorded.tag).toBe(`v${recorded.version}`);
  });

  it('lists every problem of a bad file', () => {
    const dir = temp('bad');
    mkdirSync(join(dir, 'tooling'));
    writeFileSync(join(dir, PREVIOUS_RELEASE_FILE), JSON.stringify({ version: 'one', tag: 'v 1', commit: '6bd65ad' }));
    expect(() => readPreviousRelease(dir)).toThrow(
      `${PREVIOUS_RELEASE_FILE}: "version" must be a semver version (got "one"); "tag" must be a tag name (got "v 1"); "commit" must be a full 40-character sha in lower case (got "6bd65ad")`,
    );
    writeFileSync(join(dir, PREVIOUS_RELEASE_FILE), '{ not json');
    expect(() => readPreviousRelease(dir)).toThrow(PREVIOUS_RELEASE_FILE);
  });
});

describe('the commit to build', () => {
  it('is the tag when there is one, else the recorded sha', () => {
    const { dir, shas } = repository();
    expect(resolveCommit(dir, release(shas[0]))).toEqual({ sha: shas[0], via: 'sha' });
    git(dir, 'tag', '-a', 'v0.1.0', '-m', '0.1.0', shas[0]);
    expect(resolveCommit(dir, release(shas[0]))).toEqual({ sha: shas[0], via: 'tag' });
  });

  it('is refused when the tag and the recorded sha disagree', () => {
    const { dir, shas } = repository();
    git(dir, 'tag', 'v0.1.0', shas[1]);
    expect(() => resolveCommit(dir, release(shas[0]))).toThrow(`tag v0.1.0 points at ${shas[1]}, but ${PREVIOUS_RELEASE_FILE} records ${shas[0]} for 0.1.0: one of them is wrong`);
  });

  it('missing from a shallow clone fails with one message saying what to fetch', () => {
    const { dir, shas } = repository();
    const shallow = join(temp('shallow'), 'clone');
    git(tmpdir(), 'clone', '-q', '--depth', '1', `file://${dir}`, shallow);
    expect(() => resolveCommit(shallow, release(shas[0]))).toThrow(
      `the previous release 0.1.0 (tag v0.1.0, commit ${shas[0]}) is not in this clone (it is a shallow clone): fetch it with \`git fetch --unshallow\` or \`git fetch origin ${shas[0]}\`, then run again`,
    );
  });

  it('cannot come from a folder that is not a repository', () => {
    const dir = temp('plain');
    expect(() => resolveCommit(dir, release('0'.repeat(40)))).toThrow(`${dir} is not a git repository git can read (fatal: not a git repository`);
  });
});

describe('the build lock', () => {
  it('lets one holder work at a time', async () => {
    const lock = join(temp('lock'), 'build.lock');
    const order: string[] = [];
    const work = (name: string) => async () => {
      order.push(`${name} in`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      order.push(`${name} out`);
    };
    await Promise.all([withLock(lock, work('a'), { pollMs: 20 }), withLock(lock, work('b'), { pollMs: 20 })]);
    expect(order).toEqual(['a in', 'a out', 'b in', 'b out']);
    expect(existsSync(lock)).toBe(false);
  });

  it('is released when the work throws', async () => {
    const lock = join(temp('lock'), 'build.lock');
    await expect(withLock(lock, () => Promise.reject(new Error('build failed')))).rejects.toThrow('build failed');
    expect(existsSync(lock)).toBe(false);
  });

  it('is taken over from a holder that died', async () => {
    const lock = join(temp('lock'), 'build.lock');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    mkdirSync(lock);
    writeFileSync(join(lock, 'owner.json'), JSON.stringify({ pid: Number(dead.stdout), host: hostname(), since: '2026-01-01T00:00:00.000Z' }));
    expect(await withLock(lock, () => 'built', { pollMs: 20, waitMs: 5_000 })).toBe('built');
  });

  it('is waited for while its holder lives, up to a limit naming the holder', async () => {
    const lock = join(temp('lock'), 'build.lock');
    mkdirSync(lock);
    writeFileSync(join(lock, 'owner.json'), JSON.stringify({ pid: process.pid, host: hostname(), since: '2026-01-01T00:00:00.000Z' }));
    const waits: string[] = [];
    await expect(withLock(lock, () => 'never', { pollMs: 20, waitMs: 300, onWait: (owner) => waits.push(owner) })).rejects.toThrow(
      `waiting for the lock ${lock}, held by pid ${process.pid} on ${hostname()} since 2026-01-01T00:00:00.000Z`,
    );
    expect(waits).toEqual([`pid ${process.pid} on ${hostname()} since 2026-01-01T00:00:00.000Z`]);
  });
});

describe('the cache', () => {
  /** A repository holding the release's commit and tooling/previous-release.json naming it. */
  function project(): string {
    const { dir, shas } = repository();
    mkdirSync(join(dir, 'tooling'));
    writeFileSync(join(dir, PREVIOUS_RELEASE_FILE), JSON.stringify(release(shas[0])));
    return dir;
  }
  /** A build that takes a while and leaves a `swim` file, counting its calls. */
  function fakeBuild(calls: BuildInput[]) {
    return async (input: BuildInput): Promise<PreviousBuild> => {
      calls.push(input);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const swim = join(input.dir, 'swim.js');
      writeFileSync(swim, '');
      return { version: input.release.version, commit: input.sha, swim, packages: [], stepsMs: {}, builtAt: new Date().toISOString() };
    };
  }

  it('builds once for concurrent callers, then reuses the complete build', async () => {
    const root = project();
    const cacheRoot = temp('cache');
    const calls: BuildInput[] = [];
    const build = fakeBuild(calls);
    const [a, b] = await Promise.all([ensurePreviousRelease({ root, cacheRoot, build }), ensurePreviousRelease({ root, cacheRoot, build })]);
    expect(calls.length).toBe(1);
    expect([a.cached, b.cached].sort()).toEqual([false, true]);
    const sha = readPreviousRelease(root).commit;
    expect(calls[0]!.dir).toBe(join(cacheRoot, `0.1.0-${sha}`));
    expect(JSON.parse(readFileSync(join(calls[0]!.dir, 'complete.json'), 'utf8'))).toMatchObject({ version: '0.1.0', commit: sha });
    const again = await ensurePreviousRelease({ root, cacheRoot, build });
    expect(again).toMatchObject({ cached: true, swim: a.swim });
    expect(calls.length).toBe(1);
    await ensurePreviousRelease({ root, cacheRoot, build, rebuild: true });
    expect(calls.length).toBe(2);
  });

  it('discards a build without its completion marker (interrupted) and builds again', async () => {
    const root = project();
    const cacheRoot = temp('cache');
    const dir = join(cacheRoot, `0.1.0-${readPreviousRelease(root).commit}`);
    mkdirSync(join(dir, 'consumer'), { recursive: true });
    writeFileSync(join(dir, 'consumer', 'half-written'), '');
    const calls: BuildInput[] = [];
    const result = await ensurePreviousRelease({ root, cacheRoot, build: fakeBuild(calls) });
    expect(result.cached).toBe(false);
    expect(calls.length).toBe(1);
    expect(existsSync(join(dir, 'consumer', 'half-written'))).toBe(false);
  });

  it('lives under XDG_CACHE_HOME when it is an absolute path, else ~/.cache', () => {
    expect(defaultCacheRoot({ XDG_CACHE_HOME: '/var/cache/ci' })).toBe('/var/cache/ci/swim/previous-release');
    expect(defaultCacheRoot({ XDG_CACHE_HOME: 'relative' })).toMatch(/\/\.cache\/swim\/previous-release$/);
    expect(defaultCacheRoot({})).toMatch(/\/\.cache\/swim\/previous-release$/);
  });

  it('builds with the pnpm the release pins', () => {
    expect(pinnedPnpmVersion(ROOT)).toMatch(/^\d+\.\d+\.\d+$/);
    const dir = temp('pin');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ packageManager: 'yarn@4.0.0' }));
    expect(() => pinnedPnpmVersion(dir)).toThrow('pins no pnpm version');
  });
});
