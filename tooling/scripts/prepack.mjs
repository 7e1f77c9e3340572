#!/usr/bin/env node
// `prepack` of every package under packages/: `pnpm pack` and `pnpm publish` (npm's too) run it in
// the package's directory before they read the files, so a tarball never goes out without dist/ or
// with a stale one. It builds the package, and the workspace packages it depends on, through turbo
// (turbo.json: build dependsOn ^build): a cached build whose outputs are in place is a no-op that
// leaves dist/ untouched, anything else is built. If the build fails, or a file the exports map
// points at is still missing, it exits non-zero and the pack fails.
//
// Output goes to stderr: `pnpm pack --json` (publint) and `npm pack --json` (attw) read stdout.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = process.cwd();
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

const turbo = join(root, 'node_modules/.bin/turbo');
const build = spawnSync(turbo, ['run', 'build', `--filter=${pkg.name}`, '--output-logs=errors-only'], {
  cwd: root,
  stdio: ['ignore', process.stderr, process.stderr],
});
if (build.error || build.status !== 0) {
  const why = build.error ? String(build.error) : build.signal ? `signal ${build.signal}` : `exit code ${build.status}`;
  console.error(`prepack ${pkg.name}: the build failed (${why}); not packing`);
  process.exit(1);
}

const missing = exportedFiles(pkg).filter((file) => !existsSync(join(dir, file)));
if (missing.length > 0) {
  console.error(`prepack ${pkg.name}: built, yet the exports map points at missing files: ${missing.join(', ')}`);
  process.exit(1);
}

/** The `types` and `default` targets of every subpath of the exports map (what a user imports). */
function exportedFiles(manifest) {
  const files = [];
  for (const target of Object.values(manifest.exports ?? {})) {
    if (typeof target !== 'object' || target === null) continue;
    for (const condition of ['types', 'default']) if (typeof target[condition] === 'string') files.push(target[condition]);
  }
  return files;
}
