/**
 * Real `swim agent` processes: retry-join through `localhost:PORT` started before the seed, three
 * agents started at once with the whole seed list, giving up after --retry-max, and a second agent under an existing member's name refused (the real member
 * is never seen leaving).
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, membersOf, startAgent, stateOf, swim, until, type Agent } from './agents.js';

afterAll(killAll);

/** A port free for both UDP and TCP on 127.0.0.1 right now (bound, read, released). */
async function freePort(): Promise<number> {
  for (;;) {
    const udp = createSocket('udp4');
    const port = await new Promise<number>((resolve) => udp.bind(0, '127.0.0.1', () => resolve(udp.address().port)));
    const tcp = createServer();
    const tcpFree = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (tcpFree) {
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      return port;
    }
  }
}

const events = (agent: Agent, event: string) => agent.lines.filter((line) => line.event === event);
const counters = async (agent: Agent) => ((await (await fetch(`http://${agent.rpc}/stats`)).json()) as { counters: Record<string, number> }).counters;

describe.concurrent('swim agent --retry-join', () => {
  it('started before its seed on localhost:PORT, joins once the seed is up', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const early = await startAgent('early', { extra: ['--retry-join', `localhost:${port}`, '--retry-interval', '300ms'] });
    await until('early logs its retry-join', 10_000, () => events(early, 'retry-join').length > 0);
    expect(events(early, 'retry-join')[0]).toMatchObject({ seeds: [`localhost:${port}`], intervalMs: 300, max: 0 });
    // It has tried and failed at least twice: the seed is really not there yet.
    await until('early retries twice', 30_000, () => events(early, 'join-retry').length >= 2);
    expect(events(early, 'join-retry')[0]).toMatchObject({ attempt: 1, retryInMs: 300 });
    expect(events(early, 'join-retry')[0]!['failed']).toContainEqual(expect.objectContaining({ address: `127.0.0.1:${port}` }));

    const seed = await startAgent('seed', { bind: `127.0.0.1:${port}` });
    await until('early and seed see each other alive', 60_000, async () => {
      const [a, b] = await Promise.all([membersOf(early), membersOf(seed)]);
      return stateOf(a, 'seed') === 'alive' && stateOf(b, 'early') === 'alive';
    });
    await until('early logs the join', 10_000, () => events(early, 'joined').length > 0);
    expect(events(early, 'joined')[0]!['contacted']).toEqual([`127.0.0.1:${port}`]);

    // `swim join` takes a name too: a third agent joins through localhost:PORT.
    const late = await startAgent('late');
    const joined = await swim(['join', '--rpc', late.rpc, `localhost:${port}`]);
    expect(joined.stderr).toBe('');
    expect(joined.code).toBe(0);
    expect(joined.stdout).toContain(`joined through 127.0.0.1:${port}`);
    await until('every agent sees 3 alive members', 60_000, async () => {
      const views = await Promise.all([early, seed, late].map(membersOf));
      return views.every((v) => v.members.filter((m) => m.state === 'alive').length === 3);
    });

    for (const agent of [early, seed, late]) agent.child.kill('SIGTERM');
    expect(await Promise.all([early, seed, late].map((a) => a.exited))).toEqual([0, 0, 0]);
  });

  it('three agents started at the same moment, each given the whole seed list (itself included), form one cluster', { timeout: 120_000 }, async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    const seeds = ports.flatMap((port) => ['--retry-join', `localhost:${port}`]);
    const agents = await Promise.all(ports.map((port, i) => startAgent(`peer-${i}`, { bind: `127.0.0.1:${port}`, extra: [...seeds, '--retry-interval', '500ms'] })));
    await until('every agent sees 3 alive members', 60_000, async () => {
      const views = await Promise.all(agents.map(membersOf));
      return views.every((v) => v.members.filter((m) => m.state === 'alive').length === 3);
    });
    // None counted itself as the seed that answered.
    for (const agent of agents) {
      await until(`${agent.name} logs its join`, 30_000, () => events(agent, 'joined').length > 0);
      expect(events(agent, 'joined')[0]!['contacted']).not.toContain(agent.address);
    }
    for (const agent of agents) agent.child.kill('SIGTERM');
    expect(await Promise.all(agents.map((a) => a.exited))).toEqual([0, 0, 0]);
  });

  it('gives up after --retry-max attempts and exits 1', { timeout: 60_000 }, async () => {
    // Port 1 on loopback: nothing listens there, every attempt is refused.
    const lonely = await startAgent('lonely', { extra: ['--retry-join', '127.0.0.1:1', '--retry-interval', '100ms', '--retry-max', '3'] });
    expect(await lonely.exited).toBe(1);
    expect(events(lonely, 'join-retry').map((l) => l['attempt'])).toEqual([1, 2]);
    const error = events(lonely, 'error').at(-1)!;
    expect(error['error']).toMatch(/^could not join through any seed \(3 attempts\): 127\.0\.0\.1:1 \(.*\); giving up after 3 attempts \(--retry-max 3\)$/);
    expect(events(lonely, 'stop')[0]).toMatchObject({ exitCode: 1 });
    expect(events(lonely, 'leave')).toEqual([]);
  });
});

