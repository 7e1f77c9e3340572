/**
 * The operator's commands on real agents: tags changed at run time (`swim tags`) and seen by
 * another agent's `swim members --tag`, `--status` filters, `swim agent --config-file` with flags
 * overriding the file and an unknown key refused, `swim` with no command.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeTags } from '@swim/adapter-memberlist';
import { afterAll, describe, expect, it } from 'vitest';
import { FAST_CONFIG, killAll, membersOf, startAgent, stateOf, swim, until, type Agent, type MembersReply } from './agents.js';

afterAll(killAll);

/** `swim members --rpc AGENT --json ...filters`: the names listed, sorted. */
async function listed(agent: Agent, ...filters: string[]): Promise<string[]> {
  const out = await swim(['members', '--rpc', agent.rpc, '--json', ...filters]);
  expect(out.stderr).toBe('');
  expect(out.code).toBe(0);
  return (JSON.parse(out.stdout) as MembersReply).members.map((m) => m.name).sort();
}

describe.concurrent('operating agents', () => {
  it('swim tags sets and deletes tags; another agent sees them through swim members --tag and --status', { timeout: 180_000 }, async () => {
    // a keeps dead members listed for 2 minutes (the test timers reap them after 3 s), for --status dead.
    const a = await startAgent('ops-a', { config: { gossipToTheDeadMs: 120_000 } });
    const [b, c] = await Promise.all([
      startAgent('ops-b', { join: [a.address], extra: ['--tag', 'role=web'] }),
      startAgent('ops-c', { join: [a.address], extra: ['--tag', 'role=web', '--tag', 'dc=eu'] }),
    ]);
    await until('a sees three alive members', 60_000, async () => (await membersOf(a)).members.filter((m) => m.state === 'alive').length === 3);
    expect(await listed(a, '--tag', 'role=web')).toEqual(['ops-b', 'ops-c']);
    expect(await listed(a, '--tag', 'role=web', '--tag', 'dc=eu')).toEqual(['ops-c']);
    const table = await swim(['members', '--rpc', a.rpc, '--tag', 'dc=eu']);
    expect(table.stdout).toMatch(/^NAME +ADDRESS +STATE +INCARNATION +TAGS\nops-c +127\.0\.0\.1:\d+ +alive +\d+ +dc=eu,role=web\n\nhealth score of ops-a: \d+\n$/);

    // b changes its tags while it runs.
    const set = await swim(['tags', '--rpc', b.rpc, '--set', 'role=db', '--set', 'dc=us']);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toMatch(/^tags: dc=us,role=db( \(not yet confirmed spread to every member\))?\n$/);
    await until("a lists b under role=db", 30_000, async () => (await listed(a, '--tag', 'role=db')).join() === 'ops-b');
    expect(await listed(a, '--tag', 'role=web')).toEqual(['ops-c']);
    const deleted = await swim(['tags', '--rpc', b.rpc, '--delete', 'dc', '--json']);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ tags: { role: 'db' } });
    await until("a sees b's dc tag gone", 30_000, async () => (await listed(a, '--tag', 'dc=us')).length === 0);
    expect((await membersOf(a)).members.find((m) => m.name === 'ops-b')?.tags).toEqual({ role: 'db' });
    expect(b.lines.filter((l) => l.event === 'tags').map((l) => l['tags'])).toEqual([{ dc: 'us', role: 'db' }, { role: 'db' }]);

    // The bound holds for the tags as a whole: each set is small, together they are too large.
    const big = 'x'.repeat(300);
    expect((await swim(['tags', '--rpc', b.rpc, '--set', `big=${big}`])).code).toBe(0);
    const tooLarge = await swim(['tags', '--rpc', b.rpc, '--set', `big2=${big}`]);
    const bytes = encodeTags({ big, big2: big, role: 'db' }).length;
    expect(tooLarge).toMatchObject({ code: 1, stdout: '', stderr: `swim: the tags would be ${bytes} bytes encoded, more than 512 (memberlist's limit on node metadata)\n` });
    const tooLargeHere = await swim(['tags', '--rpc', b.rpc, '--set', `big2=${'y'.repeat(600)}`]);
    expect(tooLargeHere.code, 'refused by swim before asking the agent').toBe(2);

    // --status, with --tag.
    c.child.kill('SIGKILL');
    await until('a sees c dead', 60_000, async () => stateOf(await membersOf(a), 'ops-c') === 'dead');
    expect(await listed(a, '--status', 'dead')).toEqual(['ops-c']);
    expect(await listed(a, '--status', 'alive', '--tag', 'role=db')).toEqual(['ops-b']);
    expect(await listed(a, '--status', 'suspect,left')).toEqual([]);
    expect(await listed(a, '--status', 'alive', '--status', 'dead')).toEqual(['ops-a', 'ops-b', 'ops-c']);
  });

  it('swim agent --config-file: every flag from the file, flags on the command line win, an unknown key lists the valid ones', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swim-config-'));
    const seed = await startAgent('cfg-seed');
    const file = join(dir, 'agent.json');
    await writeFile(
      file,
      JSON.stringify({
        name: 'cfg-from-file',
        bind: '127.0.0.1:0',
        join: [seed.address],
        tag: { role: 'web', dc: 'eu' },
        config: Object.entries(FAST_CONFIG).map(([key, value]) => `${key}=${value}`),
        log: 'text',
        'leave-timeout': 1000,
      }),
    );
    // startAgent passes --name, --bind, --rpc, --log json and --leave-timeout: those win over the file.
    const agent = await startAgent('cfg-flag', { extra: ['--config-file', file] });
    expect(agent.lines[0]).toMatchObject({ self: 'cfg-flag', event: 'start' });
    await until('the seed lists the agent with the tags from the file', 60_000, async () => {
      const member = (await membersOf(seed)).members.find((m) => m.name === 'cfg-flag');
      return member?.state === 'alive' && member.tags['role'] === 'web' && member.tags['dc'] === 'eu';
    });
    // --tag on the command line replaces the file's tags.
    const retagged = await startAgent('cfg-tagged', { extra: ['--config-file', file, '--tag', 'role=db'] });
    await until('the seed lists the retagged agent', 60_000, async () => (await listed(seed, '--tag', 'role=db')).join() === 'cfg-tagged');
    expect((await membersOf(seed)).members.find((m) => m.name === 'cfg-tagged')?.tags).toEqual({ role: 'db' });

    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ name: 'n1', bind: '127.0.0.1:0', nmae: 'typo', 'leave-timeout': [1] }));
    const refused = await swim(['agent', '--config-file', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      new RegExp(`^swim: --config-file '${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}': unknown key "nmae" \\(valid keys: name, bind, advertise, join, .*\\); "leave-timeout" must be a string, number or boolean, got an array\n\nusage: swim agent `),
    );
    const missing = await swim(['agent', '--config-file', join(dir, 'none.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read it (ENOENT');
    for (const running of [agent, retagged, seed]) running.child.kill('SIGTERM');
    expect(await Promise.all([agent.exited, retagged.exited, seed.exited])).toEqual([0, 0, 0]);
  });

  it('swim with no command exits 2 with the usage; swim --help exits 0', { timeout: 60_000 }, async () => {
    const [none, help] = await Promise.all([swim([]), swim(['--help'])]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^swim: missing command\n\nusage: swim <command> \[flags\]\n/);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: swim <command> \[flags\]\n[\s\S]*\n {2}monitor {3}stream the agent's membership changes/);
  });
});
