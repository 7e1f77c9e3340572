// Every package's README opens with a ```ts example; this test type-checks the first such block of
// every packages/*/README.md with the TypeScript compiler API, against the workspace packages'
// sources (what the `@swim/source` condition points at), with the repository's strict settings
// and Node's types, as a user's ESM project (.mts: top-level await is allowed) would see it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { firstTsBlock } from '../release/steps/types.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const packagesDir = join(root, 'packages');

interface Example {
  readonly dir: string;
  readonly name: string;
  /** Virtual file the example is checked as (not written to disk). */
  readonly file: string;
  readonly code: string | undefined;
}


const examples: Example[] = readdirSync(packagesDir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(packagesDir, d.name, 'package.json')))
  .map((d) => {
    const dir = join(packagesDir, d.name);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; private?: boolean };
    const readme = join(dir, 'README.md');
    const code = existsSync(readme) ? firstTsBlock(readFileSync(readme, 'utf8')) : undefined;
    return { dir, name: pkg.name, file: join(dir, '__readme_example__.mts'), code, private: pkg.private === true };
  })
  .filter((e) => !e.private);

/** `@swim/<name>` → that package's source entry (the `@swim/source` condition of its exports map). */
function workspacePaths(): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  for (const d of readdirSync(packagesDir, { withFileTypes: true })) {
    const manifest = join(packagesDir, d.name, 'package.json');
    if (!d.isDirectory() || !existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; exports?: Record<string, unknown> };
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const source = typeof target === 'object' && target !== null ? (target as Record<string, unknown>)['@swim/source'] : undefined;
      if (typeof source !== 'string') continue;
      const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`;
      paths[specifier] = [join(packagesDir, d.name, source)];
    }
  }
  return paths;
}

function typeCheck(files: ReadonlyMap<string, string>): Map<string, readonly ts.Diagnostic[]> {
  // @types/node is a devDependency of the packages, not of the root.
  const typesNode = dirname(createRequire(join(packagesDir, 'core', 'package.json')).resolve('@types/node/package.json'));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.esnext.disposable.d.ts'],
    types: ['node'],
    typeRoots: [dirname(typesNode)],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    skipLibCheck: true,
    noEmit: true,
    customConditions: ['@swim/source'],
    paths: workspacePaths(),
    pathsBasePath: root,
  } as ts.CompilerOptions;
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => files.has(f) || fileExists.call(host, f);
  host.readFile = (f) => files.get(f) ?? readFile.call(host, f);
  host.getSourceFile = (f, languageVersion, onError, shouldCreate) => {
    const text = files.get(f);
    if (text !== undefined) return ts.createSourceFile(f, text, languageVersion, true);
    return getSourceFile.call(host, f, languageVersion, onError, shouldCreate);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  const byFile = new Map<string, readonly ts.Diagnostic[]>();
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  for (const file of files.keys()) {
    const sourceFile = program.getSourceFile(file);
    byFile.set(file, [
      ...global,
      ...(sourceFile ? [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)] : []),
    ]);
  }
  return byFile;
}

function format(diagnostics: readonly ts.Diagnostic[]): string {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  });
}

describe('README examples', () => {
  it('finds the packages', () => {
    expect(examples.map((e) => e.name)).toContain('@swim/core');
  });

  it('every package README has a ```ts example', () => {
    const missing = examples.filter((e) => e.code === undefined).map((e) => `${e.name} (${join(e.dir, 'README.md')})`);
    expect(missing, `no README.md or no \`\`\`ts block in: ${missing.join(', ')}`).toEqual([]);
  });

  // One program for all of them: the workspace sources are checked once.
  let results: Map<string, readonly ts.Diagnostic[]> | undefined;
  const withCode = examples.filter((e): e is Example & { code: string } => e.code !== undefined);
  const check = (): Map<string, readonly ts.Diagnostic[]> =>
    (results ??= typeCheck(new Map(withCode.map((e) => [e.file, e.code]))));

  // `npm init -y` writes "type": "commonjs", where top-level await is a syntax error.
  it.each(withCode.filter((e) => /^(?:const .*= )?await\b/m.test(e.code)).map((e) => [e.name, e] as const))(
    '%s: the example uses top-level await, and the README says it needs "type": "module"',
    (_name, example) => {
      expect(readFileSync(join(example.dir, 'README.md'), 'utf8')).toContain('"type": "module"');
    },
  );

  it.each(withCode.map((e) => [e.name, e] as const))('%s: the first ```ts block of README.md type-checks', (name, example) => {
    const diagnostics = check().get(example.file) ?? [];
    expect(diagnostics.length, `${name} README example (first \`\`\`ts block of ${join(example.dir, 'README.md')}):\n${format(diagnostics)}`).toBe(0);
  });
});
