// `pnpm pack` (and `pnpm publish`, which packs) always builds first, or fails: every package under
// packages/ runs tooling/scripts/prepack.mjs as its `prepack`, which builds it and the workspace
// packages it depends on through turbo. Without it, `pnpm pack` on a fresh checkout made tarballs
// without dist/.
//
// The behaviour is checked in a scratch copy of the workspace (root manifests, tooling, and
// @swim/runtime with the packages it needs, without any dist/), so nothing in the working tree is
// rebuilt or deleted: packing @swim/runtime there must build @swim/core first (runtime's build reads
// core's declarations), ship dist/, and fail without a tarball when the build fails.
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const PREPACK = 'node ../../tooling/scripts/prepack.mjs';

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly scripts?: Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

const manifestOf = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

const packageDirs = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(root, 'packages', d.name, 'package.json')))
  .map((d) => join(root, 'packages', d.name));

/** pnpm: the one running us when started by a pnpm script (it may not be on PATH under `npx pnpm`), else from PATH. */
function pnpmCommand(args: readonly string[]): [string, string[]] {
  const execpath = process.env['npm_execpath'];
  if (execpath && /pnpm/i.test(execpath)) return /\.[cm]?js$/.test(execpath) ? [process.execPath, [execpath, ...args]] : [execpath, [...args]];
  return ['pnpm', [...args]];
}

describe('every package under packages/ builds before it is packed', () => {
  it.each(packageDirs.map((dir) => [relative(root, dir), dir] as const))('%s has the prepack script', (_rel, dir) => {
    expect(manifestOf(dir).scripts?.['prepack']).toBe(PREPACK);
  });
});

describe('pnpm pack in a scratch copy of the workspace, nothing built', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'swim-prepack-'));
  const tarballs = join(scratch, '.tarballs');
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** The package and every workspace package it (dev-)depends on, by directory name under packages/. */
  const closure = (name: string, seen = new Set<string>()): Set<string> => {
    const dir = packageDirs.find((d) => manifestOf(d).name === name);
    if (dir === undefined || seen.has(basename(dir))) return seen;
    seen.add(basename(dir));
    const manifest = manifestOf(dir);
    for (const [dep, range] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
      if (range.startsWith('workspace:')) closure(dep, seen);
    }
    return seen;
  };

  const setUp = (): void => {
    for (const file of ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml', 'turbo.json']) cpSync(join(root, file), join(scratch, file));
    cpSync(join(root, 'tooling/tsconfig'), join(scratch, 'tooling/tsconfig'), { recursive: true });
    for (const script of ['prepack.mjs', 'clean-dist.mjs']) cpSync(join(root, 'tooling/scripts', script), join(scratch, 'tooling/scripts', script));
    for (const dir of closure('@swim/runtime')) {
      const from = join(root, 'packages', dir);
      // node_modules too (pnpm's relative symlinks, copied as they are, point into the scratch
      // packages and through the scratch's node_modules link into the real store).
      cpSync(from, join(scratch, 'packages', dir), {
        recursive: true,
        verbatimSymlinks: true,
        filter: (path) => !['dist', 'test', 'bench', '.turbo'].includes(relative(from, path)),
      });
    }
    symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'), 'dir');
    mkdirSync(tarballs);
  };

  const pack = (dir: string): { status: number | null; output: string; created: string[] } => {
    const before = new Set(readdirSync(tarballs));
    // A clean environment for turbo: not the variables of a turbo run this test may be part of.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('TURBO_')));
    const [command, args] = pnpmCommand(['pack', '--pack-destination', tarballs]);
    const result = spawnSync(command, args, { cwd: join(scratch, 'packages', dir), encoding: 'utf8', env: { ...env, FORCE_COLOR: '0' } });
    return {
      status: result.status,
      output: `${result.stdout}${result.stderr}${result.error ? String(result.error) : ''}`,
      created: readdirSync(tarballs).filter((f) => !before.has(f)),
    };
  };

  const listTarball = (file: string): string[] => {
    const result = spawnSync('tar', ['-tzf', join(tarballs, file)], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    return result.stdout.split('\n').filter(Boolean);
  };

  it('builds @swim/runtime and @swim/core first, then packs dist/', { timeout: 180_000 }, () => {
    setUp();
    expect(existsSync(join(scratch, 'packages/core/dist'))).toBe(false);
    expect(existsSync(join(scratch, 'packages/runtime/dist'))).toBe(false);

    const { status, output, created } = pack('runtime');
    expect(status, output).toBe(0);
    expect(created, output).toHaveLength(1);
    const files = listTarball(created[0]!);
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    // The dependency was built on the way (runtime's declarations import core's).
    expect(existsSync(join(scratch, 'packages/core/dist/index.d.ts'))).toBe(true);
  });

  it('a failing build fails the pack, and no tarball is written', { timeout: 180_000 }, () => {
    if (!existsSync(tarballs)) setUp();
    appendFileSync(join(scratch, 'packages/runtime/src/index.ts'), '\nexport const broken: number = "not a number";\n');
    const { status, output, created } = pack('runtime');
    expect(status, output).not.toBe(0);
    expect(output).toContain('prepack @swim/runtime: the build failed');
    expect(created, output).toEqual([]);
  });
});
