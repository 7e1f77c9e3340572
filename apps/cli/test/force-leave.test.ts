/**
 * `swim force-leave NAME` on real agents (@swim's wire), as `serf force-leave`: a kill -9'd agent,
 * held dead, is marked left by one agent and every agent lists it left; nobody reconnects to it;
 * a live agent is not touched; output and exit codes as Serf's command.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, membersOf, startAgent, stateOf, swim, until, type Agent } from './agents.js';

afterAll(killAll);

/** Dead and left members stay listed for 2 minutes (the test timers reap them after 3 s). */
const KEEP_DOWN = { gossipToTheDeadMs: 120_000 };

async function stats(agent: Agent): Promise<{ counters: Record<string, number> }> {
  const out = await swim(['stats', '--rpc', agent.rpc, '--json']);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as { counters: Record<string, number> };
}

describe('swim force-leave', () => {
  it('a kill -9 agent held dead is force-left from one agent: all list it left, and nobody reconnects to it', { timeout: 180_000 }, async () => {
    const a = await startAgent('fl-a', { config: KEEP_DOWN });
    const [b, c] = await Promise.all([startAgent('fl-b', { join: [a.address], config: KEEP_DOWN }), startAgent('fl-c', { join: [a.address], config: KEEP_DOWN })]);
    const survivors = [a, b];
    await until('every agent sees three alive', 60_000, async () => {
      for (const agent of [a, b, c]) if ((await membersOf(agent)).members.filter((m) => m.state === 'alive').length !== 3) return false;
      return true;
    });

    // Not failed: a live agent is not touched, and (as Serf) that is no error.
    const live = await swim(['force-leave', '--rpc', a.rpc, 'fl-b']);
    expect(live).toEqual({ code: 0, stdout: '', stderr: '' });
    await until("a logged the force-leave of fl-b", 10_000, () => a.lines.some((l) => l.event === 'force-leave'));
    expect(a.lines.find((l) => l.event === 'force-leave')).toMatchObject({ name: 'fl-b', changed: false, state: 'alive' });

    c.child.kill('SIGKILL');
    await until('a and b hold fl-c dead', 60_000, async () => {
      for (const agent of survivors) if (stateOf(await membersOf(agent), 'fl-c') !== 'dead') return false;
      return true;
    });
    // Dead: a reconnect candidate, tried every second with the test timers.
    await until('a reconnect to fl-c was tried', 30_000, async () => {
      const [sa, sb] = await Promise.all(survivors.map(stats));
      return sa!.counters['reconnectAttempts']! + sb!.counters['reconnectAttempts']! > 0;
    });

    const forced = await swim(['force-leave', '--rpc', a.rpc, 'fl-c']);
    expect(forced).toEqual({ code: 0, stdout: '', stderr: '' });
    await until("a logged the force-leave of fl-c", 10_000, () => a.lines.filter((l) => l.event === 'force-leave').length === 2);
    expect(a.lines.filter((l) => l.event === 'force-leave').at(-1)).toMatchObject({ name: 'fl-c', prune: false, changed: true, state: 'dead' });
    await until('a and b list fl-c left', 30_000, async () => {
      for (const agent of survivors) if (stateOf(await membersOf(agent), 'fl-c') !== 'left') return false;
      return true;
    });
    await until('a and b logged fl-c left', 10_000, () => survivors.every((agent) => agent.lines.some((l) => l.event === 'left' && l.member?.name === 'fl-c')));
    for (const agent of survivors) {
      const listed = await swim(['members', '--rpc', agent.rpc, '--status', 'left', '--json']);
      expect(JSON.parse(listed.stdout).members.map((m: { name: string }) => m.name), agent.name).toEqual(['fl-c']);
      expect(agent.lines.filter((l) => l.event === 'left' && l.member?.name === 'fl-c').length, `${agent.name} logged fl-c left`).toBe(1);
    }
    expect((await stats(a)).counters['forceLeaves']).toBe(1);

    // No more reconnects to it: over ten more reconnect intervals (1 s each), measured by a's own probes.
    const before = await Promise.all(survivors.map(stats));
    const attempts = (all: Array<{ counters: Record<string, number> }>) => all.reduce((sum, s) => sum + s.counters['reconnectAttempts']!, 0);
    await until('a ran 50 more probes (10 s)', 60_000, async () => (await stats(a)).counters['probes']! >= before[0]!.counters['probes']! + 50);
    expect(attempts(await Promise.all(survivors.map(stats))), 'reconnect attempts after the force-leave').toBe(attempts(before));
    // The live members were not affected.
    for (const agent of survivors) {
      const reply = await membersOf(agent);
      expect(survivors.map((s) => stateOf(reply, s.name)), agent.name).toEqual(['alive', 'alive']);
    }
  });

  it('output and exit codes as serf force-leave: no name, an unknown name, an unreachable agent', { timeout: 60_000 }, async () => {
    const agent = await startAgent('fl-lone');
    const [none, unknown, unreachable] = await Promise.all([
      swim(['force-leave', '--rpc', agent.rpc]),
      swim(['force-leave', '--rpc', agent.rpc, '--prune', 'nobody']),
      swim(['force-leave', '--rpc', '127.0.0.1:1', 'x']),
    ]);
    // Serf exits 1 here; swim's usage errors exit 2 with the usage, as every swim command's.
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^swim: A node name must be specified to force leave\.\n\nusage: swim force-leave /);
    expect(unknown).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(unreachable).toMatchObject({ code: 1, stdout: '', stderr: 'swim: no agent listening at 127.0.0.1:1 (is `swim agent` running? is --rpc right?)\n' });
    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
  });
});
