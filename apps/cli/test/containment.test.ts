/**
 * `swim agent` never exits on one exception (issue 10, containment): what the member contains is
 * logged from its `error` event; an uncaught exception or an unhandled rejection in the process is
 * logged and counted by the process guards. The guards come after start-up, so a bad flag still
 * exits 2 and a port that cannot be bound 1.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startAgent as startInProcess, type RunningAgent } from '../src/agent/start.js';
import type { AgentArgs } from '../src/commands/agent/flags.js';
import { parseArgs } from '../src/commands/parse.js';
import { describeError, LogBudget } from '../src/agent/contained-errors.js';
import { FAST, killAll, membersOf, startAgent, swim, until, type LogLine } from './agents.js';

afterAll(killAll);

const THROW_AFTER_START = fileURLToPath(new URL('./fixtures/throw-after-start.mjs', import.meta.url));

describe('contained errors', () => {
  it('logs at most the budget per second and says how many it held back', () => {
    let now = 0;
    const budget = new LogBudget(2, () => now);
    expect([budget.take(), budget.take(), budget.take(), budget.take()].map((t) => t.allowed)).toEqual([true, true, false, false]);
    now = 1000;
    expect(budget.take()).toEqual({ allowed: true, suppressed: 2 });
    expect(budget.take()).toEqual({ allowed: true, suppressed: 0 });
  });

  it('describes any thrown value on one line without throwing', () => {
    expect(describeError(new RangeError('bad\nvalue'))).toBe('RangeError: bad value');
    expect(describeError('text')).toBe('text');
    expect(describeError({ code: 7 })).toBe('{"code":7}');
    expect(describeError(undefined)).toBe('undefined');
    const hostile = { toJSON: () => { throw new Error('no'); } };
    expect(describeError(hostile)).toBe('[object Object]');
    expect(describeError('x'.repeat(600))).toHaveLength(503);
  });
});

describe.concurrent('swim agent survives exceptions', () => {
  it("logs the member's contained exceptions (JSON and text) and keeps running", { timeout: 120_000 }, async () => {
    const agents: RunningAgent[] = [];
    try {
      const lines: { json: LogLine[]; text: string[] } = { json: [], text: [] };
      const args = (name: string, log: 'json' | 'text') =>
        parseArgs(['agent', '--name', name, '--bind', '127.0.0.1:0', '--rpc', '127.0.0.1:0', '--log', log, ...FAST]) as AgentArgs;
      const a = await startInProcess(args('a', 'json'), { out: (line) => lines.json.push(JSON.parse(line) as LogLine) });
      const b = await startInProcess(args('b', 'text'), { out: (line) => lines.text.push(line) });
      agents.push(a, b);
      // A listener that throws on every membership change, as an application's bug would.
      for (const agent of [a, b]) {
        agent.member.on('change', () => {
          throw new Error(`listener bug in ${agent.member.name}`);
        });
      }
      await b.member.join([a.address]);
      await until('both log the exception their listener threw', 30_000, () =>
        lines.json.some((line) => line.event === 'error') && lines.text.some((line) => line.includes(' b contained an exception')),
      );
      expect(lines.json.find((line) => line.event === 'error')).toMatchObject({ self: 'a', where: 'listener', error: 'Error: listener bug in a' });
      expect(lines.text.find((line) => line.includes('contained'))).toMatch(/^\S+ b contained an exception in listener, still running: Error: listener bug in b$/);
      // Both still run: they see each other alive, and count what they survived.
      await until('a and b see each other alive', 30_000, () =>
        a.member.member('b')?.state === 'alive' && b.member.member('a')?.state === 'alive',
      );
      const stats = (await (await fetch(`http://${a.rpcAddress}/stats`)).json()) as { errors: { member: number; uncaught: number } };
      expect(stats.errors.member).toBeGreaterThan(0);
      expect(stats.errors.uncaught).toBe(0);
    } finally {
      await Promise.all(agents.map((agent) => agent.shutdown('test over')));
    }
  });

  it('an uncaught exception or unhandled rejection after start is logged and counted, not fatal', { timeout: 120_000 }, async () => {
    const agent = await startAgent('guarded', { nodeArgs: ['--import', THROW_AFTER_START] });
    await until('both injected faults are logged', 30_000, () => agent.lines.filter((line) => line.event === 'error').length >= 2);
    const errors = agent.lines.filter((line) => line.event === 'error');
    expect(errors.map((line) => [line['where'], line['error']]).sort()).toEqual([
      ['uncaughtException', 'Error: injected uncaught exception'],
      ['unhandledRejection', 'Error: injected unhandled rejection'],
    ]);
    expect(agent.child.exitCode).toBe(null);
    expect((await membersOf(agent)).members).toMatchObject([{ name: 'guarded', state: 'alive' }]);
    const stats = (await (await fetch(`http://${agent.rpc}/stats`)).json()) as { errors: { uncaught: number } };
    expect(stats.errors.uncaught).toBe(2);
    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
  });

  it('start-up failures still end the process: a bad flag exits 2, a port in use 1', { timeout: 120_000 }, async () => {
    const running = await startAgent('holder');
    const [badFlag, rpcInUse, gossipInUse] = await Promise.all([
      swim(['agent', '--name', 'x', '--bind', '127.0.0.1:0', '--bogus']),
      swim(['agent', '--name', 'x', '--bind', '127.0.0.1:0', '--rpc', running.rpc]),
      swim(['agent', '--name', 'x', '--bind', running.address, '--rpc', '127.0.0.1:0']),
    ]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain("swim: unknown flag '--bogus' for swim agent");
    expect(rpcInUse.code).toBe(1);
    expect(rpcInUse.stderr).toContain(`swim: cannot listen for control requests on ${running.rpc}: address already in use`);
    expect(gossipInUse.code).toBe(1);
    expect(gossipInUse.stderr).toContain(`swim: cannot bind ${running.address}: address already in use`);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  });
});
