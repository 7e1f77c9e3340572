import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// `.ci/run` sets SWIM_VITEST_JSON so that the same `pnpm test` also writes a JSON report there
// (arguments after `pnpm test --` would reach vitest behind a literal `--` and be read as filters).
const jsonReport = process.env['SWIM_VITEST_JSON'];

export default defineConfig({
  // Tests run against the TypeScript sources of workspace packages, not their build output. Since
  // Vite 6 tests (the `ssr` environment) take their conditions from `ssr.resolve`, not `resolve`;
  // both replace Vite's defaults, so those are kept.
  resolve: {
    conditions: ['@swim/source', ...defaultClientConditions],
  },
  // Vitest 4 also hands these to the test workers as Node `--conditions`, where `module` (a
  // bundlers' condition) picks builds Node cannot load: @opentelemetry/api's `module` build has
  // extensionless imports (open-telemetry/opentelemetry-js#5840). Node resolves as it would alone.
  ssr: {
    resolve: {
      conditions: ['@swim/source', ...defaultServerConditions.filter((condition) => condition !== 'module')],
    },
  },
  test: {
    setupFiles: ['tooling/vitest/fast-check-seed.ts'],
    include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'tooling/scripts/test/**/*.test.ts'],
    // Two cores on CI machines.
    maxWorkers: 2,
    // Property and simulation tests do real work; a busy 2-core machine can be slow. Tests check
    // behaviour, not wall-clock time.
    testTimeout: 30_000,
    ...(jsonReport ? { reporters: ['default', 'json'], outputFile: { json: jsonReport } } : {}),
  },
});
