import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectWsTransport, createWsGateway, type WebSocketConstructor, type WsGateway, type WsTransport } from '../src/node/index.js';
import { waitFor } from './helpers.js';

/**
 * A fast profile for loopback. With up to 10 members the minimum suspicion timeout is
 * suspicionMult × probeIntervalMs (400 ms) and the maximum suspicionMaxTimeoutMult times that.
 * Push-pull runs 5 times faster than the local preset's 15 s, like the probe interval: in 6 members
 * an update is gossiped only twice per holder (retransmitMult 2), so on a loaded machine a member
 * can miss a join or a leave, and anti-entropy is what repairs that (memberlist pushPull). With the
 * preset's 15 s it could not within these tests' waits.
 */
const config = { probeIntervalMs: 200, probeTimeoutMs: 150, gossipIntervalMs: 50, suspicionMult: 2, suspicionMaxTimeoutMult: 3, pushPullIntervalMs: 3_000 };
const CLUSTER_SIZE = 6;

/**
 * How long until every member has seen a silent member dead: each member probes every other
 * within CLUSTER_SIZE probe intervals (round robin; twice, for a shuffle that put it last), then
 * the longest suspicion, then gossip. The 5 s margin is for a busy 2-core machine.
 */
const DEAD_WITHIN_MS =
  2 * CLUSTER_SIZE * (config.probeIntervalMs + config.probeTimeoutMs) + config.suspicionMult * config.probeIntervalMs * config.suspicionMaxTimeoutMult + 5_000;

/** The `ws` WebSocket, recording every socket it opens so a test can cut one. */
function recordingWebSocket(): { ctor: WebSocketConstructor; sockets: WebSocket[] } {
  const sockets: WebSocket[] = [];
  class Recording extends WebSocket {
    constructor(url: string) {
      super(url);
      sockets.push(this);
    }
  }
  return { ctor: Recording as unknown as WebSocketConstructor, sockets };
}

describe('a mixed cluster: 3 UDP members, a gateway member, 2 WebSocket members', () => {
  const members: Member[] = [];
  let gateway: WsGateway;
  let gatewayMember: Member;
  let udp: Member[];
  let w1: Member;
  let w2: Member;
  let t2: WsTransport;
  const w2Sockets = recordingWebSocket();

  const udpMember = async (name: string): Promise<Member> => {
    const transport = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
    const m = new Member({ name, transport, preset: 'local', config });
    members.push(m);
    return m;
  };

  beforeAll(async () => {
    gatewayMember = await udpMember('gateway');
    gateway = await createWsGateway({ seed: gatewayMember.address, reconnectGraceMs: 10_000 });
    udp = [await udpMember('udp-1'), await udpMember('udp-2'), await udpMember('udp-3')];
    for (const m of udp) await m.join([gatewayMember.address]);
    const t1 = await connectWsTransport({ url: gateway.url, name: 'browser-1' });
    t2 = await connectWsTransport({ url: gateway.url, name: 'browser-2', WebSocket: w2Sockets.ctor, reconnect: { initialDelayMs: 100, maxDelayMs: 1_000 } });
    expect(t1.seed).toBe(gatewayMember.address);
    w1 = new Member({ name: 'browser-1', transport: t1, preset: 'local', config });
    w2 = new Member({ name: 'browser-2', transport: t2, preset: 'local', config });
    members.push(w1, w2);
    await w1.join([t1.seed!]);
    await w2.join([t2.seed!]);
  });

  afterAll(async () => {
    await Promise.all(members.map((m) => m.close()));
    await gateway.close();
  });

  const everyone = () => [gatewayMember, ...udp, w1, w2];
  const seesAlive = (observers: Member[], names: string[]) => observers.every((o) => names.every((n) => o.member(n)?.state === 'alive'));
  /** What each observer holds about `names`, for a failure message: `udp-1: browser-1 suspect@2, ...`. */
  const views = (observers: Member[], names: string[]) =>
    observers
      .map((o) => `${o.name}: ${names.map((n) => { const r = o.member(n); return `${n} ${r ? `${r.state}@${r.incarnation}` : 'unknown'}`; }).join(', ')}`)
      .join('; ');

  it('converges: every member sees every other alive', async () => {
    const names = everyone().map((m) => m.name);
    expect(await waitFor(() => seesAlive(everyone(), names), 15_000), views(everyone(), names)).toBe(true);
    // The browser members' addresses are their relays at the gateway.
    const relays = new Map(gateway.sessions().map((s) => [s.name, s.address]));
    expect(udp[0]!.member('browser-1')?.address).toBe(relays.get('browser-1'));
    expect(w1.member('udp-2')?.address).toBe(udp[1]!.address);
    expect(gateway.counters.spoofDropped).toBe(0);
  });

  it('a WebSocket member that reconnects within the grace keeps its address and stays alive', async () => {
    const before = t2.address;
    const states: string[] = [];
    t2.onStateChange((state) => states.push(state));
    w2Sockets.sockets.at(-1)!.terminate(); // the connection drops without a close handshake
    expect(await waitFor(() => t2.state === 'reconnecting', 5_000)).toBe(true);
    expect(await waitFor(() => t2.state === 'open', 10_000)).toBe(true);
    expect(states).toEqual(['reconnecting', 'open']);
    expect(t2.address).toBe(before);
    expect(gateway.counters.resumed).toBe(1);
    expect(t2.counters.connects).toBe(2);
    // Still (or again, after refuting a suspicion) alive everywhere.
    expect(await waitFor(() => seesAlive([gatewayMember, ...udp, w1], ['browser-2']), 10_000), views([gatewayMember, ...udp, w1], ['browser-2'])).toBe(true);
  });

  it(`a WebSocket member that closes without leaving is seen dead by the UDP members within ${DEAD_WITHIN_MS} ms`, async () => {
    await w1.close();
    const dead = () => [gatewayMember, ...udp].every((m) => m.member('browser-1')?.state === 'dead');
    expect(await waitFor(dead, DEAD_WITHIN_MS), views([gatewayMember, ...udp], ['browser-1'])).toBe(true);
    // Clean close: the relay went at once.
    expect(gateway.sessions().map((s) => s.name)).not.toContain('browser-1');
  });

  it('a WebSocket member that leaves is seen left', async () => {
    const result = await w2.leave({ timeoutMs: 5_000 });
    expect(result.spread).toBe(true);
    await w2.close();
    expect(await waitFor(() => [gatewayMember, ...udp].every((m) => m.member('browser-2')?.state === 'left'), 10_000), views([gatewayMember, ...udp], ['browser-2'])).toBe(true);
  });
});
