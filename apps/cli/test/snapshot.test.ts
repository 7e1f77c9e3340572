/**
 * `swim agent --snapshot FILE` with real agent processes (Serf's snapshot and rejoin): an agent
 * killed with kill -9 and restarted with no --join rejoins the members it knew and comes back
 * above its last incarnation; after a graceful leave it does not rejoin, unless
 * --rejoin-after-leave; in memberlist mode Serf's Lamport clocks survive the restart (a real
 * Serf agent moves them).
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeSerf, SerfAgents } from '@swim/test-support';
import { killAll, membersOf, startAgent, swim, until, type Agent, type MembersReply } from './agents.js';
import { readSnapshotFile } from '../src/snapshot/log.js';

const dir = mkdtempSync(join(tmpdir(), 'swim-snapshot-cli-'));
afterAll(() => {
  killAll();
  rmSync(dir, { recursive: true, force: true });
});

const member = (reply: MembersReply, name: string) => reply.members.find((m) => m.name === name);
const events = (agent: Agent, event: string) => agent.lines.filter((line) => line.event === event);
const stats = async (agent: Agent) => (await (await fetch(`http://${agent.rpc}/stats`)).json()) as Record<string, unknown> & { incarnation: number };
const known = (file: string) => [...readSnapshotFile(file, { maxMembers: 100 }).state.members.keys()].sort();

async function killed(agent: Agent): Promise<void> {
  agent.child.kill('SIGKILL');
  await agent.exited;
}

/** Every agent in `observers` lists `name` as `state`, at an incarnation `incarnation` accepts. */
function allSee(observers: readonly Agent[], name: string, state: string, incarnation: (n: number) => boolean = () => true) {
  return async () => {
    const views = await Promise.all(observers.map(membersOf));
    return views.every((view) => member(view, name)?.state === state && incarnation(member(view, name)!.incarnation));
  };
}

