/**
 * The built `swim` binary (apps/cli/dist/main.js, the package's `bin`), run by plain Node with no
 * TypeScript loader: it starts an agent, answers `members`, and `leave` stops it. `pnpm test`
 * builds every package first (turbo), so dist/ exists.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const spawned: Array<ReturnType<typeof spawn>> = [];
afterAll(() => spawned.forEach((child) => child.exitCode === null && child.kill('SIGKILL')));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    spawned.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

it('the built binary runs an agent, lists members and leaves', { timeout: 30_000 }, async () => {
  expect(existsSync(BIN), `${BIN} is missing: run \`pnpm build\` first`).toBe(true);
  const agent = spawn(process.execPath, [BIN, 'agent', '--name', 'solo', '--bind', '127.0.0.1:0', '--rpc', '127.0.0.1:0', '--log', 'json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.push(agent);
  const exited = new Promise<number | null>((resolve) => agent.once('exit', resolve));
  const start = await new Promise<{ rpc: string; address: string }>((resolve, reject) => {
    createInterface({ input: agent.stdout }).on('line', (line) => {
      const entry = JSON.parse(line) as { event: string; rpc: string; address: string };
      if (entry.event === 'start') resolve(entry);
    });
    void exited.then((code) => reject(new Error(`the agent exited with ${code}`)));
  });
  const members = await run(['members', '--rpc', start.rpc, '--json']);
  expect(members.code, members.stderr).toBe(0);
  expect(JSON.parse(members.stdout)).toMatchObject({ self: 'solo', members: [{ name: 'solo', address: start.address, state: 'alive' }] });
  const left = await run(['leave', '--rpc', start.rpc]);
  expect(left.code, left.stderr).toBe(0);
  expect(await exited).toBe(0);
});
