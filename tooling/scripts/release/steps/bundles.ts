/**
 * Step 4: each browser entry point bundled by esbuild for the browser platform, from the installed
 * tarballs. Fails on any Node built-in in the bundle's import graph and on any file that comes from
 * outside the installed @swim packages; reports each bundle's size, minified and gzipped, and checks
 * the figure its README states.
 */
import { builtinModules } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { kB, sizeDrift, statedSize, withSize, type BundleSize } from '../bundle-size.js';
import type { Packed } from '../pack.js';
import { table, type Report } from '../report.js';
import { ROOT } from '../workspace.js';

/** The entry points that must bundle for browsers: the packages a page loads. */
export const BUNDLED_ENTRIES = ['@swim/core', '@swim/runtime', '@swim/transport-ws', '@swim/encryption', '@swim/adapter-memberlist'] as const;

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** Refuses Node built-ins, naming the file that imports one. */
const noNodeBuiltins: Plugin = {
  name: 'no-node-builtins',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      BUILTINS.has(args.path) || args.path.startsWith('node:') ? { errors: [{ text: `Node built-in "${args.path}" imported by ${args.importer}` }] } : undefined,
    );
  },
};

export async function checkBundles(report: Report, scratch: string, packed: readonly Packed[], options: { readonly writeSizes: boolean }): Promise<void> {
  report.step('4. browser bundles (esbuild, platform browser): no Node built-in, nothing from outside the tarballs, sizes');
  const allowed = packed.map((p) => `node_modules${sep}${p.name.split('/').join(sep)}${sep}`);
  const rows: string[][] = [];
  const sizes: Record<string, BundleSize> = {};
  for (const entry of BUNDLED_ENTRIES) {
    let result;
    try {
      result = await build({
        stdin: { contents: `export * from '${entry}';`, resolveDir: scratch, loader: 'js' },
        absWorkingDir: scratch,
        bundle: true,
        platform: 'browser',
        format: 'esm',
        target: 'es2022',
        minify: true,
        write: false,
        metafile: true,
        logLevel: 'silent',
        plugins: [noNodeBuiltins],
      });
    } catch (error) {
      const errors = (error as { errors?: { text: string }[] }).errors?.map((e) => e.text).join('\n') ?? String(error);
      report.check(`${entry} bundles for browsers`, false, errors);
      continue;
    }
    const outside = Object.keys(result.metafile.inputs).filter((input) => input !== '<stdin>' && !allowed.some((prefix) => input.startsWith(prefix)));
    const code = result.outputFiles[0]!.contents;
    const size = { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength };
    sizes[entry] = size;
    const files = Object.keys(result.metafile.inputs).length - 1;
    report.check(
      `${entry} bundles for browsers from the tarballs alone`,
      outside.length === 0,
      outside.length === 0 ? `${files} files, ${kB(size.minified)} minified, ${kB(size.gzipped)} gzipped` : `files from outside the installed @swim packages:\n${outside.join('\n')}`,
    );
    rows.push([entry, String(files), kB(size.minified), kB(size.gzipped)]);
  }
  report.line(table(['entry point', 'files', 'minified', 'gzipped'], rows));
  report.figures['bundles'] = sizes;

  for (const [entry, size] of Object.entries(sizes)) {
    const pkg = packed.find((p) => p.name === entry)!;
    const readmePath = join(ROOT, pkg.dir, 'README.md');
    const readme = readFileSync(readmePath, 'utf8');
    if (options.writeSizes) {
      const updated = withSize(readme, entry, size);
      if (updated !== undefined && updated !== readme) writeFileSync(readmePath, updated);
    }
    const stated = statedSize(options.writeSizes ? readFileSync(readmePath, 'utf8') : readme);
    const drift = stated === undefined ? 'has no <!-- bundle-size --> block' : sizeDrift(stated, size);
    report.check(
      `${relative(ROOT, readmePath)} states the bundle size`,
      drift === undefined,
      drift === undefined ? undefined : `${drift}; run \`pnpm release:check --write-sizes\` to rewrite it`,
    );
  }
}
