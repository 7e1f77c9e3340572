/** `swim agent --serf-rpc` and `--serf-rpc-auth`: checked into arguments, every error with its message. */
import { describe, expect, it } from 'vitest';
import type { AgentArgs } from '../src/commands/agent/flags.js';
import { AGENT_USAGE } from '../src/commands/agent/usage.js';
import { parseArgs } from '../src/commands/parse.js';
import { usageError } from './usage-error.js';

const BASE = ['agent', '--name', 'a', '--bind', '127.0.0.1:7946'];

describe('swim agent --serf-rpc', () => {
  it('is off by default; an address and a token when given', () => {
    expect(parseArgs(BASE) as AgentArgs).toMatchObject({ serfRpc: undefined, serfRpcAuth: undefined });
    expect(parseArgs([...BASE, '--serf-rpc', '127.0.0.1:7373']) as AgentArgs).toMatchObject({ serfRpc: { host: '127.0.0.1', port: 7373 }, serfRpcAuth: undefined });
    expect(parseArgs([...BASE, '--serf-rpc=0.0.0.0:0', '--serf-rpc-auth', 'tok']) as AgentArgs).toMatchObject({ serfRpc: { host: '0.0.0.0', port: 0 }, serfRpcAuth: 'tok' });
  });

  it('refuses a non-loopback address without a token, a token without an address, an empty token, a host name', () => {
    expect(usageError([...BASE, '--serf-rpc', '0.0.0.0:7373'])).toContain('--serf-rpc 0.0.0.0 is not a loopback address: set --serf-rpc-auth');
    expect(usageError([...BASE, '--serf-rpc-auth', 'tok'])).toContain('--serf-rpc-auth needs --serf-rpc HOST:PORT');
    expect(usageError([...BASE, '--serf-rpc', '127.0.0.1:7373', '--serf-rpc-auth=' + 'x'.repeat(1025)])).toContain('--serf-rpc-auth: expected a token of 1 to 1024 characters');
    expect(usageError([...BASE, '--serf-rpc', 'localhost:7373'])).toContain('--serf-rpc');
  });

  it('is in the usage text', () => {
    expect(AGENT_USAGE).toContain('--serf-rpc HOST:PORT');
    expect(AGENT_USAGE).toContain('--serf-rpc-auth TOKEN');
  });
});