describe('swim agent under a name the cluster already has', () => {
  it('is refused with the error, exits 1, and the real member is never seen leaving', { timeout: 120_000 }, async () => {
    const real = await startAgent('web-1');
    const other = await startAgent('web-2', { join: [real.address] });
    await until('the pair sees each other', 60_000, async () => stateOf(await membersOf(real), 'web-2') === 'alive' && stateOf(await membersOf(other), 'web-1') === 'alive');

    // At start, through --retry-join: refused at the first attempt, never retried.
    const twin = await startAgent('web-1', { extra: ['--retry-join', other.address, '--retry-interval', '200ms'] });
    expect(await twin.exited).toBe(1);
    const refusal = events(twin, 'error').at(-1)!['error'];
    expect(refusal).toBe(
      `name conflict: the cluster reached through ${other.address} already has a member named "web-1" at ${real.address}; names must be unique, start this member under another name`,
    );
    expect(events(twin, 'join-retry')).toEqual([]);
    expect(events(twin, 'leave')).toEqual([]);
    expect(events(twin, 'conflict')[0]).toMatchObject({ name: 'web-1', existingAddress: twin.address, otherAddress: real.address });
    // The member it tried to join through logged the claim.
    await until('web-2 logs the conflict', 10_000, () => events(other, 'conflict').length > 0);
    expect(events(other, 'conflict')[0]).toMatchObject({ name: 'web-1', existingAddress: real.address, otherAddress: twin.address });

    // Later, through `swim join`: refused (409), the agent stays up alone; its leave reaches no one.
    const later = await startAgent('web-1');
    const joined = await swim(['join', '--rpc', later.rpc, other.address]);
    expect(joined.code).toBe(1);
    expect(joined.stderr).toContain(`swim: name conflict: the cluster reached through ${other.address} already has a member named "web-1" at ${real.address}`);
    expect((await membersOf(later)).members.map((m) => m.name)).toEqual(['web-1']);
    later.child.kill('SIGTERM');
    expect(await later.exited).toBe(0);

    // Give any leave time to arrive: two more push-pulls between the real pair.
    const before = (await counters(other)).pushPulls!;
    await until('two more push-pulls at web-2', 30_000, async () => (await counters(other)).pushPulls! >= before + 2);
    for (const agent of [real, other]) {
      const about = agent.lines.filter((line) => line.member?.name === 'web-1' && line.member.address !== agent.address);
      expect(about.map((line) => line.event)).not.toContain('left');
      expect(about.map((line) => line.event)).not.toContain('dead');
    }
    expect((await membersOf(other)).members.find((m) => m.name === 'web-1')).toMatchObject({ state: 'alive', address: real.address });
    for (const agent of [real, other]) agent.child.kill('SIGTERM');
    expect(await Promise.all([real.exited, other.exited])).toEqual([0, 0]);
  });
});
