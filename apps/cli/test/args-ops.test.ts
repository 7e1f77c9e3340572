/** Flags of the operator's commands: `swim members` filters, `swim monitor`, `swim tags`, `swim agent --config-file`. */
import { describe, expect, it } from 'vitest';
import type { AgentArgs } from '../src/commands/agent/flags.js';
import { parseArgs, USAGE } from '../src/commands/parse.js';
import { UsageError } from '../src/flags/usage-error.js';

const RPC = { host: '127.0.0.1', port: 7947 };

function usageError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('swim members filters, monitor, tags', () => {
  it('members --tag (every one must match) and --status (any of them)', () => {
    expect(parseArgs(['members', '--tag', 'role=web', '--tag=dc=eu', '--status', 'alive,suspect', '--status', 'left', '--json'])).toEqual({
      command: 'members',
      rpc: RPC,
      rpcToken: undefined,
      json: true,
      tags: { role: 'web', dc: 'eu' },
      statuses: ['alive', 'suspect', 'left'],
    });
    // A value may hold '=': only the first one splits.
    expect(parseArgs(['members', '--tag', 'expr=a=b'])).toMatchObject({ tags: { expr: 'a=b' } });
  });

  it('monitor: every kind by default, --kind lists or repeats, --json', () => {
    expect(parseArgs(['monitor'])).toEqual({
      command: 'monitor',
      rpc: RPC,
      rpcToken: undefined,
      json: false,
      kinds: ['join', 'update', 'suspect', 'alive', 'dead', 'left', 'log'],
    });
    expect(parseArgs(['monitor', '--kind', 'dead,join', '--kind', 'log', '--json'])).toMatchObject({ json: true, kinds: ['join', 'dead', 'log'] });
  });

  it('tags --set and --delete', () => {
    expect(parseArgs(['tags', '--set', 'role=db', '--set', 'dc=eu', '--delete', 'old', '--rpc', '127.0.0.1:9000'])).toEqual({
      command: 'tags',
      rpc: { host: '127.0.0.1', port: 9000 },
      rpcToken: undefined,
      json: false,
      set: { role: 'db', dc: 'eu' },
      delete: ['old'],
    });
    expect(parseArgs(['tags', '--delete', 'role'])).toMatchObject({ set: {}, delete: ['role'] });
  });

  it('swim with no command is a usage error (exit 2); asking for help is not', () => {
    expect(usageError(() => parseArgs([]))).toBe('missing command');
    expect(parseArgs(['--help'])).toEqual({ command: 'help', topic: undefined });
    expect(parseArgs(['help', 'monitor'])).toEqual({ command: 'help', topic: 'monitor' });
  });

  it('swim --version, -v and version ask for the version and take nothing else', () => {
    for (const spelling of ['--version', '-v', 'version']) expect(parseArgs([spelling])).toEqual({ command: 'version' });
    expect(usageError(() => parseArgs(['--version', 'agent']))).toBe('swim --version takes no arguments (got agent)');
  });
});

