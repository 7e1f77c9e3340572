/**
 * The built `swim` binary (apps/cli/dist/main.js, the package's `bin`), run by plain Node with no
 * TypeScript loader: it starts an agent, answers `members`, and `leave` stops it. `pnpm test`
 * builds every package first (turbo), so dist/ exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { killAll, runNode, startAgent } from './agents.js';

const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
afterAll(killAll);

const run = (args: string[]) => runNode([BIN, ...args]);

it('the built binary runs an agent, lists members and leaves', { timeout: 120_000 }, async () => {
  expect(existsSync(BIN), `${BIN} is missing: run \`pnpm build\` first`).toBe(true);
  const agent = await startAgent('solo', { bin: BIN });
  const members = await run(['members', '--rpc', agent.rpc, '--json']);
  expect(members.code, members.stderr).toBe(0);
  expect(JSON.parse(members.stdout)).toMatchObject({ self: 'solo', members: [{ name: 'solo', address: agent.address, state: 'alive' }] });
  const left = await run(['leave', '--rpc', agent.rpc]);
  expect(left.code, left.stderr).toBe(0);
  expect(await agent.exited).toBe(0);
});

it('swim --version prints the version of the package it was installed from', async () => {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  for (const spelling of ['--version', '-v', 'version']) {
    const result = await run([spelling]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${manifest.version}\n`);
  }
});
