import { lookup } from 'node:dns/promises';
import { Member } from '@swim/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createUdpTransport, resolveAddress, type Lookup } from '../src/index.js';
import { freePort, waitFor } from './helpers.js';

/** A resolver that knows `records` and records what it was asked. */
function fakeLookup(records: Record<string, Array<{ address: string; family: number }>>): Lookup & { asked: string[] } {
  const asked: string[] = [];
  const fn = async (hostname: string) => {
    asked.push(hostname);
    const found = records[hostname];
    if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
  return Object.assign(fn, { asked });
}

describe('resolveAddress', () => {
  it('gives one ip:port per A and AAAA record, in the resolver order, IPv6 in brackets', async () => {
    const dns = fakeLookup({
      'seeds.example': [
        { address: '10.0.0.4', family: 4 },
        { address: 'fd00::4', family: 6 },
        { address: '10.0.0.5', family: 4 },
      ],
    });
    expect(await resolveAddress('seeds.example:7946', dns)).toEqual(['10.0.0.4:7946', '[fd00::4]:7946', '10.0.0.5:7946']);
  });

  it('shows an IPv4-mapped record as IPv4, once', async () => {
    const dns = fakeLookup({ h: [{ address: '10.0.0.4', family: 4 }, { address: '::ffff:10.0.0.4', family: 6 }] });
    expect(await resolveAddress('h:1', dns)).toEqual(['10.0.0.4:1']);
  });

  it('an IP literal resolves to itself without a lookup', async () => {
    const dns = fakeLookup({});
    expect(await resolveAddress('127.0.0.1:7946', dns)).toEqual(['127.0.0.1:7946']);
    expect(await resolveAddress('[::1]:7946', dns)).toEqual(['[::1]:7946']);
    expect(await resolveAddress('[::ffff:127.0.0.1]:7946', dns)).toEqual(['127.0.0.1:7946']);
    expect(dns.asked).toEqual([]);
  });

  it('a name that does not resolve rejects with the resolver error', async () => {
    await expect(resolveAddress('nowhere.example:7946', fakeLookup({}))).rejects.toThrow('getaddrinfo ENOTFOUND nowhere.example');
  });

  it.each(['localhost', 'localhost:0', 'localhost:70000', '::1:7946', '[localhost]:1', ''])('%j is not an address', async (address) => {
    await expect(resolveAddress(address, fakeLookup({ localhost: [{ address: '127.0.0.1', family: 4 }] }))).rejects.toThrow(RangeError);
  });
});

describe('UdpTransport.resolve, on this machine', () => {
  const members: Member[] = [];
  afterEach(async () => {
    await Promise.all(members.splice(0).map((m) => m.close()));
  });

  it('localhost gives 127.0.0.1, and ::1 when the machine has it', async () => {
    const transport = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
    try {
      const found = await transport.resolve('localhost:7946');
      expect(found).toContain('127.0.0.1:7946');
      // Whether localhost has an AAAA entry is the machine's business (/etc/hosts): follow getaddrinfo.
      const hasV6 = (await lookup('localhost', { all: true })).some((r) => r.address === '::1');
      expect(found.includes('[::1]:7946')).toBe(hasV6);
      expect(await transport.resolve('127.0.0.1:1')).toEqual(['127.0.0.1:1']);
      await expect(transport.resolve('no-such-host.invalid:7946')).rejects.toThrow(/no-such-host\.invalid/);
    } finally {
      await transport.close();
    }
  });

  it('binding a host name is refused with the rule: bind an IP, names are for join', async () => {
    await expect(createUdpTransport({ bind: { host: 'localhost', port: 0 } })).rejects.toThrow(
      'bind.host must be an IP literal, got localhost (bind needs an IP such as 127.0.0.1, ::1 or 0.0.0.0; host names are for join, which resolves them)',
    );
  });

  it('a member joins through localhost:PORT', async () => {
    const make = async (name: string) => {
      const m = new Member({ name, transport: await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } }) });
      members.push(m);
      return m;
    };
    const a = await make('a');
    const b = await make('b');
    const port = a.address.split(':')[1];
    const result = await b.join([`localhost:${port}`]);
    expect(result.contacted).toEqual([a.address]);
    // Every other address localhost stands for (::1, where there is one) was tried and failed: nothing listens there.
    expect(result.failed.every((f) => f.address === `[::1]:${port}`)).toBe(true);
    expect(await waitFor(() => a.member('b')?.state === 'alive' && b.member('a')?.state === 'alive')).toBe(true);
  });

  it('retries through a name until the seed binds its port', async () => {
    const port = await freePort('127.0.0.1');
    const b = new Member({ name: 'b', transport: await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } }) });
    members.push(b);
    let retries = 0;
    const joining = b.join([`localhost:${port}`], { retry: { intervalMs: 100, max: 0, onRetry: () => retries++ } });
    expect(await waitFor(() => retries >= 2)).toBe(true);
    const a = new Member({ name: 'a', transport: await createUdpTransport({ bind: { host: '127.0.0.1', port } }) });
    members.push(a);
    expect((await joining).contacted).toEqual([`127.0.0.1:${port}`]);
    expect(await waitFor(() => a.member('b')?.state === 'alive')).toBe(true);
  });
});
