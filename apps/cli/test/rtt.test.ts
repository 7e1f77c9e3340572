/**
 * `swim rtt A [B]` (serf rtt) between two swim agents on swim's own wire: their coordinates ride
 * on direct acks, the control endpoint hands them out (POST /coordinate), the command computes
 * the distance and prints it as Serf does.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseArgs } from '../src/commands/parse.js';
import { UsageError } from '../src/flags/usage-error.js';
import { killAll, startAgent, swim, until, type Agent } from './agents.js';

const ESTIMATE = /^Estimated (\S+) <-> (\S+) rtt: (\d+\.\d{3}) ms\n$/;

describe('swim rtt: arguments', () => {
  it('takes one or two names, as serf rtt', () => {
    expect(parseArgs(['rtt', 'a'])).toMatchObject({ command: 'rtt', nodes: ['a'] });
    expect(parseArgs(['rtt', 'a', 'b', '--rpc', '127.0.0.1:7000'])).toMatchObject({ command: 'rtt', nodes: ['a', 'b'], rpc: { host: '127.0.0.1', port: 7000 } });
    for (const argv of [['rtt'], ['rtt', 'a', 'b', 'c']]) {
      expect(() => parseArgs(argv)).toThrow(new UsageError('One or two node names must be specified', 'rtt'));
    }
  });
});

describe('swim rtt between two swim agents (swim wire)', () => {
  const agents: Agent[] = [];
  afterEach(() => {
    for (const agent of agents.splice(0)) if (agent.child.exitCode === null) agent.child.kill('SIGKILL');
  });
  afterAll(() => killAll());

  it('prints the estimate as serf rtt does, for one name (the other is the agent) and two; refuses a node without a coordinate', async () => {
    const a = await startAgent('rtt-a');
    agents.push(a);
    const b = await startAgent('rtt-b', { join: [a.address] });
    agents.push(b);
    let last = { code: null as number | null, stdout: '', stderr: '' };
    // Fast timers: a probe every 200 ms; a handful of direct acks each way gives both coordinates.
    await until('rtt-a to hold a coordinate of rtt-b', 20_000, async () => {
      last = await swim(['rtt', '--rpc', a.rpc, 'rtt-b']);
      return last.code === 0;
    });
    // The first samples carry the agents' start-up (code still compiling): wait for a dozen more.
    const updates = async () => (JSON.parse((await swim(['stats', '--rpc', a.rpc, '--json'])).stdout) as { counters: { coordinateUpdates: number } }).counters.coordinateUpdates;
    await until('rtt-a to take 15 coordinate samples', 20_000, async () => (await updates()) >= 15);
    last = await swim(['rtt', '--rpc', a.rpc, 'rtt-b']);
    const one = ESTIMATE.exec(last.stdout);
    expect(one, last.stdout).not.toBeNull();
    expect(one!.slice(1, 3)).toEqual(['rtt-b', 'rtt-a']);
    // Loopback: well under 10 ms once a few samples are in.
    expect(Number(one![3])).toBeLessThan(10);
    console.log(`swim rtt --rpc <rtt-a> rtt-b: ${last.stdout.trim()}`);

    const two = await swim(['rtt', '--rpc', b.rpc, 'rtt-a', 'rtt-b']);
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toMatch(/^Estimated rtt-a <-> rtt-b rtt: \d+\.\d{3} ms\n$/);
    console.log(`swim rtt --rpc <rtt-b> rtt-a rtt-b: ${two.stdout.trim()}`);

    const unknown = await swim(['rtt', '--rpc', a.rpc, 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('swim: Could not find a coordinate for node "nobody"\n');
    expect(unknown.stdout).toBe('');
  }, 60_000);
});
