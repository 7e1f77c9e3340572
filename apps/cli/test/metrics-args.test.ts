// `swim agent --metrics HOST:PORT`: parsed as an IP literal and a port (0 = any free one), absent by
// default, in the usage, and accepted as a --config-file key like every agent flag.
import { describe, expect, it } from 'vitest';
import type { AgentArgs } from '../src/commands/agent/flags.js';
import { parseArgs, USAGE } from '../src/commands/parse.js';
import { UsageError } from '../src/flags/usage-error.js';

const agent = (...extra: string[]) => ['agent', '--name', 'n1', '--bind', '127.0.0.1:7946', ...extra];

function usageError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('no usage error');
}

describe('swim agent --metrics', () => {
  it('is off unless given', () => {
    expect((parseArgs(agent()) as AgentArgs).metrics).toBeUndefined();
  });

  it('takes HOST:PORT with an IP literal, IPv6 in brackets, port 0 for any free port', () => {
    expect((parseArgs(agent('--metrics', '0.0.0.0:9464')) as AgentArgs).metrics).toEqual({ host: '0.0.0.0', port: 9464 });
    expect((parseArgs(agent('--metrics=[::1]:0')) as AgentArgs).metrics).toEqual({ host: '::1', port: 0 });
  });

  it.each([
    [['--metrics', 'localhost:9464'], "--metrics 'localhost:9464': 'localhost' is not an IP address"],
    [['--metrics', '127.0.0.1'], "--metrics '127.0.0.1': expected HOST:PORT"],
    [['--metrics', '127.0.0.1:65536'], "--metrics '127.0.0.1:65536': port 65536 is out of range (0-65535)"],
    [['--metrics'], '--metrics needs a value'],
    [['--metrics', '127.0.0.1:1', '--metrics', '127.0.0.1:2'], '--metrics given twice'],
  ])('refuses %j', (flags, message) => {
    expect(usageError(() => parseArgs(agent(...flags)))).toBe(message);
  });

  it('is in the usage and a --config-file key', () => {
    expect(USAGE.agent).toMatch(/--metrics HOST:PORT +serve Prometheus metrics/);
    const file = JSON.stringify({ name: 'n1', bind: '127.0.0.1:7946', metrics: '127.0.0.1:9464' });
    const args = parseArgs(['agent', '--config-file', '/etc/swim.json'], {}, () => file) as AgentArgs;
    expect(args.metrics).toEqual({ host: '127.0.0.1', port: 9464 });
  });
});
