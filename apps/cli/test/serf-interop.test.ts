/**
 * `swim agent --wire memberlist` in real Serf clusters (Debian's serf 0.9, memberlist 0.2 inside),
 * on loopback, with both on the lan timing profile (memberlist DefaultLANConfig). Detection times
 * are printed for docs/memberlist-interop.md: Serf and swim watch the same kill -9.
 */
import { expect, it } from 'vitest';
import { describeSerf, newSerfKey, now } from '@swim/test-support';
import { membersOf, swim, type Agent } from './agents.js';
import { mixedCluster, SERF_TIMEOUT_MS, serfView, swimView } from './serf-cluster.js';

/**
 * A member that joined through another member is announced by gossip alone. memberlist sends an
 * update 4 × ceil(log10(n + 1)) times to random peers (4 times in a cluster of 6), so a member can
 * miss every copy (more so when a loaded host drops datagrams); it then learns the newcomer at its
 * next push-pull, up to one 30 s LAN interval later. Convergence is waited for two intervals.
 */
const CONVERGE_TIMEOUT_MS = 60_000;

describeSerf('swim agent --wire memberlist in a Serf cluster', () => {
  const { serf, startSwim, seen } = mixedCluster();

  it('joins two Serf agents: each side lists the other alive with its tags, nobody is suspected, and Serf agents still push-pull', async () => {
    const [s1, s2] = await serf.startMany(2, (i) => ({ node: `serf-${i + 1}`, tags: { role: 'serf' } }));
    await serf.join(s2!, s1!);
    const member = await startSwim('swim-1', { join: s1!, tags: { role: 'web', dc: 'lo' } });
    for (const agent of [s1!, s2!]) await seen(agent, 'swim-1', 'alive');
    for (const agent of [s1!, s2!]) await seen(member, agent.name, 'alive');
    expect((await serf.members(s2!)).find((m) => m.name === 'swim-1')).toMatchObject({ addr: member.address, tags: { role: 'web', dc: 'lo' } });
    const listed = await swim(['members', '--rpc', member.rpc, '--json']);
    expect(JSON.parse(listed.stdout).members.find((m: { name: string }) => m.name === 'serf-2')).toMatchObject({ state: 'alive', tags: { role: 'serf' } });

    // A healthy while: a dozen probe rounds each way, push-pulls included (a join is one).
    const s3 = await serf.start({ node: 'serf-3' });
    await serf.join(s3, s2!);
    for (const name of ['serf-1', 'serf-2', 'swim-1']) await seen(s3, name, 'alive');
    await seen(member, 'serf-3', 'alive');
    const quiet = now() + 12_000;
    await serf.waitFor(() => now() > quiet, { timeoutMs: 20_000, describe: 'the healthy period' });
    for (const agent of [s1!, s2!, s3]) {
      const log = serf.logTail(agent, 10_000);
      expect(log, `${agent.name} suspected the swim agent`).not.toMatch(/Suspect swim-1|Marking swim-1 as failed/);
      expect(log, `${agent.name} refused a push-pull`).not.toMatch(/Failed push\/pull merge|incompatible/);
      expect(log, `${agent.name} could not read our ack`).not.toMatch(/Unsupported ping version/);
    }
    expect(member.lines.filter((line) => line.event === 'suspect' || line.event === 'dead')).toEqual([]);
  }, 90_000);

  it('kill -9: a Serf agent is seen dead by swim and by Serf; the swim agent is seen failed by Serf; swim leave is seen left', async () => {
    const [s1, s2] = await serf.startMany(2, (i) => ({ node: `serf-${i + 1}` }));
    await serf.join(s2!, s1!);
    const member = await startSwim('swim-1', { join: s1! });
    for (const agent of [s1!, s2!]) await seen(agent, 'swim-1', 'alive');
    for (const agent of [s1!, s2!]) await seen(member, agent.name, 'alive');

    const killedAt = await serf.kill9(s2!);
    const [bySerf, bySwim] = await Promise.all([seen(s1!, 'serf-2', 'failed'), seen(member, 'serf-2', 'dead')]);
    console.log(`kill -9 of a Serf agent (lan profile, 3 members): seen failed by Serf after ${(bySerf - killedAt).toFixed(0)} ms, dead by swim after ${(bySwim - killedAt).toFixed(0)} ms`);

    // Back to three members for the swim agent's own kill.
    const s3 = await serf.start({ node: 'serf-3' });
    await serf.join(s3, s1!);
    await seen(s3, 'swim-1', 'alive');
    const second = await startSwim('swim-2', { join: s1! });
    await seen(s1!, 'swim-2', 'alive');
    await seen(s3, 'swim-2', 'alive');
    const swimKilledAt = now();
    member.child.kill('SIGKILL');
    const [bySerf1, bySerf3, bySwim2] = await Promise.all([seen(s1!, 'swim-1', 'failed'), seen(s3, 'swim-1', 'failed'), seen(second, 'swim-1', 'dead')]);
    console.log(
      `kill -9 of a swim agent: seen failed by Serf after ${(bySerf1 - swimKilledAt).toFixed(0)} and ${(bySerf3 - swimKilledAt).toFixed(0)} ms, dead by the other swim agent after ${(bySwim2 - swimKilledAt).toFixed(0)} ms`,
    );

    const leaveAt = now();
    const left = await swim(['leave', '--rpc', second.rpc]);
    expect(left.code, left.stderr).toBe(0);
    const [leftOn1, leftOn3] = await Promise.all([seen(s1!, 'swim-2', 'left', 10_000), seen(s3, 'swim-2', 'left', 10_000)]);
    console.log(`swim leave: listed left by Serf after ${(leftOn1 - leaveAt).toFixed(0)} and ${(leftOn3 - leaveAt).toFixed(0)} ms`);
  }, 120_000);

  it('force-leave both ways: swim force-leave of a killed Serf agent is listed left by Serf; serf force-leave of another is listed left by swim', async () => {
    const [s1, s2, x, y] = await serf.startMany(4, (i) => ({ node: ['serf-1', 'serf-2', 'serf-x', 'serf-y'][i]! }));
    await serf.join(s2!, s1!);
    await serf.join(x!, s1!);
    await serf.join(y!, s1!);
    const member = await startSwim('swim-1', { join: s1! });
    for (const agent of [s1!, s2!]) await seen(agent, 'swim-1', 'alive', CONVERGE_TIMEOUT_MS);
    for (const name of ['serf-1', 'serf-2', 'serf-x', 'serf-y']) await seen(member, name, 'alive', CONVERGE_TIMEOUT_MS);

    await Promise.all([serf.kill9(x!), serf.kill9(y!)]);
    for (const name of ['serf-x', 'serf-y']) {
      await Promise.all([seen(s1!, name, 'failed'), seen(s2!, name, 'failed'), seen(member, name, 'dead')]);
    }

    // swim force-leave: Serf's leave intent for serf-x, which the Serf agents act on (handleNodeLeaveIntent).
    const forced = await swim(['force-leave', '--rpc', member.rpc, 'serf-x']);
    expect(forced).toEqual({ code: 0, stdout: '', stderr: '' });
    await Promise.all([seen(s1!, 'serf-x', 'left', 10_000), seen(s2!, 'serf-x', 'left', 10_000), seen(member, 'serf-x', 'left', 1_000)]);
    expect(serf.logTail(s1!, 200)).toMatch(/EventMemberLeave \(forced\): serf-x/);

    // serf force-leave from a Serf agent: the swim agent takes the intent and lists serf-y left.
    expect(await serf.run(s2!, ['force-leave', 'serf-y'])).toBe('');
    await Promise.all([seen(member, 'serf-y', 'left', 10_000), seen(s1!, 'serf-y', 'left', 10_000)]);
    expect(member.lines.filter((line) => line.event === 'left').map((line) => line.member?.name).sort()).toEqual(['serf-x', 'serf-y']);
    // Nobody else was touched.
    for (const observer of [s1!, s2!]) await seen(observer, 'swim-1', 'alive', 1_000);
    for (const name of ['serf-1', 'serf-2']) await seen(member, name, 'alive', 1_000);
  }, 150_000);

  it('in an encrypted Serf cluster a swim agent with the key joins and one without does not', async () => {
    const key = newSerfKey();
    const [s1, s2] = await serf.startMany(2, (i) => ({ node: `serf-${i + 1}`, encrypt: key }));
    await serf.join(s2!, s1!);
    const keyed = await startSwim('swim-keyed', { join: s1!, encrypt: key });
    for (const agent of [s1!, s2!]) await seen(agent, 'swim-keyed', 'alive');
    await seen(keyed, 'serf-2', 'alive');

    const plain = await startSwim('swim-plain', { join: s1! });
    const failure = await serf.waitFor(() => plain.lines.some((line) => line.event === 'join-failed'), {
      timeoutMs: SERF_TIMEOUT_MS,
      describe: () => `swim-plain to report its join failed; its log: ${JSON.stringify(plain.lines.slice(-5))}`,
    });
    expect(failure).toBeGreaterThan(0);
    // Whatever it sent in plaintext was dropped: Serf never lists it, it never lists Serf.
    expect(serfView(await serf.members(s1!))['swim-plain']).toBeUndefined();
    expect(swimView(await membersOf(plain))).toEqual({ 'swim-plain': 'alive' });
    expect(serf.logTail(s1!, 10_000)).toMatch(/Encryption is configured but remote state is not encrypted|No installed keys could decrypt/);
  }, 90_000);

  it('a mixed cluster of 3 Serf and 3 swim agents converges; kill -9 of one of each is seen by every survivor', async () => {
    const serfs = await serf.startMany(3, (i) => ({ node: `serf-${i + 1}` }));
    for (const agent of serfs.slice(1)) await serf.join(agent, serfs[0]!);
    const swims: Agent[] = [];
    for (let i = 0; i < 3; i++) swims.push(await startSwim(`swim-${i + 1}`, { join: i === 0 ? serfs[1]! : swims[0]! }));
    const names = [...serfs.map((s) => s.name), ...swims.map((s) => s.name)];
    for (const observer of [...serfs, ...swims]) {
      for (const name of names) if (name !== observer.name) await seen(observer, name, 'alive', CONVERGE_TIMEOUT_MS);
    }

    const killedAt = now();
    await serf.kill9(serfs[2]!);
    swims[2]!.child.kill('SIGKILL');
    const survivors = [serfs[0]!, serfs[1]!, swims[0]!, swims[1]!];
    const times = await Promise.all(
      survivors.flatMap((observer) => {
        const gone = 'logPath' in observer ? 'failed' : 'dead';
        return [seen(observer, 'serf-3', gone), seen(observer, 'swim-3', gone)];
      }),
    );
    console.log(`mixed 3+3, kill -9 of serf-3 and swim-3: every survivor saw both within ${(Math.max(...times) - killedAt).toFixed(0)} ms`);
    for (const observer of survivors) {
      for (const name of ['serf-1', 'serf-2', 'swim-1', 'swim-2']) if (name !== observer.name) await seen(observer, name, 'alive', 1_000);
    }
  }, 150_000);
});
