#!/usr/bin/env node
// Mutation check for @swim/detectors: plants one bug at a time in a copy of src/ and runs the
// package's tests against the copy. Every planted bug must make at least one test fail.
//
//   pnpm --filter @swim/detectors mutation          (or `pnpm mutation` in packages/detectors)
//   node scripts/mutation-check.mjs --only=<name>   (one mutation, by name)
//
// How the tests reach the copy: they import the package through relative `../src/...` paths; a
// generated vitest config (in .mutants/, gitignored) aliases that prefix to the mutated copy. First
// the unmutated copy runs as a control and must pass; then each mutation. A mutation whose search
// text is not found exactly once stops the script (it would otherwise "survive" by never applying).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const repoRoot = dirname(dirname(packageDir));
const workDir = join(packageDir, '.mutants');
const mutantSrc = join(workDir, 'src');

/**
 * The planted bugs, of the kinds the failure-detector study lists: window bookkeeping, the floor,
 * the pause, the cap, ln vs log10, the seed, the logistic curve, the tail of the horizon.
 * `search` must occur exactly once in `file`.
 */
const MUTATIONS = [
  {
    name: 'window: off-by-one in eviction (one interval too many kept)',
    file: 'intervals.ts',
    search: 'if (this.#count === this.capacity) {',
    replace: 'if (this.#count === this.capacity + 1) {',
  },
  {
    name: 'window: evicted interval not subtracted from the running sum',
    file: 'intervals.ts',
    search: '      this.#sum -= evicted;\n',
    replace: '',
  },
  {
    name: 'window: sum of squares adds the interval, not its square',
    file: 'intervals.ts',
    search: 'this.#sumOfSquares += interval * interval;',
    replace: 'this.#sumOfSquares += interval;',
  },
  {
    name: 'window: variance forgets to subtract the squared mean',
    file: 'intervals.ts',
    search: 'this.#sumOfSquares / this.#count - mean * mean',
    replace: 'this.#sumOfSquares / this.#count - mean',
  },
  {
    name: 'phi accrual: standard deviation not floored',
    file: 'phi-accrual.ts',
    search: 'stdDeviation: Math.max(this.history.stdDeviation, this.options.minStdDeviationMs),',
    replace: 'stdDeviation: this.history.stdDeviation,',
  },
  {
    name: 'phi accrual: acceptable pause not added to the mean',
    file: 'phi-accrual.ts',
    search: 'mean: this.history.mean + this.options.acceptableHeartbeatPauseMs,',
    replace: 'mean: this.history.mean,',
  },
  {
    name: 'phi accrual: seeding intervals estimate ∓ estimate/2 instead of /4',
    file: 'phi-accrual.ts',
    search: 'const spread = estimate / 4;',
    replace: 'const spread = estimate / 2;',
  },
  {
    name: 'phi accrual: horizon solved for the wrong tail (mean − z·sd)',
    file: 'phi-accrual.ts',
    search: 'return Math.max(0, mean + stdDeviation * this.#thresholdDeviations);',
    replace: 'return Math.max(0, mean - stdDeviation * this.#thresholdDeviations);',
  },
  {
    name: 'phi accrual: learns the interval that ends a suspicion (Pekko skips it)',
    file: 'phi-accrual.ts',
    search: 'this.options.learnWhileSuspected || this.isAvailable(now)',
    replace: 'true',
  },
  {
    name: 'cap: comparison flipped (learns only gaps at or above the cap)',
    file: 'heartbeat-history.ts',
    search: 'if (mayLearn && interval <= this.#maxInterval)',
    replace: 'if (mayLearn && interval >= this.#maxInterval)',
  },
  {
    name: 'cap: a gap equal to the cap is not learned (< instead of <=)',
    file: 'heartbeat-history.ts',
    search: 'if (mayLearn && interval <= this.#maxInterval)',
    replace: 'if (mayLearn && interval < this.#maxInterval)',
  },
  {
    name: 'exponential: horizon uses log10(e) where ln 10 belongs',
    file: 'exponential-phi.ts',
    search: 'return this.threshold * Math.LN10 * this.history.mean;',
    replace: 'return this.threshold * Math.LOG10E * this.history.mean;',
  },
  {
    name: 'exponential: phi divides by log10(e) instead of ln 10',
    file: 'exponential-phi.ts',
    search: 'return silence / this.history.mean / Math.LN10;',
    replace: 'return silence / this.history.mean / Math.LOG10E;',
  },
  {
    name: 'logistic: sign of the exponent flipped',
    file: 'logistic.ts',
    search: 'const g = y * (LOGISTIC_LINEAR + LOGISTIC_CUBIC * y * y);',
    replace: 'const g = -y * (LOGISTIC_LINEAR + LOGISTIC_CUBIC * y * y);',
  },
  {
    name: 'normal: erfc continued fraction with a wrong partial numerator',
    file: 'normal.ts',
    search: 'const a = n / 2;',
    replace: 'const a = n / 2.01;',
  },
  {
    name: 'inverse CDF: AS241 central region stretched past 0.425',
    file: 'normal.ts',
    search: 'if (Math.abs(q) <= 0.425) {',
    replace: 'if (Math.abs(q) <= 0.45) {',
  },
  {
    name: 'fixed timeout: still available at the deadline (<= instead of <)',
    file: 'fixed-timeout.ts',
    search: 'return deadline === undefined || now < deadline;',
    replace: 'return deadline === undefined || now <= deadline;',
  },
];

