/**
 * Builds a previous release as its users got it: the release's commit exported from git (no
 * working-tree files), installed with the pnpm it pins (frozen lockfile), its public packages
 * built and packed as `pnpm publish` would, and the tarballs npm-installed into a scratch project,
 * whose `swim` is then that release's agent. The same pack and install steps as `pnpm release:check`.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pnpmCommand, run, type RunResult } from './exec.js';
import { packAll } from './pack.js';
import type { PreviousRelease } from './previous-commit.js';
import { installScratch } from './scratch.js';
import { binsOf, publicPackages, readManifest } from './workspace.js';

/** What a finished build left in its cache folder (also its completion marker's content). */
export interface PreviousBuild {
  readonly version: string;
  readonly commit: string;
  /** The installed @swim/cli's `swim` entry point (run it with `node`). */
  readonly swim: string;
  /** `name@version` of every package installed from the release's tarballs. */
  readonly packages: readonly string[];
  /** How long each step took, ms. */
  readonly stepsMs: Readonly<Record<string, number>>;
  readonly builtAt: string;
}

export interface BuildInput {
  /** The repository holding the release's commit. */
  readonly root: string;
  readonly release: PreviousRelease;
  /** The commit to export (resolved from the tag or the sha). */
  readonly sha: string;
  /** An empty folder to build in; `tarballs/` and `consumer/` stay, `source/` is removed at the end. */
  readonly dir: string;
  readonly log: (line: string) => void;
}

function must(result: RunResult, what: string): RunResult {
  if (!result.ok) throw new Error(`${what} failed (exit ${result.status}):\n${result.output.slice(-4000)}`);
  return result;
}

/** The pnpm version a tree pins in its root package.json (`packageManager`). */
export function pinnedPnpmVersion(treeRoot: string): string {
  const packageManager = (JSON.parse(readFileSync(join(treeRoot, 'package.json'), 'utf8')) as { packageManager?: unknown }).packageManager;
  const match = typeof packageManager === 'string' ? /^pnpm@(\d+\.\d+\.\d+)/.exec(packageManager) : null;
  if (match === null) throw new Error(`${treeRoot}/package.json pins no pnpm version ("packageManager": "pnpm@x.y.z")`);
  return match[1]!;
}

/** The pnpm that runs us when it is the pinned version, else that version through npx. */
function pnpmOfVersion(version: string, cwd: string): (args: readonly string[]) => [string, string[]] {
  const running = run(...pnpmCommand(['--version']), { cwd, timeoutMs: 60_000 });
  if (running.ok && running.stdout.trim() === version) return pnpmCommand;
  return (args) => ['npx', ['-y', `pnpm@${version}`, ...args]];
}

export function buildPreviousRelease({ root, release, sha, dir, log }: BuildInput): PreviousBuild {
  const stepsMs: Record<string, number> = {};
  const step = <T>(name: string, work: () => T): T => {
    const started = Date.now();
    log(`${name} ...`);
    const result = work();
    stepsMs[name] = Date.now() - started;
    log(`${name}: ${(stepsMs[name] / 1000).toFixed(1)} s`);
    return result;
  };
  const source = join(dir, 'source');
  mkdirSync(source, { recursive: true });

  step('export', () => {
    const archive = join(dir, 'source.tar');
    must(run('git', ['archive', '--format=tar', '-o', archive, sha], { cwd: root }), `git archive ${sha}`);
    must(run('tar', ['-xf', archive, '-C', source], { cwd: dir }), 'tar -x');
    rmSync(archive);
  });

  const pnpmVersion = pinnedPnpmVersion(source);
  const pnpm = pnpmOfVersion(pnpmVersion, source);
  // Outside any workspace: the tree's own lockfile, exactly (CI=true would refuse to change it too).
  const quiet = { TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1', CI: 'true' };
  step(`pnpm ${pnpmVersion} install --frozen-lockfile`, () =>
    must(run(...pnpm(['install', '--frozen-lockfile', '--reporter=append-only']), { cwd: source, env: quiet, timeoutMs: 900_000 }), 'pnpm install'),
  );

  const packages = publicPackages(source);
  const wrongVersion = packages.filter((p) => p.manifest.version !== release.version).map((p) => `${p.manifest.name}@${p.manifest.version}`);
  if (wrongVersion.length > 0) throw new Error(`commit ${sha} is not release ${release.version}: it has ${wrongVersion.join(', ')}`);

  // One turbo run builds them all, two at a time; each prepack's turbo run then finds its build cached.
  const filters = packages.map((p) => `--filter=${p.manifest.name}`);
  step('build the public packages', () =>
    must(run(join(source, 'node_modules/.bin/turbo'), ['run', 'build', '--concurrency=2', '--output-logs=errors-only', ...filters], { cwd: source, env: quiet, timeoutMs: 900_000 }), 'turbo run build'),
  );
  const packed = step('pnpm pack', () => packAll(packages, join(dir, 'tarballs'), { root: source, pnpm }));
  const consumer = join(dir, 'consumer');
  step('npm install the tarballs', () => installScratch(consumer, packed));

  const cliDir = join(consumer, 'node_modules/@swim/cli');
  const swimEntry = binsOf(readManifest(join(cliDir, 'package.json')))['swim'];
  if (swimEntry === undefined) throw new Error(`the installed @swim/cli ${release.version} has no swim bin`);
  const swim = join(cliDir, swimEntry);
  const version = must(run(process.execPath, [swim, '--version'], { cwd: consumer }), `${swim} --version`).stdout.trim();
  if (version !== release.version) throw new Error(`the installed swim says it is ${version}, not ${release.version}`);
  step('remove the exported source', () => rmSync(source, { recursive: true, force: true }));
  if (!existsSync(swim)) throw new Error(`${swim} is missing after the build`);
  return { version: release.version, commit: sha, swim, packages: packed.map((p) => `${p.name}@${p.version}`), stepsMs, builtAt: new Date().toISOString() };
}
