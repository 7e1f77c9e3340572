import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { describeSerf, newSerfKey, pickFreePorts, SerfAgents, type SerfAgent, type SerfMember } from '@swim/test-support';

/** Whether process `pid` exists (signal 0 only checks). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const view = (members: readonly SerfMember[]): string => members.map((m) => `${m.name}@${m.addr}:${m.status}`).join(', ');

describeSerf('real Serf agents (the harness the memberlist adapter tests use)', () => {
  const serf = new SerfAgents();
  afterEach(() => serf.cleanup());

  /** Wait until `agent` lists exactly `expected` (name -> status); returns when it was seen. */
  async function waitForView(agent: SerfAgent, expected: Record<string, string>, timeoutMs: number): Promise<number> {
    const want = JSON.stringify(Object.entries(expected).sort());
    let last: readonly SerfMember[] = [];
    return serf.waitFor(
      async () => {
        last = await serf.members(agent);
        return JSON.stringify(last.map((m) => [m.name, m.status])) === want;
      },
      { timeoutMs, describe: () => `${agent.name} to list ${JSON.stringify(expected)}; it listed: ${view(last)}` },
    );
  }

  it('two agents join and list each other alive; kill -9 of one is seen failed by the other', async () => {
    const [a, b] = await serf.startMany(2, (i) => ({ node: `agent-${'ab'[i]}`, tags: { role: 'test', index: String(i) } }));
    await serf.join(b!, a!);
    for (const agent of [a!, b!]) await waitForView(agent, { 'agent-a': 'alive', 'agent-b': 'alive' }, 15_000);
    const members = await serf.members(a!);
    expect(members.map((m) => [m.name, m.addr, m.tags])).toEqual([
      ['agent-a', a!.address, { role: 'test', index: '0' }],
      ['agent-b', b!.address, { role: 'test', index: '1' }],
    ]);

    const killedAt = await serf.kill9(b!);
    expect(processExists(b!.pid)).toBe(false);
    const seenAt = await waitForView(a!, { 'agent-a': 'alive', 'agent-b': 'failed' }, 30_000);
    const detectionMs = seenAt - killedAt;
    console.log(`serf lan profile, 2 agents: kill -9 -> seen failed after ${detectionMs.toFixed(0)} ms (polled every ~50 ms)`);
    // memberlist's minimum suspicion timeout alone is SuspicionMult (4) x ProbeInterval (1 s) on LAN:
    // anything sooner would mean the status predates the kill.
    expect(detectionMs).toBeGreaterThan(4_000);
  }, 60_000);

  it('encrypted agents on the local profile join; a graceful leave is seen as left', async () => {
    const key = newSerfKey();
    const [a, b] = await serf.startMany(2, { encrypt: key, profile: 'local' });
    expect(a!.name).not.toBe(b!.name);
    for (const agent of [a!, b!]) expect(serf.logTail(agent, 200)).toMatch(/Encrypted: true[\s\S]*Profile: local/);
    await serf.join(a!, b!);
    await waitForView(b!, { [a!.name]: 'alive', [b!.name]: 'alive' }, 15_000);
    const leftAt = await serf.leave(a!);
    expect(a!.exit).toMatchObject({ code: 0 });
    const seenAt = await waitForView(b!, { [a!.name]: 'left', [b!.name]: 'alive' }, 15_000);
    console.log(`serf local profile, encrypted: serf leave returned, then seen left after ${(seenAt - leftAt).toFixed(0)} ms`);
  }, 45_000);

  it('starts again on fresh ports when its port was taken, and leaves no process behind', async () => {
    // The first ports offered are held by a listener here: the agent cannot bind them and must retry.
    const [taken] = await pickFreePorts(1);
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(taken, '127.0.0.1', resolve));
    try {
      let offers = 0;
      const retrying = new SerfAgents({
        pickPorts: async (count) => (offers++ === 0 ? [taken!, ...(await pickFreePorts(count - 1))] : pickFreePorts(count)),
      });
      try {
        const agent = await retrying.start({ node: 'retried' });
        expect(offers).toBe(2);
        expect(agent.port).not.toBe(taken);
        expect(retrying.agents).toEqual([agent]);
        expect((await retrying.members(agent)).map((m) => [m.name, m.status])).toEqual([['retried', 'alive']]);
        expect(processExists(agent.pid)).toBe(true);
        await retrying.cleanup();
        expect(processExists(agent.pid)).toBe(false);
        expect(agent.exit).toMatchObject({ signal: 'SIGKILL' });
      } finally {
        await retrying.cleanup();
      }
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('a condition that never holds fails with what was awaited and the agents’ logs', async () => {
    const failing = new SerfAgents();
    const dir = failing.dir;
    try {
      const a = await failing.start({ node: 'lonely' });
      const wait = failing.waitFor(async () => (await failing.members(a)).length === 2, { timeoutMs: 300, describe: 'a second member' });
      await expect(wait).rejects.toThrow(/timed out after 300 ms waiting for: a second member[\s\S]*serf agent lonely[\s\S]*Serf agent running!/);
    } finally {
      await failing.cleanup();
      rmSync(dir, { recursive: true, force: true }); // kept by cleanup after a failure; this one was on purpose
    }
  });
});
