import { defineConfig } from 'vitest/config';

// `.ci/run` sets SWIM_VITEST_JSON so that the same `pnpm test` also writes a JSON report there
// (arguments after `pnpm test --` would reach vitest behind a literal `--` and be read as filters).
const jsonReport = process.env['SWIM_VITEST_JSON'];

export default defineConfig({
  resolve: {
    // Tests run against the TypeScript sources of workspace packages, not their build output.
    conditions: ['@swim/source'],
  },
  test: {
    setupFiles: ['tooling/vitest/fast-check-seed.ts'],
    include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts'],
    // Two cores on CI machines.
    maxWorkers: 2,
    // Property and simulation tests do real work; a busy 2-core machine can be slow. Tests check
    // behaviour, not wall-clock time.
    testTimeout: 30_000,
    ...(jsonReport ? { reporters: ['default', 'json'], outputFile: { json: jsonReport } } : {}),
  },
});