const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const selected = only ? MUTATIONS.filter((m) => m.name === only) : MUTATIONS;
if (selected.length === 0) {
  console.error(`no mutation named ${JSON.stringify(only)}`);
  process.exit(2);
}

const vitestBin = join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');
if (!existsSync(vitestBin)) {
  console.error(`vitest not found at ${vitestBin}: run pnpm install at the repository root`);
  process.exit(2);
}

rmSync(workDir, { recursive: true, force: true });
mkdirSync(workDir, { recursive: true });
const configPath = join(workDir, 'vitest.config.mjs');
const reportPath = join(workDir, 'report.json');
writeFileSync(
  configPath,
  `// Generated by scripts/mutation-check.mjs: the detector tests, with ../src/ pointing at the mutant.
export default {
  root: ${JSON.stringify(repoRoot)},
  resolve: { alias: [{ find: /^\\.\\.\\/src\\//, replacement: ${JSON.stringify(`${mutantSrc}/`)} }] },
  test: {
    include: ['packages/detectors/test/**/*.test.ts'],
    setupFiles: [${JSON.stringify(join(repoRoot, 'tooling', 'vitest', 'fast-check-seed.ts'))}],
    maxWorkers: 2,
    testTimeout: 30000,
  },
};
`,
);

/** Copies src/ afresh, applies the mutation (if any), runs the tests; returns the counts. */
function run(mutation) {
  rmSync(mutantSrc, { recursive: true, force: true });
  cpSync(join(packageDir, 'src'), mutantSrc, { recursive: true });
  if (mutation) {
    const path = join(mutantSrc, mutation.file);
    const text = readFileSync(path, 'utf8');
    const found = text.split(mutation.search).length - 1;
    if (found !== 1) {
      console.error(`mutation "${mutation.name}": search text found ${found} times in src/${mutation.file} (must be once):\n  ${mutation.search}`);
      process.exit(2);
    }
    writeFileSync(path, text.replace(mutation.search, mutation.replace));
  }
  rmSync(reportPath, { force: true });
  const result = spawnSync(
    process.execPath,
    [vitestBin, 'run', '--config', configPath, '--reporter=json', `--outputFile=${reportPath}`],
    { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, CI: 'true' } },
  );
  if (!existsSync(reportPath)) return { exit: result.status, failed: 0, passed: 0, total: 0, error: (result.stderr || result.stdout).slice(-2000) };
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  return { exit: result.status, failed: report.numFailedTests, passed: report.numPassedTests, total: report.numTotalTests, error: '' };
}

const control = run(undefined);
if (control.exit !== 0 || control.failed > 0 || control.total === 0) {
  console.error(`control run (no mutation) did not pass: ${control.passed} passed, ${control.failed} failed\n${control.error}`);
  process.exit(1);
}
console.log(`control (no mutation): ${control.passed} of ${control.total} tests pass, against ${relative(repoRoot, mutantSrc)}\n`);

const rows = [];
for (const mutation of selected) {
  const outcome = run(mutation);
  // Caught means failing tests, not a crashed run: a mutant that only breaks the run proves nothing.
  const caught = outcome.failed > 0;
  const note = caught ? `${outcome.failed} of ${outcome.total} tests fail` : outcome.exit !== 0 ? `run failed without failing tests: ${outcome.error.split('\n')[0]}` : 'all tests pass';
  rows.push({ name: mutation.name, file: mutation.file, caught, note });
  console.log(`${caught ? 'caught  ' : 'SURVIVED'}  ${mutation.name}  (${note})`);
}

const table = [['#', 'mutation', 'file', 'caught', 'tests'], ...rows.map((r, i) => [String(i + 1), r.name, `src/${r.file}`, r.caught ? 'yes' : 'no', r.note])];
const widths = table[0].map((_, column) => Math.max(...table.map((row) => row[column].length)));
const line = (row) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
console.log(`\n${line(table[0])}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of table.slice(1)) console.log(line(row));
const caughtCount = rows.filter((r) => r.caught).length;
console.log(`\n${caughtCount} of ${rows.length} caught`);

rmSync(mutantSrc, { recursive: true, force: true });
process.exit(caughtCount === rows.length ? 0 : 1);
