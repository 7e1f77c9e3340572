#!/usr/bin/env node
// `pnpm check:publish`: build every package, then check that each publishable package under
// packages/* would install and type-check for its users:
//   - the manifest has what the project promises (ESM, exports map with types, files,
//     sideEffects: false, license, engines, a prepack that builds, a README with a ```ts example);
//   - `publint --strict` on the packed tarball;
//   - `attw --pack --profile esm-only` (are-the-types-wrong) on the packed tarball.
// Exits non-zero if anything fails. Packages are found by globbing packages/*/package.json and
// apps/*/package.json, so a new package is covered as soon as it exists; private packages are skipped.
// A package with a `bin` (the `swim` command) may list its bin files as its only side effects, and
// its README shows shell commands rather than a TypeScript example.
//
// Why `--profile esm-only`: the packages are ESM only ("type": "module", no CJS build) and declare
// "engines": { "node": ">=20.19" }, where require() of ESM works without a flag. The default
// profile would flag the node16-from-CJS resolution ("CJS resolves to ESM"), which is the intended
// design, and node10 resolution (no exports-map support) is not a supported consumer.
//
// Options: --no-build (skip `pnpm build`), and package directory names to check only those
// (e.g. `pnpm check:publish core runtime`).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PREPACK = 'node ../../tooling/scripts/prepack.mjs';
const bin = (name) => join(root, 'node_modules/.bin', name);
const args = process.argv.slice(2);
const build = !args.includes('--no-build');
const only = args.filter((a) => !a.startsWith('--'));

