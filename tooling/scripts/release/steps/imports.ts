/**
 * Step 1: every entry point of every package imports under plain Node ESM (no loader, no custom
 * condition) with all its exports defined; and which entry points CommonJS code can `require()`
 * (Node >= 20.19 loads ES modules with require() unless they use top-level await). Each package's
 * README, as installed, must say what a CommonJS user gets.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../exec.js';
import type { Packed } from '../pack.js';
import { table, type Report } from '../report.js';
import { entrySpecifiers } from '../workspace.js';

interface Loaded {
  readonly specifier: string;
  readonly ok: boolean;
  readonly exports: readonly string[];
  readonly undefinedExports: readonly string[];
  readonly error?: string;
}

const IMPORT_SCRIPT = `
const results = [];
for (const specifier of JSON.parse(process.argv[2])) {
  try {
    const module = await import(specifier);
    const exports = Object.keys(module).sort();
    results.push({ specifier, ok: true, exports, undefinedExports: exports.filter((name) => module[name] === undefined) });
  } catch (error) {
    results.push({ specifier, ok: false, exports: [], undefinedExports: [], error: String(error?.code ?? '') + ' ' + String(error?.message ?? error) });
  }
}
console.log(JSON.stringify(results));
`;

const REQUIRE_SCRIPT = `
const results = [];
for (const specifier of JSON.parse(process.argv[2])) {
  try {
    const module = require(specifier);
    const exports = Object.keys(module).filter((name) => name !== '__esModule' && name !== 'module.exports').sort();
    results.push({ specifier, ok: true, exports, undefinedExports: [] });
  } catch (error) {
    results.push({ specifier, ok: false, exports: [], undefinedExports: [], error: String(error?.code ?? '') + ' ' + String(error?.message ?? error).split('\\n')[0] });
  }
}
console.log(JSON.stringify(results));
`;

export function checkImports(report: Report, scratch: string, packed: readonly Packed[]): void {
  report.step('1. every export imports under plain Node ESM; what CommonJS gets');
  writeFileSync(join(scratch, 'check-import.mjs'), IMPORT_SCRIPT);
  writeFileSync(join(scratch, 'check-require.cjs'), REQUIRE_SCRIPT);
  const specifiers = packed.flatMap((p) => entrySpecifiers(p.manifest));
  const imported = load(scratch, 'check-import.mjs', specifiers);
  const required = new Map(load(scratch, 'check-require.cjs', specifiers).map((r) => [r.specifier, r]));
  const rows: string[][] = [];
  for (const entry of imported) {
    const cjs = required.get(entry.specifier);
    const ok = entry.ok && entry.exports.length > 0 && entry.undefinedExports.length === 0;
    report.check(
      `import('${entry.specifier}')`,
      ok,
      entry.ok ? `${entry.exports.length} exports${entry.undefinedExports.length > 0 ? `, undefined: ${entry.undefinedExports.join(', ')}` : ''}` : entry.error,
    );
    rows.push([entry.specifier, entry.ok ? String(entry.exports.length) : 'fails', cjs?.ok ? `loads (${cjs.exports.length} exports)` : `ESM-only: ${cjs?.error ?? '?'}`]);
  }
  report.line(table(['entry point', 'ESM exports', 'require() on Node >= 20.19'], rows));
  const esmOnly = [...required.values()].filter((r) => !r.ok).map((r) => r.specifier);
  report.line(esmOnly.length === 0 ? '  no entry point is ESM-only for CommonJS consumers on Node >= 20.19' : `  ESM-only for CommonJS consumers: ${esmOnly.join(', ')}`);
  report.figures['imports'] = { entries: imported.map((e) => ({ specifier: e.specifier, exports: e.exports.length, require: required.get(e.specifier)?.ok ?? false })) };

  // The installed README (what the registry page shows) says what a CommonJS user gets.
  for (const p of packed) {
    const readme = readFileSync(join(scratch, 'node_modules', p.name, 'README.md'), 'utf8');
    const mine = entrySpecifiers(p.manifest);
    const failing = mine.filter((s) => !(required.get(s)?.ok ?? false));
    const problems: string[] = [];
    if (!/ESM-only/.test(readme)) problems.push('does not say the package is ESM-only');
    if (failing.length === 0 && !/require\(/.test(readme)) problems.push('does not say that require() loads it on Node >= 20.19');
    for (const s of failing) if (!readme.includes(`\`${s}\``)) problems.push(`does not name \`${s}\`, which require() cannot load`);
    report.check(`${p.name} README on CommonJS`, problems.length === 0, problems.length === 0 ? undefined : `README.md ${problems.join('; ')}`);
  }
}

function load(scratch: string, script: string, specifiers: readonly string[]): Loaded[] {
  const result = run(process.execPath, [script, JSON.stringify(specifiers)], { cwd: scratch, timeoutMs: 60_000 });
  if (!result.ok) throw new Error(`node ${script} failed:\n${result.output}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Loaded[];
}
