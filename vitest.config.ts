import { defineConfig } from 'vitest/config';

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
  },
});