function run(command, commandArgs, cwd) {
  const started = Date.now();
  const result = spawnSync(command, commandArgs, { cwd, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  return {
    ok: result.status === 0,
    output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`.trim(),
    ms: Date.now() - started,
  };
}

/** Problems with the manifest and README that publint and attw do not look for. */
function manifestProblems(dir, pkg) {
  const problems = [];
  if (pkg.type !== 'module') problems.push('"type" must be "module" (ESM-only packages)');
  const bins = Object.values(typeof pkg.bin === 'string' ? { [pkg.name]: pkg.bin } : (pkg.bin ?? {}));
  const sideEffectsOk = pkg.sideEffects === false || (bins.length > 0 && Array.isArray(pkg.sideEffects) && pkg.sideEffects.every((f) => bins.includes(f)));
  if (!sideEffectsOk) problems.push(`"sideEffects" must be false${bins.length > 0 ? ' or list only the bin files' : ''}`);
  for (const file of bins) {
    if (!existsSync(join(dir, file))) problems.push(`bin ${file} does not exist (not built?)`);
    else if (!readFileSync(join(dir, file), 'utf8').startsWith('#!/usr/bin/env node\n')) problems.push(`bin ${file} does not start with "#!/usr/bin/env node"`);
  }
  if (!pkg.license) problems.push('"license" is missing');
  if (!existsSync(join(dir, 'LICENSE'))) problems.push('no LICENSE file (npm ships it from the package folder)');
  if (!pkg.engines?.node) problems.push('"engines.node" is missing');
  if (!pkg.description) problems.push('"description" is missing');
  if (!Array.isArray(pkg.files) || !pkg.files.includes('dist')) problems.push('"files" must list "dist"');
  const main = pkg.exports?.['.'];
  if (bins.length === 0 && (!main || typeof main !== 'object')) problems.push('"exports" must have a "." entry with conditions');
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    if (typeof target !== 'object' || target === null) continue; // e.g. "./package.json": "./package.json"
    const keys = Object.keys(target);
    if (!keys.includes('types')) problems.push(`exports["${subpath}"] has no "types" condition`);
    if (!keys.includes('default')) problems.push(`exports["${subpath}"] has no "default" condition`);
    else if (keys.indexOf('default') !== keys.length - 1) problems.push(`exports["${subpath}"]: "default" must come last`);
    if (keys.indexOf('types') > keys.indexOf('default')) problems.push(`exports["${subpath}"]: "types" must come before "default"`);
    for (const condition of ['types', 'default']) {
      const file = target[condition];
      if (typeof file === 'string' && !existsSync(join(dir, file))) problems.push(`exports["${subpath}"].${condition}: ${file} does not exist (not built?)`);
    }
  }
  problems.push(...undeclaredImports(dir, pkg));
  if (pkg.publishConfig?.access !== 'public') problems.push('"publishConfig.access" must be "public" (scoped package)');
  if (pkg.scripts?.prepack !== PREPACK) problems.push(`"scripts.prepack" must be "${PREPACK}" (a pack builds first, or fails)`);
  const readme = join(dir, 'README.md');
  if (!existsSync(readme)) problems.push('README.md is missing');
  else if (bins.length === 0 && !/^```ts\s*$/m.test(readFileSync(readme, 'utf8'))) problems.push('README.md has no ```ts example');
  else if (bins.length > 0 && !/^```(sh|console)\s*$/m.test(readFileSync(readme, 'utf8'))) problems.push('README.md has no ```sh example of the command');
  return problems;
}

const dirs = ['packages', 'apps']
  .flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((d) => d.isDirectory() && (only.length === 0 || only.includes(d.name)))
      .map((d) => join(root, group, d.name)),
  )
  .sort();

if (build) {
  console.log('$ pnpm build');
  const result = run(...pnpmCommand(['build']), root);
  if (!result.ok) {
    console.error(result.output);
    console.error('check:publish: build failed');
    process.exit(1);
  }
  console.log(`build ok (${(result.ms / 1000).toFixed(1)} s)`);
}

let failed = 0;
let checked = 0;
for (const dir of dirs) {
  const rel = relative(root, dir);
  const manifestPath = join(dir, 'package.json');
  if (!existsSync(manifestPath)) {
    console.log(`\n${rel}: no package.json yet, skipped`);
    continue;
  }
  const pkg = JSON.parse(readFileSync(manifestPath, 'utf8'));
  if (pkg.private) {
    console.log(`\n${rel}: private, skipped`);
    continue;
  }
  checked++;
  console.log(`\n== ${pkg.name} (${rel})`);
  const problems = manifestProblems(dir, pkg);
  console.log(problems.length === 0 ? 'manifest: ok' : `manifest: ${problems.length} problem(s)\n  - ${problems.join('\n  - ')}`);

  const publint = run(bin('publint'), ['--strict', '--pack', 'pnpm'], dir);
  console.log(`publint --strict: ${publint.ok ? 'ok' : 'FAILED'} (${(publint.ms / 1000).toFixed(1)} s)`);
  if (!publint.ok || /warning|suggestion|error/i.test(publint.output)) console.log(indent(publint.output));

  const attw = run(bin('attw'), ['--pack', '.', '--profile', 'esm-only', '--format', 'table-flipped', '--no-emoji'], dir);
  console.log(`attw --pack --profile esm-only: ${attw.ok ? 'ok' : 'FAILED'} (${(attw.ms / 1000).toFixed(1)} s)`);
  if (!attw.ok) console.log(indent(attw.output));

  if (problems.length > 0 || !publint.ok || !attw.ok) failed++;
}

console.log(`\ncheck:publish: ${checked - failed} of ${checked} package(s) ok, ${failed} failed`);
if (checked === 0) {
  console.error('check:publish: no publishable package found');
  process.exit(1);
}
process.exit(failed === 0 ? 0 : 1);

// Bare imports in dist/ .js files that are neither node: built-ins nor (peer) dependencies: they would
// resolve in the workspace (hoisted devDependencies) and fail for a user.
function undeclaredImports(dir, pkg) {
  const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {}), pkg.name]);
  const problems = new Set();
  const walk = (d) => {
    if (!existsSync(d)) return;
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.js')) {
        const code = readFileSync(path, 'utf8');
        // TypeScript's pre-processor lists import/export-from/import() specifiers without a full parse.
        for (const { fileName: specifier } of ts.preProcessFile(code, true, true).importedFiles) {
          if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
          const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
          if (!declared.has(name)) problems.add(`${relative(dir, path)} imports "${specifier}", which is not in dependencies or peerDependencies`);
        }
      }
    }
  };
  walk(join(dir, 'dist'));
  return [...problems];
}

// pnpm: the one running us when started by a pnpm script (it may not be on PATH under `npx pnpm`), else from PATH.
function pnpmCommand(args) {
  const execpath = process.env.npm_execpath;
  if (execpath && /pnpm/i.test(execpath)) return /\.[cm]?js$/.test(execpath) ? [process.execPath, [execpath, ...args]] : [execpath, args];
  return ['pnpm', args];
}

function indent(text) {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
