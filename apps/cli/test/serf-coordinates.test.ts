/**
 * Vivaldi coordinates between `swim agent --wire memberlist` and real Serf agents (Debian's serf
 * 0.9): Serf reads the coordinate in our direct acks (`serf rtt swim-1 serf-1` on a Serf agent has
 * one for us), we read theirs (`swim rtt serf-1`), and no Serf agent logs a payload it could not
 * take. The Serf agents log at trace, where "Rejected coordinate" shows.
 */
import { expect, it } from 'vitest';
import { describeSerf } from '@swim/test-support';
import { swim } from './agents.js';
import { mixedCluster } from './serf-cluster.js';

const ESTIMATE = (a: string, b: string) => new RegExp(`^Estimated ${a} <-> ${b} rtt: (\\d+\\.\\d{3}) ms\\n?$`);

describeSerf('network coordinates with Serf agents', () => {
  const { serf, startSwim } = mixedCluster();

  it('serf rtt finds our coordinate, swim rtt finds theirs, and Serf takes every payload we send', async () => {
    const [s1, s2] = await serf.startMany(2, (i) => ({ node: `serf-${i + 1}`, args: ['-log-level=trace'] }));
    await serf.join(s2!, s1!);
    const member = await startSwim('swim-1', { join: s1! });

    // Serf probes each member once per second (lan): a few rounds give both sides samples.
    let serfSays = '';
    await serf.waitFor(
      async () => {
        try {
          serfSays = await serf.run(s1!, ['rtt', 'swim-1', 'serf-1']);
        } catch (error) {
          serfSays = String(error);
        }
        return ESTIMATE('swim-1', 'serf-1').test(serfSays);
      },
      { timeoutMs: 30_000, describe: () => `serf rtt swim-1 serf-1 to print an estimate; it printed ${serfSays}` },
    );
    console.log(`serf rtt swim-1 serf-1 (on serf-1): ${serfSays.trim()}`);

    // A dozen samples of our own (a probe a second, two peers), so the first, noisy ones are filtered out.
    const counters = async () => (JSON.parse((await swim(['stats', '--rpc', member.rpc, '--json'])).stdout) as { counters: Record<string, number> }).counters;
    await serf.waitFor(async () => (await counters())['coordinateUpdates']! >= 12, { timeoutMs: 40_000, describe: 'swim-1 to take 12 coordinate samples' });
    let swimSays = { code: null as number | null, stdout: '', stderr: '' };
    await serf.waitFor(
      async () => {
        swimSays = await swim(['rtt', '--rpc', member.rpc, 'serf-1']);
        return swimSays.code === 0;
      },
      { timeoutMs: 30_000, describe: () => `swim rtt serf-1 to print an estimate; it printed ${JSON.stringify(swimSays)}` },
    );
    expect(swimSays.stdout).toMatch(ESTIMATE('serf-1', 'swim-1'));
    console.log(`swim rtt serf-1 (on swim-1): ${swimSays.stdout.trim()}`);
    const between = await swim(['rtt', '--rpc', member.rpc, 'serf-1', 'serf-2']);
    console.log(`swim rtt serf-1 serf-2 (on swim-1): ${between.stdout.trim()}${between.stderr.trim()}`);

    // The second Serf agent has our coordinate too, from its own probes of us.
    let fromS2 = '';
    await serf.waitFor(
      async () => {
        try {
          fromS2 = await serf.run(s2!, ['rtt', 'swim-1']);
        } catch (error) {
          fromS2 = String(error);
        }
        return ESTIMATE('swim-1', 'serf-2').test(fromS2);
      },
      { timeoutMs: 30_000, describe: () => `serf rtt swim-1 on serf-2 to print an estimate; it printed ${fromS2}` },
    );
    console.log(`serf rtt swim-1 (on serf-2): ${fromS2.trim()}`);

    for (const agent of [s1!, s2!]) {
      const log = serf.logTail(agent, 100_000);
      expect(log, `${agent.name} could not read our ack payload`).not.toMatch(/Unsupported ping version|Failed to decode coordinate/);
      expect(log, `${agent.name} refused our coordinate`).not.toMatch(/Rejected coordinate from swim-1/);
    }
    const { coordinateUpdates, coordinatesRejected, coordinateResets } = await counters();
    console.log(`swim-1 coordinate counters: updates ${coordinateUpdates}, rejected ${coordinatesRejected}, resets ${coordinateResets}`);
    // Serf's coordinates are valid to us: none refused.
    expect(coordinatesRejected).toBe(0);
  }, 150_000);
});
