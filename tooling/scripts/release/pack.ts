/**
 * Packs every public package the way `pnpm publish` would (prepack builds it; `workspace:^` becomes
 * a real range) and checks each packed manifest on its own terms: no workspace protocol left, every
 * dependency on a sibling names a public sibling and a range its version satisfies, and every file
 * the exports map and `bin` point at is inside the tarball.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { pnpmCommand, run } from './exec.js';
import { binsOf, type Manifest, type PublicPackage, ROOT } from './workspace.js';

export interface Packed {
  readonly dir: string;
  readonly name: string;
  readonly version: string;
  readonly tarball: string;
  /** The package.json inside the tarball (what npm reads). */
  readonly manifest: Manifest;
  /** Paths inside the tarball, without the leading `package/`. */
  readonly files: readonly string[];
}

export interface PackOptions {
  /** The repository the packages' folders are relative to (default: this one; another for an exported earlier release). */
  readonly root?: string;
  /** The pnpm to run, as command and arguments for the given pnpm arguments (default: {@link pnpmCommand}). */
  readonly pnpm?: (args: readonly string[]) => [string, string[]];
}

export function packAll(packages: readonly PublicPackage[], destination: string, { root = ROOT, pnpm = pnpmCommand }: PackOptions = {}): Packed[] {
  mkdirSync(destination, { recursive: true });
  return packages.map(({ dir }) => {
    const result = run(...pnpm(['pack', '--pack-destination', destination, '--json']), { cwd: join(root, dir) });
    if (!result.ok) throw new Error(`pnpm pack in ${dir} failed:\n${result.output}`);
    const { name, version, filename } = JSON.parse(result.stdout) as { name: string; version: string; filename: string };
    const listing = run('tar', ['-tzf', filename], { cwd: destination });
    if (!listing.ok) throw new Error(`tar -tzf ${filename}: ${listing.output}`);
    const files = listing.stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
    const manifestText = run('tar', ['-xzOf', filename, 'package/package.json'], { cwd: destination });
    if (!manifestText.ok) throw new Error(`${filename} has no package/package.json: ${manifestText.output}`);
    return { dir, name, version, tarball: filename, manifest: JSON.parse(manifestText.stdout) as Manifest, files };
  });
}

/** What is wrong with the packed manifests, as a user installing them from a registry would meet it. */
export function packedManifestProblems(packed: readonly Packed[]): string[] {
  const versions = new Map(packed.map((p) => [p.name, p.version]));
  const problems: string[] = [];
  for (const p of packed) {
    const contents = new Set(p.files);
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
      for (const [dep, range] of Object.entries(p.manifest[field] ?? {})) {
        if (range.startsWith('workspace:')) problems.push(`${p.name}: ${field}.${dep} is still "${range}"`);
        else if (dep.startsWith('@swim/')) {
          const sibling = versions.get(dep);
          if (sibling === undefined) problems.push(`${p.name}: ${field}.${dep} is not a public package (it would not install from a registry)`);
          else if (!semver.validRange(range) || !semver.satisfies(sibling, range)) problems.push(`${p.name}: ${field}.${dep} is "${range}", which ${dep} ${sibling} does not satisfy`);
        }
      }
    }
    for (const file of [...exportedFiles(p.manifest), ...Object.values(binsOf(p.manifest))]) {
      if (!contents.has(file.replace(/^\.\//, ''))) problems.push(`${p.name}: ${file} is not in the tarball (check "files")`);
    }
  }
  return problems;
}

/** The `types` and `default` targets of every subpath of an exports map. */
function exportedFiles(manifest: Manifest): string[] {
  const files: string[] = [];
  for (const target of Object.values(manifest.exports ?? {})) {
    if (typeof target === 'string') files.push(target);
    else if (target !== null) for (const condition of ['types', 'default']) if (typeof target[condition] === 'string') files.push(target[condition]);
  }
  return files;
}