describe.concurrent('swim agent --snapshot', () => {
  it('kill -9, then a restart with no --join: it rejoins the members it knew on its own, above its last incarnation', { timeout: 120_000 }, async () => {
    const file = join(dir, 'crash.jsonl');
    const a = await startAgent('a');
    const b = await startAgent('b', { join: [a.address] });
    // gossipToTheDeadMs long: a and b keep c dead, not reaped, until it is back.
    const c = await startAgent('c', { join: [a.address], extra: ['--snapshot', file], config: { gossipToTheDeadMs: 60_000 } });
    await until('a, b and c see each other alive', 60_000, async () => (await allSee([a, b], 'c', 'alive')()) && (await membersOf(c)).members.every((m) => m.state === 'alive') && (await membersOf(c)).members.length === 3);
    await until("c's snapshot lists a and b", 10_000, () => known(file).join() === 'a,b');
    // New tags: c announces itself at a higher incarnation (2, or more if a loaded host made it refute), recorded at once.
    expect((await swim(['tags', '--rpc', c.rpc, '--set', 'role=web'])).code).toBe(0);
    const announced = (await stats(c)).incarnation;
    expect(announced).toBeGreaterThanOrEqual(2);
    await until(`the snapshot records incarnation ${announced}`, 5_000, () => (readSnapshotFile(file, { maxMembers: 100 }).state.self?.incarnation ?? 0) >= announced);
    await until(`a and b hold c at incarnation ${announced} or above`, 30_000, allSee([a, b], 'c', 'alive', (n) => n >= announced));

    await killed(c);
    const saved = readSnapshotFile(file, { maxMembers: 100 }).state.self!;
    expect(saved).toMatchObject({ name: 'c', address: c.address });
    const before = saved.incarnation;
    await until('a and b see c dead', 60_000, allSee([a, b], 'c', 'dead'));
    const deadAt = Math.max(...(await Promise.all([a, b].map(membersOf))).map((view) => member(view, 'c')!.incarnation));

    const marks = [a.lines.length, b.lines.length];
    const restarted = await startAgent('c', { bind: c.address, extra: ['--snapshot', file], config: { gossipToTheDeadMs: 60_000 } });
    // Logged right after its start line.
    await until('the restarted c logs its rejoin', 10_000, () => events(restarted, 'rejoin').length > 0);
    const restored = events(restarted, 'snapshot').find((line) => line['lastIncarnation'] !== undefined);
    expect(restored, JSON.stringify(restarted.lines)).toMatchObject({ lastIncarnation: before, members: 2 });
    expect(events(restarted, 'rejoin')[0]).toMatchObject({ seeds: expect.arrayContaining([a.address, b.address]) });
    const back = (await stats(restarted)).incarnation;
    expect(back, 'it resumes above its last incarnation').toBeGreaterThan(before);
    expect(restored!['incarnation'] as number, 'the member was made above it').toBeGreaterThan(before);
    const took = await until('a and b see c alive again above its last incarnation', 30_000, allSee([a, b], 'c', 'alive', (n) => n > before));
    await until('c sees a and b alive', 30_000, async () => {
      const view = await membersOf(restarted);
      return ['a', 'b'].every((name) => member(view, name)?.state === 'alive');
    });
    // Its first alive was news to a and b: it had nothing to refute, unless a loaded host made one of them suspect it since.
    const suspectedSince = [a, b].some((agent, i) => agent.lines.slice(marks[i]).some((line) => line.event === 'suspect' && line.member?.name === 'c'));
    const counters = (await stats(restarted))['counters'] as Record<string, number>;
    // (A refutation in the last 100 ms before the kill is not in the snapshot: then the verdict may be at or above what c resumed at.)
    if (!suspectedSince && back > deadAt) expect(counters['refutations'], 'no refutation needed').toBe(0);
    console.log(`kill -9 restart: seen alive by a and b ${took} ms after the restarted agent's start (incarnation ${before} -> ${back}, dead at ${deadAt}; refutations ${counters['refutations']}, suspected since: ${suspectedSince})`);
    for (const agent of [a, b, restarted]) agent.child.kill('SIGKILL');
  });

  it('after a graceful leave a restart does not rejoin; with --rejoin-after-leave it does', { timeout: 120_000 }, async () => {
    const file = join(dir, 'leave.jsonl');
    const seed = await startAgent('seed');
    const c = await startAgent('leaver', { join: [seed.address], extra: ['--snapshot', file] });
    await until('seed sees leaver alive', 60_000, allSee([seed], 'leaver', 'alive'));
    await until("leaver's snapshot lists seed", 10_000, () => known(file).join() === 'seed');
    const left = await swim(['leave', '--rpc', c.rpc]);
    expect(left.code).toBe(0);
    expect(await c.exited).toBe(0);
    expect(readSnapshotFile(file, { maxMembers: 100 }).state.left, 'the leave is recorded').toBe(true);
    await until('seed sees leaver left', 30_000, allSee([seed], 'leaver', 'left'));
    const copy = join(dir, 'leave-copy.jsonl');
    copyFileSync(file, copy);
    const incarnationAtLeave = readSnapshotFile(file, { maxMembers: 100 }).state.self!.incarnation;

    // Without --rejoin-after-leave: the decision is logged, no rejoin, the agent stays alone.
    const alone = await startAgent('leaver', { bind: c.address, extra: ['--snapshot', file] });
    await until('the restarted leaver logs what it restored', 10_000, () => events(alone, 'snapshot').some((line) => line['lastIncarnation'] !== undefined));
    expect(events(alone, 'snapshot').map((line) => line['note']).join('\n')).toMatch(/left gracefully; not rejoining/);
    expect(events(alone, 'rejoin')).toEqual([]);
    expect((await stats(alone)).incarnation, 'still above the last incarnation').toBeGreaterThan(incarnationAtLeave);
    // A rejoin would have reached seed within a push-pull (milliseconds on loopback); watch for 3 s.
    const watchUntil = Date.now() + 3_000;
    await until('3 s without a rejoin', 10_000, async () => {
      const [mine, seeds] = await Promise.all([membersOf(alone), membersOf(seed)]);
      expect(mine.members.map((m) => m.name)).toEqual(['leaver']);
      // Left, or already reaped: not back.
      expect(['left', undefined]).toContain(member(seeds, 'leaver')?.state);
      return Date.now() > watchUntil;
    });
    await killed(alone);

    // With --rejoin-after-leave (Serf's -rejoin): back in the cluster on its own.
    const rejoined = await startAgent('leaver', { bind: c.address, extra: ['--snapshot', copy, '--rejoin-after-leave'] });
    await until('the restarted leaver logs its rejoin', 10_000, () => events(rejoined, 'rejoin').length > 0);
    expect(events(rejoined, 'snapshot').map((line) => line['note']).join('\n')).toMatch(/rejoining its 1 known members anyway/);
    expect(events(rejoined, 'rejoin')[0]).toMatchObject({ seeds: [seed.address] });
    await until('seed sees leaver alive again', 30_000, allSee([seed], 'leaver', 'alive', (n) => n > incarnationAtLeave));
    for (const agent of [seed, rejoined]) agent.child.kill('SIGKILL');
  });

  it('an unreadable snapshot path, or another agent\'s file, stops the start with a clear error', { timeout: 60_000 }, async () => {
    const asDirectory = await swim(['agent', '--name', 'x', '--bind', '127.0.0.1:0', '--rpc', '127.0.0.1:0', '--snapshot', dir]);
    expect(asDirectory.code).toBe(1);
    expect(asDirectory.stderr).toContain(`snapshot file ${dir} is not a regular file`);
    const missingDir = join(dir, 'no', 'such', 'snapshot.jsonl');
    const unwritable = await swim(['agent', '--name', 'x', '--bind', '127.0.0.1:0', '--rpc', '127.0.0.1:0', '--snapshot', missingDir]);
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(/cannot write snapshot file .*ENOENT/);
    const theirs = join(dir, 'theirs.jsonl');
    const other = await startAgent('other', { extra: ['--snapshot', theirs] });
    await killed(other);
    const refused = await swim(['agent', '--name', 'x', '--bind', '127.0.0.1:0', '--rpc', '127.0.0.1:0', '--snapshot', theirs]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`snapshot file ${theirs} is member "other"'s, not "x"'s`);
    expect(readFileSync(theirs, 'utf8'), 'the other agent\'s file is left as it was').toContain('"name":"other"');
  });
});

