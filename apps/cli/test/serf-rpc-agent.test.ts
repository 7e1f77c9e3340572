/** Parts of the agent's Serf RPC backend (src/agent/serf-rpc/) that need no running agent. */
import { describe, expect, it } from 'vitest';
import { withDefaultPort } from '../src/agent/serf-rpc/backend.js';
import { levelOfEvent, LogRing } from '../src/agent/serf-rpc/log-ring.js';
import { serfKeyError } from '../src/agent/serf-rpc/serf-key-command.js';

describe('the agent behind Serf RPC', () => {
  it('join: an address without a port gets the agent\'s own port (memberlist Join)', () => {
    expect(withDefaultPort('10.0.0.1', '127.0.0.1:7946')).toBe('10.0.0.1:7946');
    expect(withDefaultPort('10.0.0.1:8000', '127.0.0.1:7946')).toBe('10.0.0.1:8000');
    expect(withDefaultPort('::1', '[::1]:7946')).toBe('[::1]:7946');
    expect(withDefaultPort('[::1]', '[::1]:7946')).toBe('[::1]:7946');
    expect(withDefaultPort('[::1]:9', '[::1]:7946')).toBe('[::1]:9');
    expect(withDefaultPort('seed.example', '127.0.0.1:7946')).toBe('seed.example:7946');
  });

  it('key commands fail as Serf\'s KeyManager says: failures first, then missing answers', () => {
    expect(serfKeyError({ numErr: 1, numResp: 3, numNodes: 3 })).toBe('1/3 nodes reported failure');
    expect(serfKeyError({ numErr: 0, numResp: 2, numNodes: 3 })).toBe('2/3 nodes reported success');
    expect(serfKeyError({ numErr: 0, numResp: 3, numNodes: 3 })).toBe('');
  });

  it('monitor lines: Serf\'s format and levels, the last 512 kept', () => {
    const ring = new LogRing();
    for (let i = 0; i < 600; i++) ring.add('INFO', new Date(Date.UTC(2026, 11, 3, 10, 4, 5)), `line ${i}`);
    const seen: string[] = [];
    const stop = ring.subscribe((line) => seen.push(line.text));
    expect(seen).toHaveLength(512);
    expect(seen[0]).toBe('2026/12/03 10:04:05 [INFO] swim: line 88');
    ring.add('ERR', new Date(Date.UTC(2026, 0, 1)), 'boom');
    stop();
    ring.add('INFO', new Date(), 'after stop');
    expect(seen.at(-1)).toBe('2026/01/01 00:00:00 [ERR] swim: boom');
    expect([levelOfEvent('error'), levelOfEvent('join-failed'), levelOfEvent('dead'), levelOfEvent('join')]).toEqual(['ERR', 'WARN', 'WARN', 'INFO']);
  });
});
