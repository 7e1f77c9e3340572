import type { UdpTransport } from '@swim/transport-udp';
import { afterEach, describe, expect, it } from 'vitest';
import { WS_CLOSE } from '../src/node/index.js';
import { addressKey } from '../src/node/admission.js';
import { pool, waitFor } from './helpers.js';
import { rawConnect, rawJoin, type RawClient } from './raw.js';
import { udpPeer, type UdpPeer } from './udp-peer.js';

describe('gateway admission: session caps and the join deadline', () => {
  const made = pool();
  const udps: UdpTransport[] = [];
  const raws: RawClient[] = [];
  afterEach(async () => {
    for (const r of raws.splice(0)) r.ws.terminate();
    await made.closeAll();
    await Promise.all(udps.splice(0).map((u) => u.close()));
  });
  const keep = <T extends RawClient>(client: T): T => (raws.push(client), client);

  /** Make `client`'s member count as joined: a packet from the cluster (`peer`, or a new one) reaches its relay. */
  async function joinedByPacket(client: RawClient & { welcome: { address: string } }, peer?: UdpPeer): Promise<void> {
    (peer ?? (await udpPeer(udps))).transport.sendPacket(client.welcome.address, new Uint8Array([1]));
    expect(await waitFor(() => client.frames.length > 0)).toBe(true);
  }

  it('50 connections from one address with maxSessionsPerIp 16: 34 refused at the upgrade with 429, allocating nothing', async () => {
    const gateway = await made.gateway({ maxSessionsPerIp: 16 });
    const attempts = await Promise.allSettled(Array.from({ length: 50 }, () => rawConnect(gateway.url)));
    const open = attempts.flatMap((a) => (a.status === 'fulfilled' ? [keep(a.value)] : []));
    const refused = attempts.flatMap((a) => (a.status === 'rejected' ? [String(a.reason)] : []));
    expect(open).toHaveLength(16);
    expect(refused).toHaveLength(34);
    expect(refused.every((r) => r.includes('429'))).toBe(true);
    expect(gateway.counters).toMatchObject({ refusedIpLimit: 34, connections: 16, openConnections: 16, relaysOpened: 0 });
    // A slot comes back when its connection closes.
    open[0]!.ws.terminate();
    expect(await waitFor(() => gateway.counters.openConnections === 15)).toBe(true);
    keep(await rawConnect(gateway.url));
    await expect(rawConnect(gateway.url)).rejects.toThrow(/429/);
    expect(gateway.counters.refusedIpLimit).toBe(35);
  });

  it('maxSessions caps connections in total (503), whatever their address; clientAddress says what an address is', async () => {
    const gateway = await made.gateway({ maxSessions: 3, maxSessionsPerIp: 2, clientAddress: (request) => String(request.headers['x-client']) });
    const from = (ip: string) => rawConnect(gateway.url, { 'x-client': ip });
    keep(await from('10.0.0.1'));
    keep(await from('10.0.0.1'));
    await expect(from('10.0.0.1')).rejects.toThrow(/429/);
    keep(await from('10.0.0.2'));
    await expect(from('10.0.0.3')).rejects.toThrow(/503/);
    expect(gateway.counters).toMatchObject({ refusedIpLimit: 1, refusedCapacity: 1, openConnections: 3 });
  });

  it('relays held for a reconnect count too: a new name from a full address is refused with 4008; a resume is not', async () => {
    const gateway = await made.gateway({ maxSessionsPerIp: 2, reconnectGraceMs: 60_000 });
    const a = keep(await rawJoin(gateway.url, { name: 'a' }));
    const b = keep(await rawJoin(gateway.url, { name: 'b' }));
    await joinedByPacket(a);
    await joinedByPacket(b);
    a.ws.terminate();
    b.ws.terminate();
    expect(await waitFor(() => gateway.sessions().filter((s) => !s.connected).length === 2)).toBe(true);
    await expect(rawJoin(gateway.url, { name: 'c' })).rejects.toThrow(/4008/);
    expect(gateway.counters.refusedSessions).toBe(1);
    const back = keep(await rawJoin(gateway.url, { name: 'a', resume: a.welcome.resume }));
    expect(back.welcome.address).toBe(a.welcome.address);
  });

  it('closes a member that never joins with 4009 after joinTimeoutMs and releases its relay; a joined one stays', async () => {
    // Long enough for `joined` to be reached by a packet first on a busy machine.
    const gateway = await made.gateway({ joinTimeoutMs: 1_500 });
    const peer = await udpPeer(udps);
    const joined = keep(await rawJoin(gateway.url, { name: 'joined' }));
    await joinedByPacket(joined, peer);
    const idle = keep(await rawJoin(gateway.url, { name: 'idle' }));
    expect(await idle.closed).toEqual({ code: WS_CLOSE.joinTimeout, reason: 'did not join the cluster in time' });
    expect(gateway.counters).toMatchObject({ joinTimeouts: 1, relaysClosed: 1 });
    expect(gateway.sessions().map((s) => [s.name, s.joined])).toEqual([['joined', true]]);
    // `idle` connected after `joined`, so `joined`'s deadline had passed too.
    expect(joined.ws.readyState).toBe(joined.ws.OPEN);
  });

  it('a member that never joined gets no reconnect grace past its join deadline', async () => {
    const gateway = await made.gateway({ joinTimeoutMs: 400, reconnectGraceMs: 60_000 });
    const gone = await rawJoin(gateway.url, { name: 'gone' });
    gone.ws.terminate();
    expect(await waitFor(() => gateway.counters.joinTimeouts === 1)).toBe(true);
    expect(gateway.sessions()).toEqual([]);
    expect(gateway.counters.graceExpired).toBe(0);
    await expect(rawJoin(gateway.url, { name: 'gone', resume: gone.welcome.resume })).rejects.toThrow(/4003/);
  });

  it('the client treats 4009 as final', async () => {
    const gateway = await made.gateway({ joinTimeoutMs: 300 });
    const client = await made.client(gateway, { reconnect: { initialDelayMs: 10, maxDelayMs: 20 } });
    expect(await waitFor(() => client.state === 'closed')).toBe(true);
    expect(client.closeCause?.code).toBe(WS_CLOSE.joinTimeout);
    expect(client.counters.reconnectAttempts).toBe(0);
  });

  it('counts IPv6 clients by /64 and IPv4-mapped ones as IPv4', () => {
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('proxy-said-this')).toBe('proxy-said-this');
  });
});