describeSerf('swim agent --snapshot --wire memberlist', () => {
  const serf = new SerfAgents();
  afterAll(() => serf.cleanup());

  it("Serf's Lamport clocks survive a kill -9 and restart", { timeout: 120_000 }, async () => {
    const file = join(dir, 'clocks.jsonl');
    const s1 = await serf.start({ node: 'serf-clock' });
    const m = await startAgent('swim-clock', { join: [s1.address], timing: 'preset', extra: ['--wire', 'memberlist', '--snapshot', file] });
    await serf.waitFor(async () => (await serf.statusOf(s1, 'swim-clock')) === 'alive', { timeoutMs: 30_000, describe: 'serf sees swim-clock alive' });
    // Five user events and two queries move Serf's event and query clocks.
    for (let i = 0; i < 5; i++) await serf.run(s1, ['event', '-coalesce=false', `deploy-${i}`, 'v']);
    for (let i = 0; i < 2; i++) await serf.run(s1, ['query', '-timeout=200ms', `ping-${i}`]);
    type Clocks = { clock: number; eventClock: number; queryClock: number };
    const clocksOf = async (agent: Agent) => ((await stats(agent))['serf'] as { clocks: Clocks }).clocks;
    await until('the swim agent witnessed the events and queries', 30_000, async () => {
      const clocks = await clocksOf(m);
      return clocks.eventClock >= 5 && clocks.queryClock >= 2;
    });
    const before = await clocksOf(m);
    await until('the snapshot holds those clocks', 10_000, () => {
      const saved = readSnapshotFile(file, { maxMembers: 100 }).state.clocks;
      return saved.eventClock >= before.eventClock && saved.queryClock >= before.queryClock && saved.clock >= before.clock;
    });
    await killed(m);
    // Nobody left to teach the restarted agent Serf's clocks: what it has, it restored.
    await serf.kill9(s1);
    const restarted = await startAgent('swim-clock', { bind: m.address, timing: 'preset', extra: ['--wire', 'memberlist', '--snapshot', file] });
    const after = await clocksOf(restarted);
    expect(after.eventClock).toBeGreaterThanOrEqual(before.eventClock);
    expect(after.queryClock).toBeGreaterThanOrEqual(before.queryClock);
    expect(after.clock).toBeGreaterThanOrEqual(before.clock);
    console.log(`memberlist clocks: before kill -9 ${JSON.stringify(before)}, after restart ${JSON.stringify(after)}`);
    restarted.child.kill('SIGKILL');
  });
});
