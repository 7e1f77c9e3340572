/**
 * Step 5: the API reference, built by TypeDoc from the packed packages' own .d.ts files (what a
 * user's editor shows) and their READMEs, with the repository's validation (typedoc.json): a
 * broken `{@link}`, an exported symbol without a doc comment or a type that is referenced but not
 * exported fails the step. Each tarball is unpacked beside the scratch project's node_modules, so
 * the packages' imports of one another resolve to the installed tarballs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../exec.js';
import type { Packed } from '../pack.js';
import type { Report } from '../report.js';
import { ROOT, type Manifest } from '../workspace.js';

export function buildApiDocs(report: Report, scratch: string, packed: readonly Packed[], { out }: { readonly out: string }): boolean {
  report.step("5. API reference from the tarballs' types (TypeDoc; broken links and undocumented exports are errors)");
  const unpacked = join(scratch, 'api');
  const documented = packed.filter((p) => typesFiles(p.manifest).length > 0);
  for (const p of documented) {
    const dir = join(unpacked, p.name.replace(/^@swim\//, ''));
    mkdirSync(dir, { recursive: true });
    const untar = run('tar', ['-xzf', p.tarball, '-C', dir, '--strip-components=1'], { cwd: scratch });
    if (!untar.ok) return report.check(`unpack ${p.tarball}`, false, untar.output);
    const files = typesFiles(p.manifest);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: COMPILER_OPTIONS, files }, null, 2));
    writeFileSync(join(dir, 'typedoc.json'), JSON.stringify({ entryPoints: files }, null, 2));
  }
  const config = join(scratch, 'typedoc.json');
  const version = packed.find((p) => p.name === '@swim/core')?.version;
  writeFileSync(
    config,
    JSON.stringify(
      {
        extends: [join(ROOT, 'typedoc.json')],
        name: version === undefined ? '@swim' : `@swim ${version}`,
        entryPointStrategy: 'packages',
        entryPoints: [join(unpacked, '*')],
        readme: 'none',
        out,
      },
      null,
      2,
    ),
  );
  const result = run(join(ROOT, 'node_modules/.bin/typedoc'), ['--options', config], { cwd: scratch, timeoutMs: 300_000 });
  const lines = result.output.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  // Validation findings (links, documentation, exports) and errors fail; other warnings (a code
  // block's language TypeDoc does not highlight, say) are shown.
  const findings = lines.filter((l) => /\[error\]|does not have any documentation|Failed to resolve link|is referenced by .* but not included/.test(l));
  const other = lines.filter((l) => /\[warning\]/.test(l) && !findings.includes(l) && !/Found \d+ errors/.test(l));
  return report.check(
    `typedoc: ${documented.length} packages`,
    result.ok && findings.length === 0,
    result.ok && findings.length === 0
      ? `site at ${out} (${(result.ms / 1000).toFixed(1)} s)${other.length > 0 ? `; other warnings:\n${other.join('\n')}` : ''}`
      : findings.join('\n') || result.output,
  );
}

/** Compiler options for reading the declarations (the packages' own are not in the tarballs). */
const COMPILER_OPTIONS = {
  target: 'ES2022',
  module: 'node16',
  moduleResolution: 'node16',
  lib: ['ES2022', 'DOM', 'ESNext.Disposable'],
  types: ['node'],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};

/** The `types` targets of a package's entry points, relative to the package folder. */
function typesFiles(manifest: Manifest): string[] {
  return Object.entries(manifest.exports ?? {})
    .filter(([subpath]) => subpath !== './package.json')
    .map(([, target]) => (typeof target === 'object' && target !== null ? target['types'] : undefined))
    .filter((file): file is string => typeof file === 'string')
    .map((file) => file.replace(/^\.\//, ''));
}
