/**
 * A user's project outside the repository: a folder in the OS temp dir with a package.json of its
 * own, where plain `npm install` installs the tarballs (and what they depend on, from the registry).
 * Nothing above it has a node_modules folder, so nothing resolves from the workspace.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, parse } from 'node:path';
import { run } from './exec.js';
import type { Packed } from './pack.js';

/** What a TypeScript user adds beside the packages: Node's types at the version the repository builds with. */
export const CONSUMER_DEV_DEPENDENCIES = { '@types/node': '20.19.43' } as const;

export function installScratch(dir: string, packed: readonly Packed[]): void {
  for (let up = dirname(dir); up !== parse(up).root; up = dirname(up)) {
    if (existsSync(join(up, 'node_modules'))) throw new Error(`${up} has a node_modules folder: the scratch project at ${dir} could resolve packages from it`);
  }
  mkdirSync(dir, { recursive: true });
  const manifest = {
    name: 'swim-release-check-consumer',
    private: true,
    type: 'module',
    dependencies: Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`])),
    devDependencies: CONSUMER_DEV_DEPENDENCIES,
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // A user's install: scripts run, peer dependencies are installed (npm >= 7), no workspace, no lockfile of ours.
  const result = run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, timeoutMs: 300_000 });
  if (!result.ok) throw new Error(`npm install in ${dir} failed:\n${result.output}`);
}
