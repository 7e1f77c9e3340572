import { describe, expect, it } from 'vitest';
import type { AgentArgs } from '../src/commands/agent/flags.js';
import { parseArgs, USAGE } from '../src/commands/parse.js';
import { UsageError } from '../src/flags/usage-error.js';

const agent = (...extra: string[]) => parseArgs(['agent', '--name', 'n1', '--bind', '127.0.0.1:7946', ...extra]) as AgentArgs;
const usageError = (f: () => unknown): string => {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('no usage error');
};

describe('swim agent --retry-join, --retry-interval, --retry-max', () => {
  it('default to no retry-join, every 30 s (Serf), no limit', () => {
    expect(agent()).toMatchObject({ join: [], retryJoin: [], retryIntervalMs: 30_000, retryMax: 0 });
  });

  it('take host names (repeatable, or comma-separated), a duration and a count', () => {
    const args = agent('--retry-join', 'localhost:7946', '--retry-join=seeds.example:7946,10.0.0.1:7946', '--retry-join', '[::1]:7946', '--retry-interval', '500ms', '--retry-max=5');
    expect(args).toMatchObject({ retryJoin: ['localhost:7946', 'seeds.example:7946', '10.0.0.1:7946', '[::1]:7946'], retryIntervalMs: 500, retryMax: 5 });
    expect(agent('--retry-interval', '1m30s').retryIntervalMs).toBe(90_000);
    expect(agent('--join', 'localhost:7946').join).toEqual(['localhost:7946']);
  });

  it.each([
    [['--retry-join', 'localhost'], "--retry-join 'localhost': expected HOST:PORT"],
    [['--retry-join', 'localhost:0'], "--retry-join 'localhost:0': port 0 is out of range (1-65535)"],
    [['--retry-join'], '--retry-join needs a value'],
    [['--retry-interval', '30'], "--retry-interval: '30' has no unit: expected a number and a unit (ms, s, m, h), e.g. 500ms, 30s, 2m or 1m30s"],
    [['--retry-interval', 'soon'], /^--retry-interval: 'soon' is not a duration/],
    [['--retry-interval', '0s'], "--retry-interval '0s': expected 1ms to 596h31m23s647ms"],
    [['--retry-interval', '1s', '--retry-interval', '2s'], '--retry-interval given twice'],
    [['--retry-max', '-1'], "--retry-max '-1': expected a number of attempts (0 = no limit)"],
    [['--retry-max', 'many'], "--retry-max 'many': expected a number of attempts (0 = no limit)"],
    [['--retry-max', '1.5'], "--retry-max '1.5': expected a number of attempts (0 = no limit)"],
  ])('%j is refused', (extra, message) => {
    const got = usageError(() => agent(...extra));
    if (typeof message === 'string') expect(got).toBe(message);
    else expect(got).toMatch(message);
  });

  it('at most 64 retry-join seeds', () => {
    const seeds = Array.from({ length: 65 }, (_, i) => `10.0.0.${i}:7946`).join(',');
    expect(usageError(() => agent('--retry-join', seeds))).toBe('--retry-join takes at most 64 seeds, got 65');
  });

  it('--bind refuses a host name with the rule: bind an IP, names are for join', () => {
    expect(usageError(() => parseArgs(['agent', '--name', 'n1', '--bind', 'localhost:7946']))).toBe(
      "--bind 'localhost:7946': 'localhost' is not an IP address: bind needs an IP (127.0.0.1, ::1, 0.0.0.0 or ::); host names are for --join, --retry-join and swim join, which resolve them",
    );
  });

  it('swim join takes host names', () => {
    expect(parseArgs(['join', 'localhost:7946', 'seeds.example:7946'])).toMatchObject({ command: 'join', seeds: ['localhost:7946', 'seeds.example:7946'] });
  });

  it('a config file sets them as keys', () => {
    const file = JSON.stringify({ name: 'n1', bind: '127.0.0.1:7946', 'retry-join': ['localhost:7946'], 'retry-interval': '5s', 'retry-max': 3 });
    const args = parseArgs(['agent', '--config-file', 'agent.json', '--retry-max', '4'], {}, () => file) as AgentArgs;
    expect(args).toMatchObject({ retryJoin: ['localhost:7946'], retryIntervalMs: 5_000, retryMax: 4 });
  });

  it('are in the usage', () => {
    expect(USAGE.agent).toMatch(/--retry-join HOST:PORT {3}a seed to join at start and retry/);
    expect(USAGE.agent).toMatch(/--retry-interval DUR {5}wait between retry-join attempts \(default 30s/);
    expect(USAGE.agent).toMatch(/--retry-max N {12}retry-join attempts in all/);
  });
});
