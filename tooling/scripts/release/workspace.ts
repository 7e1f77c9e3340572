/**
 * The public packages of the repository: every packages/* and apps/* folder whose package.json is
 * not private. What the release check packs, installs and checks.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export type ExportTarget = string | { readonly [condition: string]: string | undefined } | null;

export interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly type?: string;
  readonly bin?: string | Readonly<Record<string, string>>;
  readonly files?: readonly string[];
  readonly exports?: Readonly<Record<string, ExportTarget>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
}

export interface PublicPackage {
  /** Folder from the repository root, e.g. `packages/core`. */
  readonly dir: string;
  readonly manifest: Manifest;
}

export function readManifest(path: string): Manifest {
  return JSON.parse(readFileSync(path, 'utf8')) as Manifest;
}

export function publicPackages(root: string = ROOT): PublicPackage[] {
  return ['packages', 'apps']
    .flatMap((group) =>
      readdirSync(join(root, group), { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(root, group, d.name, 'package.json')))
        .map((d) => ({ dir: `${group}/${d.name}`, manifest: readManifest(join(root, group, d.name, 'package.json')) })),
    )
    .filter((p) => p.manifest.private !== true)
    .sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));
}

/** The import specifiers a package offers (`@swim/x`, `@swim/x/node`), from its exports map; not `./package.json`. */
export function entrySpecifiers(manifest: Manifest): string[] {
  return Object.keys(manifest.exports ?? {})
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => (subpath === '.' ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, '')}`));
}

/** A package's `bin` as name → file. */
export function binsOf(manifest: Manifest): Record<string, string> {
  if (typeof manifest.bin === 'string') return { [manifest.name.replace(/^@[^/]+\//, '')]: manifest.bin };
  return { ...manifest.bin };
}