describe('swim agent --config-file', () => {
  const files = new Map<string, string>();
  const read = (path: string) => {
    const text = files.get(path);
    if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
    return text;
  };
  const agentFrom = (file: unknown, ...flags: string[]) => {
    files.set('/etc/swim.json', typeof file === 'string' ? file : JSON.stringify(file));
    return parseArgs(['agent', '--config-file', '/etc/swim.json', ...flags], {}, read) as AgentArgs;
  };

  it('takes snapshot and rejoin-after-leave', () => {
    expect(agentFrom({ name: 'n1', bind: '127.0.0.1:7946', snapshot: '/var/lib/swim/snapshot.jsonl', 'rejoin-after-leave': true })).toMatchObject({
      snapshot: '/var/lib/swim/snapshot.jsonl',
      rejoinAfterLeave: true,
    });
  });

  it('takes every flag as a key, typed as JSON: strings, numbers, booleans, arrays and key=value objects', () => {
    const args = agentFrom({
      name: 'n1',
      bind: '127.0.0.1:7946',
      join: ['10.0.0.1:7946', '10.0.0.2:7946'],
      tag: { role: 'web', dc: 'eu' },
      config: ['probeIntervalMs=2000'],
      transport: { maxBurst: 64 },
      'leave-timeout': 3000,
      log: 'json',
      rpc: '127.0.0.1:9001',
      'rpc-token': 'from-the-file-0123456789',
    });
    expect(args).toMatchObject({
      name: 'n1',
      bind: { host: '127.0.0.1', port: 7946 },
      join: ['10.0.0.1:7946', '10.0.0.2:7946'],
      tags: { role: 'web', dc: 'eu' },
      transport: { maxBurst: 64 },
      leaveTimeoutMs: 3000,
      log: 'json',
      rpc: { host: '127.0.0.1', port: 9001 },
      rpcToken: 'from-the-file-0123456789',
    });
    expect(args.config.probeIntervalMs).toBe(2000);
  });

  it('a flag on the command line wins over the file (a repeatable flag with its whole list)', () => {
    const args = agentFrom(
      { name: 'from-file', bind: '127.0.0.1:7946', tag: { role: 'web', dc: 'eu' }, join: ['10.0.0.1:7946'], log: 'json' },
      '--name',
      'from-flag',
      '--tag',
      'role=db',
    );
    expect(args).toMatchObject({ name: 'from-flag', tags: { role: 'db' }, join: ['10.0.0.1:7946'], log: 'json', bind: { host: '127.0.0.1', port: 7946 } });
    // A single value for a repeatable flag is a list of one.
    expect(agentFrom({ name: 'n1', bind: '127.0.0.1:7946', join: '10.0.0.9:7946' }).join).toEqual(['10.0.0.9:7946']);
    // Values the file gives are checked as the flags' are.
    expect(usageError(() => agentFrom({ name: 'n1', bind: 'localhost:7946' }))).toBe(
      "--bind 'localhost:7946': 'localhost' is not an IP address: bind needs an IP (127.0.0.1, ::1, 0.0.0.0 or ::); host names are for --join, --retry-join and swim join, which resolve them",
    );
  });

  it('an unknown key is an error listing the valid keys, every problem at once', () => {
    const message = usageError(() => agentFrom({ nmae: 'n1', bind: ['127.0.0.1:7946'], tag: { role: ['web'] }, join: [''], 'config-file': 'x.json' }));
    expect(message).toMatch(/^--config-file '\/etc\/swim\.json': unknown keys "nmae", "config-file" \(valid keys: name, bind, advertise, join, .*, verify-outgoing.*\); /);
    expect(message).toContain('"bind" must be a string, number or boolean, got an array');
    expect(message).toContain('"tag" maps "role" to an array: values must be strings, numbers or booleans');
    expect(message).toContain('"join" item 0 must be a non-empty string, number or boolean, got an empty string');
    // The valid keys are the flag table's: every flag `swim agent --help` documents but --config-file itself.
    const valid = /valid keys: ([^)]*)\)/.exec(message)![1]!.split(', ');
    const documented = [...USAGE.agent.matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1]!);
    expect(valid.sort()).toEqual(documented.filter((flag) => flag !== 'config-file').sort());
  });

  it('a file that cannot be read or is not a JSON object is a usage error', () => {
    expect(usageError(() => parseArgs(['agent', '--config-file', '/nowhere.json'], {}, read))).toBe(
      "--config-file '/nowhere.json': cannot read it (ENOENT: no such file or directory, open '/nowhere.json')",
    );
    expect(usageError(() => agentFrom('{"name": "n1",'))).toMatch(/^--config-file '\/etc\/swim\.json': not valid JSON \(/);
    expect(usageError(() => agentFrom(['--name', 'n1']))).toMatch(/expected a JSON object whose keys are flags/);
    expect(usageError(() => agentFrom({ name: 'n1', bind: '127.0.0.1:1', log: null }))).toMatch(/"log" must be a string, number or boolean, got null/);
  });
});
