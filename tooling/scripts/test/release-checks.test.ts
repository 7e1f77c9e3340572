/**
 * The release checks, in every test run: `pnpm check:publish` (manifest, publint --strict,
 * attw --pack) over every package under packages/, and TypeDoc over the same packages with no
 * errors. `pnpm test` builds first (turbo), so both read fresh dist/ output.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function publishable(): string[] {
  return readdirSync(`${ROOT}packages`).filter((dir) => {
    const manifest = `${ROOT}packages/${dir}/package.json`;
    return existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { private?: boolean }).private !== true;
  });
}

function run(command: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

it('every package passes check:publish (publint --strict, attw --pack)', { timeout: 180_000 }, () => {
  const { status, output } = run(process.execPath, ['tooling/scripts/check-publish.mjs', '--no-build']);
  expect(status, output).toBe(0);
  const n = publishable().length;
  expect(output).toContain(`check:publish: ${n} of ${n} package(s) ok, 0 failed`);
});

it('TypeDoc documents every package with no errors', { timeout: 120_000 }, () => {
  const { status, output } = run(`${ROOT}node_modules/.bin/typedoc`, ['--options', 'typedoc.json', '--emit', 'none']);
  expect(status, output).toBe(0);
  expect(output).toMatch(/Found 0 errors/);
  for (const dir of publishable()) expect(output, dir).toContain(`packages/${dir}`);
});
