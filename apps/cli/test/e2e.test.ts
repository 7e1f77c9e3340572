/**
 * Three real `swim agent` processes on 127.0.0.1 (UDP + TCP, port 0, fast timers through
 * `--config`): they converge and see each other's tags, a `kill -9` is detected as dead, a SIGTERM
 * is seen as left.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, membersOf, startAgent as start, stateOf, swim, until, type MembersReply } from './agents.js';

afterAll(killAll);

const startAgent = (name: string, join: string[] = [], extra: string[] = []) => start(name, { join, extra });

// The two tests spawn their own agents and run side by side, to keep the wall time down.
describe.concurrent('swim agent: three processes on 127.0.0.1', () => {
  it('converge, detect a kill -9 as dead and a SIGTERM as left', { timeout: 180_000 }, async () => {
    const a = await startAgent('a');
    const [b, c] = await Promise.all([startAgent('b', [a.address]), startAgent('c', [a.address], ['--tag', 'role=web', '--tag=dc=eu'])]);
    const agents = [a, b, c];

    await until('every agent sees 3 alive members', 60_000, async () => {
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
      expect(reply.members.find((m) => m.name === 'b')).toMatchObject({ address: b.address, incarnation: expect.any(Number), tags: {} });
      expect(reply.members.find((m) => m.name === 'c')?.tags).toEqual({ dc: 'eu', role: 'web' });
    }
    // The table lists them as Serf does, keys sorted.
    const table = await swim(['members', '--rpc', b.rpc]);
    expect(table.stdout).toMatch(/^c +127\.0\.0\.1:\d+ +alive +\d+ +dc=eu,role=web$/m);
    // Membership changes are logged, one JSON object per line.
    expect(a.lines.some((l) => l['event'] === 'join' && (l['member'] as { name: string }).name === 'b')).toBe(true);

    c.child.kill('SIGKILL');
    await until('a and b see c dead', 60_000, async () => {
      const views = await Promise.all([membersOf(a), membersOf(b)]);
      return views.every((v) => stateOf(v, 'c') === 'dead');
    });

    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
    // b exits once its leave has spread or after --leave-timeout (2 s): a may hear it a little later.
    await until('a sees b left', 30_000, async () => stateOf(await membersOf(a), 'b') === 'left');
    expect(b.lines.map((l) => l['event'])).toContain('stop');

    // `swim leave` makes the last agent leave and exit.
    const left = await swim(['leave', '--rpc', a.rpc]);
    expect(left.code).toBe(0);
    expect(await a.exited).toBe(0);
  });

  it('reports a port in use, unreachable seeds and an agent that is not running', { timeout: 90_000 }, async () => {
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
    await until('the failed seed is logged', 30_000, async () => a.lines.some((l) => l['event'] === 'join-failed'));
    expect(a.lines.find((l) => l['event'] === 'join-failed')).toMatchObject({ address: '127.0.0.1:1' });
    expect(a.child.exitCode).toBe(null);
    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    const refused = await swim(['members', '--rpc', a.rpc]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`swim: no agent listening at ${a.rpc}`);
  });
});
