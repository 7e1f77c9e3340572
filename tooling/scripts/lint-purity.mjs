#!/usr/bin/env node
// Lint for pure packages (core, detectors): no clock, no ambient randomness, no timers, no Node or
// DOM APIs. The tsconfig (lib ES2022, types []) already rejects most platform globals at compile
// time; this catches what ES2022 itself allows (Date, Math.random) and stray imports.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const forbidden = [
  [/\bDate\.now\s*\(/, 'reads the wall clock: take `now` as a parameter', 'time'],
  [/\bnew Date\s*\(/, 'reads the wall clock: take `now` as a parameter', 'time'],
  [/\bperformance\.now\s*\(/, 'reads a clock: take `now` as a parameter', 'time'],
  [/\bMath\.random\s*\(/, 'ambient randomness: use the injected Rng'],
  [/\b(setTimeout|setInterval|setImmediate|queueMicrotask|clearTimeout)\s*\(/, 'timers belong to the shell: expose a deadline instead', 'time'],
  [/from\s+['"]node:/, 'Node built-in import'],
  [/\brequire\s*\(/, 'CommonJS require'],
  [/\bprocess\./, 'Node process object'],
  [/(?<![\w$#./-])(window|document)\s*\.|\bglobalThis\.crypto\b/, 'browser global'],
];

// Shells (the runtime) own the clock and the timers but must stay browser-safe.
const allowTimers = process.argv.includes('--allow-timers');
const roots = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
// `--exclude=DIR`: a folder under a root that is allowed Node (a package's ./node entry).
const excluded = process.argv.slice(2).filter((arg) => arg.startsWith('--exclude=')).map((arg) => join(arg.slice('--exclude='.length)));
if (roots.length === 0) {
  console.error('usage: lint-purity.mjs <dir>...');
  process.exit(2);
}

const problems = [];
for (const root of roots) {
  for (const file of walk(root)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, '');
      if (/^\s*(\*|\/\*)/.test(code)) return; // doc comments may name what is forbidden
      for (const [pattern, why, kind] of forbidden) {
        if (allowTimers && kind === 'time') continue;
        if (pattern.test(code)) problems.push(`${relative(process.cwd(), file)}:${i + 1}: ${why}\n    ${line.trim()}`);
      }
    });
  }
}

if (problems.length > 0) {
  console.error(`purity lint: ${problems.length} problem(s)\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`purity lint: ${roots.join(', ')}${excluded.length === 0 ? '' : ` (less ${excluded.join(', ')})`} clean`);

function* walk(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (excluded.includes(path)) continue;
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.(ts|js|mjs)$/.test(entry) && !/\.test\./.test(entry)) yield path;
  }
}
