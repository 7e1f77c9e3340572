/**
 * Step 2: a small consumer of each package type-checks against the installed tarballs, strict, with
 * `skipLibCheck` off (so the packages' own .d.ts files are checked too, and a type they borrow from
 * a package the user does not have fails here), under `moduleResolution` node16 and bundler. The
 * consumer is the first ```ts example of the package's README as installed (what a user copies),
 * plus a namespace import of every entry point. Browser entry points are also checked with no Node
 * types at all (DOM only), so a Node type leaking into them fails.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../exec.js';
import type { Packed } from '../pack.js';
import type { Report } from '../report.js';
import { entrySpecifiers, ROOT } from '../workspace.js';

/** The entry points that run in browsers (the rest need Node). */
export const BROWSER_ENTRIES = ['@swim/core', '@swim/detectors', '@swim/runtime', '@swim/transport-ws', '@swim/encryption', '@swim/adapter-memberlist'] as const;

const STRICT = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  noEmit: true,
  target: 'ES2022',
};

const MODES = {
  node16: { module: 'node16', moduleResolution: 'node16', lib: ['ES2022'], types: ['node'] },
  bundler: { module: 'esnext', moduleResolution: 'bundler', lib: ['ES2022'], types: ['node'] },
  'browser (bundler, DOM, no Node types)': { module: 'esnext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable', 'ESNext.Disposable'], types: [] },
} as const;

/** The first ```ts block of a Markdown text, or undefined. */
export function firstTsBlock(markdown: string): string | undefined {
  return /^```ts[ \t]*\r?\n([\s\S]*?)^```[ \t]*$/m.exec(markdown)?.[1];
}

export function checkTypes(report: Report, scratch: string, packed: readonly Packed[]): void {
  report.step('2. a consumer of each package type-checks (strict, skipLibCheck off) with node16 and bundler resolution');
  const dir = join(scratch, 'consumers');
  mkdirSync(dir, { recursive: true });
  const nodeFiles: string[] = [];
  for (const p of packed) {
    const slug = p.name.replace(/^@swim\//, '');
    const entries = entrySpecifiers(p.manifest);
    const namespaces = entries.map((s, i) => `import * as entry${i} from '${s}';`).join('\n');
    const uses = `export const ${camel(slug)}Entries = [${entries.map((_, i) => `entry${i}`).join(', ')}] as const;`;
    writeFileSync(join(dir, `${slug}.entries.ts`), `${namespaces}\n${uses}\n`);
    nodeFiles.push(`${slug}.entries.ts`);
    const example = firstTsBlock(readFileSync(join(scratch, 'node_modules', p.name, 'README.md'), 'utf8'));
    if (example !== undefined) {
      // A module of its own (top-level await is allowed in an ES module).
      writeFileSync(join(dir, `${slug}.readme.ts`), `${example}\nexport {};\n`);
      nodeFiles.push(`${slug}.readme.ts`);
    }
  }
  const browserFile = 'browser.entries.ts';
  writeFileSync(join(dir, browserFile), BROWSER_ENTRIES.map((s, i) => `export * as browser${i} from '${s}';`).join('\n') + '\n');

  const tsc = join(ROOT, 'node_modules/.bin/tsc');
  for (const [mode, options] of Object.entries(MODES)) {
    const files = mode.startsWith('browser') ? [browserFile] : nodeFiles;
    const config = join(scratch, `tsconfig.${mode.split(' ')[0]}.json`);
    writeFileSync(config, JSON.stringify({ compilerOptions: { ...STRICT, ...options }, files: files.map((f) => `consumers/${f}`) }, null, 2));
    const result = run(tsc, ['-p', config], { cwd: scratch, timeoutMs: 300_000 });
    const count = mode.startsWith('browser') ? `${BROWSER_ENTRIES.length} browser entry points` : `${files.length} consumers (${files.filter((f) => f.endsWith('.readme.ts')).length} README examples)`;
    report.check(`tsc ${mode}: ${count}`, result.ok, result.ok ? `${(result.ms / 1000).toFixed(1)} s` : result.output);
  }
}

function camel(slug: string): string {
  return slug.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
