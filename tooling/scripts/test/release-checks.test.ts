/**
 * `pnpm check:publish` (manifest, publint --strict, attw --pack) over every public package, in
 * every test run; `pnpm test` builds first (turbo), so it reads fresh dist/ output. What the
 * tarballs do once installed (imports, types, the binary, bundles, the API reference) is
 * `pnpm release:check`, which CI runs after the tests.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { publicPackages } from '../release/workspace.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

it('every public package passes check:publish (publint --strict, attw --pack)', { timeout: 240_000 }, () => {
  const result = spawnSync(process.execPath, ['tooling/scripts/check-publish.mjs', '--no-build'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  const output = `${result.stdout}${result.stderr}`;
  expect(result.status, output).toBe(0);
  const n = publicPackages().length;
  expect(n).toBeGreaterThanOrEqual(11);
  expect(output).toContain(`check:publish: ${n} of ${n} package(s) ok, 0 failed`);
});
