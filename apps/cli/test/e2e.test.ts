/**
 * Three real `swim agent` processes on 127.0.0.1 (UDP + TCP, port 0, fast timers through
 * `--config`): they converge, a `kill -9` is detected as dead, a SIGTERM is seen as left.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const NODE_ARGS = ['--import', 'tsx', '--conditions=@swim/source', MAIN];

// Probe every 200 ms; with 3 members a suspicion lasts suspicionMult × probe interval = 800 ms.
const FAST = ['probeIntervalMs=200', 'probeTimeoutMs=100', 'adaptiveTimeoutCeilingMs=100', 'gossipIntervalMs=50', 'pushPullIntervalMs=2000'];

interface Agent {
  readonly name: string;
  readonly child: ChildProcess;
  readonly lines: Array<Record<string, unknown>>;
  readonly address: string;
  readonly rpc: string;
  readonly exited: Promise<number | null>;
}

const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function startAgent(name: string, join: string[] = []): Promise<Agent> {
  const args = [...NODE_ARGS, 'agent', '--name', name, '--bind', '127.0.0.1:0', '--rpc', '127.0.0.1:0', '--log', 'json', '--leave-timeout', '2000', '--config', ...FAST];
  if (join.length > 0) args.push('--join', join.join(','));
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<Record<string, unknown>>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      lines.push(entry);
      if (entry['event'] === 'start') resolve(entry);
    });
    void exited.then((code) => reject(new Error(`agent ${name} exited with ${code} before starting: ${stderr}`)));
  });
  const start = await started;
  return { name, child, lines, address: start['address'] as string, rpc: start['rpc'] as string, exited };
}

interface MembersReply {
  self: string;
  healthScore: number;
  members: Array<{ name: string; address: string; state: string; incarnation: number; meta: Record<string, unknown> | null }>;
}

async function membersOf(agent: Agent): Promise<MembersReply> {
  const res = await fetch(`http://${agent.rpc}/members`);
  return (await res.json()) as MembersReply;
}

function stateOf(reply: MembersReply, name: string): string | undefined {
  return reply.members.find((m) => m.name === name)?.state;
}

async function until(what: string, limitMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `swim <args>` as a process: its exit code and output. */
function swim(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...NODE_ARGS, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

// The two tests spawn their own agents and run side by side, to keep the wall time down.
describe.concurrent('swim agent: three processes on 127.0.0.1', () => {
  it('converge, detect a kill -9 as dead and a SIGTERM as left', { timeout: 60_000 }, async () => {
    const a = await startAgent('a');
    const [b, c] = await Promise.all([startAgent('b', [a.address]), startAgent('c', [a.address])]);
    const agents = [a, b, c];

    await until('every agent sees 3 alive members', 15_000, async () => {
      const views = await Promise.all(agents.map(membersOf));
      return views.every((v) => v.members.filter((m) => m.state === 'alive').length === 3);
    });
    // The CLI itself: `swim members --json` on each agent.
    const outputs = await Promise.all(agents.map((agent) => swim(['members', '--rpc', agent.rpc, '--json'])));
    for (const [i, out] of outputs.entries()) {
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      const reply = JSON.parse(out.stdout) as MembersReply;
      expect(reply.self).toBe(agents[i]!.name);
      expect(typeof reply.healthScore).toBe('number');
      expect(reply.members.map((m) => [m.name, m.state]).sort()).toEqual([
        ['a', 'alive'],
        ['b', 'alive'],
        ['c', 'alive'],
      ]);
      expect(reply.members.find((m) => m.name === 'b')).toMatchObject({ address: b.address, incarnation: expect.any(Number), meta: {} });
    }
    // Membership changes are logged, one JSON object per line.
    expect(a.lines.some((l) => l['event'] === 'join' && (l['member'] as { name: string }).name === 'b')).toBe(true);

    c.child.kill('SIGKILL');
    await until('a and b see c dead', 30_000, async () => {
      const views = await Promise.all([membersOf(a), membersOf(b)]);
      return views.every((v) => stateOf(v, 'c') === 'dead');
    });

    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
    expect(stateOf(await membersOf(a), 'b')).toBe('left');
    expect(b.lines.map((l) => l['event'])).toContain('stop');

    // `swim leave` makes the last agent leave and exit.
    const left = await swim(['leave', '--rpc', a.rpc]);
    expect(left.code).toBe(0);
    expect(await a.exited).toBe(0);
  });

  it('reports a port in use, unreachable seeds and an agent that is not running', { timeout: 30_000 }, async () => {
    // Port 1 on loopback: nothing listens there, the connection is refused.
    const a = await startAgent('solo', ['127.0.0.1:1']);
    const [busy, join] = await Promise.all([
      swim(['agent', '--name', 'x', '--bind', a.address, '--rpc', '127.0.0.1:0']),
      swim(['join', '--rpc', a.rpc, '127.0.0.1:1']),
    ]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`swim: cannot bind ${a.address}: address already in use`);
    expect(join.code).toBe(1);
    expect(join.stderr).toMatch(/^swim: could not join through any seed: 127\.0\.0\.1:1 \(/);
    // The agent logged the failed seed at start and kept running.
    await until('the failed seed is logged', 10_000, async () => a.lines.some((l) => l['event'] === 'join-failed'));
    expect(a.lines.find((l) => l['event'] === 'join-failed')).toMatchObject({ address: '127.0.0.1:1' });
    expect(a.child.exitCode).toBe(null);
    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    const refused = await swim(['members', '--rpc', a.rpc]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`swim: no agent listening at ${a.rpc}`);
  });
});
