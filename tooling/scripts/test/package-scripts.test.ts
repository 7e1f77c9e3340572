// Every workspace package answers `pnpm --filter <name> test`: a package with tests runs exactly its
// own test files under the root vitest config (which resolves workspace packages from source); a
// package without tests says why instead of passing silently. turbo's `test` task builds what the
// tests that read build output need.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('../../../', import.meta.url)));

interface Manifest {
  readonly name: string;
  readonly scripts?: Record<string, string>;
}

interface WorkspacePackage {
  /** Path from the repository root, e.g. `packages/core`. */
  readonly dir: string;
  readonly manifest: Manifest;
  /** Test files under the package, relative to the repository root. */
  readonly testFiles: readonly string[];
}

/** The globs of pnpm-workspace.yaml are all of the form `group/*`. */
function workspaceGroups(): string[] {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const section = /^packages:\s*\n((?:[ \t]+-.*\n?)+)/m.exec(yaml);
  if (!section) throw new Error('pnpm-workspace.yaml has no packages list');
  return [...section[1]!.matchAll(/-\s*['"]?([^'"\s]+)\/\*['"]?/g)].map((m) => m[1]!);
}

function testFilesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const child = join(path, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (/\.test\.[cm]?[jt]s$/.test(entry.name)) found.push(relative(root, child));
    }
  };
  walk(join(root, dir));
  return found.sort();
}

const packages: WorkspacePackage[] = workspaceGroups().flatMap((group) =>
  readdirSync(join(root, group), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, group, d.name, 'package.json')))
    .map((d) => {
      const dir = `${group}/${d.name}`;
      const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as Manifest;
      return { dir, manifest, testFiles: testFilesUnder(dir) };
    }),
);

const byName = new Map(packages.map((p) => [p.manifest.name, p]));

it('finds the workspace packages', () => {
  expect(byName.has('@swim/core')).toBe(true);
  expect(byName.has('@swim/cli')).toBe(true);
  expect(byName.has('@swim/transport-conformance')).toBe(true);
});

describe.each(packages.map((p) => [p.manifest.name, p] as const))('%s', (_name, pkg) => {
  const script = pkg.manifest.scripts?.['test'];

  it('has a test script', () => {
    expect(script, `${pkg.dir}/package.json has no "test" script`).toMatch(/\S/);
  });

  if (pkg.testFiles.length > 0) {
    it('runs its own tests, and only those, with the root vitest config', () => {
      expect(script).toBe(`vitest run --root ../.. ${pkg.dir}/`);
      // The filter is a substring of paths: it must not also pick up another package's tests.
      const others = packages.filter((p) => p !== pkg).flatMap((p) => p.testFiles);
      expect(others.filter((file) => file.includes(`${pkg.dir}/`))).toEqual([]);
    });
  } else {
    it('has no tests of its own and does not pretend to', () => {
      if (script?.startsWith('echo ')) {
        // It says why it has nothing to run.
        expect(script).toContain(pkg.manifest.name);
        return;
      }
      // Otherwise it runs the tests of other packages that exercise it: each named file exists and
      // imports this package.
      const files = (script ?? '').replace(/^vitest run --root \.\.\/\.\. /, '').split(/\s+/);
      expect(script).toMatch(/^vitest run --root \.\.\/\.\. \S/);
      for (const file of files) {
        expect(existsSync(join(root, file)), file).toBe(true);
        expect(readFileSync(join(root, file), 'utf8'), file).toContain(`from '${pkg.manifest.name}'`);
      }
    });
  }
});

describe('turbo test task', () => {
  const turbo = JSON.parse(readFileSync(join(root, 'turbo.json'), 'utf8')) as {
    tasks: Record<string, { dependsOn?: string[]; cache?: boolean }>;
  };

  it('is not cached: tests read other packages (sources, READMEs, manifests) that its inputs cannot list', () => {
    for (const [id, task] of Object.entries(turbo.tasks)) if (id === 'test' || id.endsWith('#test')) expect(task.cache, id).toBe(false);
  });

  it('builds every package under packages/ before the repository-level tests (they check and pack dist/)', () => {
    const needed = packages.filter((p) => p.dir.startsWith('packages/') && p.manifest.scripts?.['build']).map((p) => `${p.manifest.name}#build`);
    expect(turbo.tasks['@swim/scripts#test']?.dependsOn ?? []).toEqual(expect.arrayContaining(needed));
  });

  it('builds the cli before its tests (one runs the built binary)', () => {
    expect(turbo.tasks['@swim/cli#test']?.dependsOn ?? []).toContain('build');
  });
});
