import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { describeSerf, SerfAgents } from '@swim/test-support';

const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));

/** The README's example (examples/join-serf.ts) against a real Serf agent, so it stays true. */
describeSerf("the README's example: a Node process in a Serf cluster", () => {
  const serf = new SerfAgents();
  afterEach(() => serf.cleanup());

  it('joins with its tags, receives a Serf user event, sends one, and leaves as left', async () => {
    const agent = await serf.start({ node: 'serf-1' });
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@swim/source', 'examples/join-serf.ts', agent.address, 'node-js-1'], {
      cwd: PACKAGE,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const printed = (text: string) =>
        serf.waitFor(() => output.includes(text), { timeoutMs: 20_000, describe: () => `the example to print ${JSON.stringify(text)}; it printed:\n${output}` });
      await printed(`joined through ${agent.address} as node-js-1`);
      await printed('join serf-1');
      await serf.waitFor(async () => (await serf.members(agent)).some((m) => m.name === 'node-js-1' && m.status === 'alive'), {
        timeoutMs: 10_000,
        describe: 'serf-1 to list node-js-1 alive',
      });
      expect((await serf.members(agent)).find((m) => m.name === 'node-js-1')?.tags).toEqual({ role: 'web', lang: 'typescript' });
      await serf.waitFor(() => /Received event: user-event: hello/.test(serf.logTail(agent, 200)), {
        timeoutMs: 10_000,
        describe: () => `serf-1 to receive the example's event; its log:\n${serf.logTail(agent, 20)}`,
      });

      await serf.run(agent, ['event', '-coalesce=false', 'deploy', 'v2']);
      await printed('serf event deploy: v2');

      child.kill('SIGTERM');
      await printed('left (spread: true)');
      await serf.waitFor(async () => (await serf.members(agent)).some((m) => m.name === 'node-js-1' && m.status === 'left'), {
        timeoutMs: 10_000,
        describe: 'serf-1 to list node-js-1 left',
      });
      expect(await exited, output).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
