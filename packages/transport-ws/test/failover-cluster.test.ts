import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePacket as encodeSwim, type AliveMessage } from '@swim/core';
import { connectWsTransport, createWsGateway, WS_CLOSE, type WsGateway, type WsTransport } from '../src/node/index.js';
import { credentialKeys } from '../src/node/credential.js';
import { encodePacket } from '../src/protocol/framing.js';
import { waitFor } from './helpers.js';
import { rawJoin } from './raw.js';
import { receivedMessages } from './udp-peer.js';
import { describeGatewayFailover } from './failover-suite.js';

const SECRET = 'failover-test-cluster-secret';

describeGatewayFailover(Number(process.env['SWIM_FAILOVER_GATEWAYS'] ?? 2), Number(process.env['SWIM_FAILOVER_TABS'] ?? 50));

describe('nobody moves a member without the token and its credential (real sockets, one cluster, two gateways)', () => {
  const TOKEN = 'the-join-token';
  /** Fast loopback profile (as cluster.test.ts). */
  const config = { probeIntervalMs: 200, probeTimeoutMs: 150, gossipIntervalMs: 50, suspicionMult: 2, suspicionMaxTimeoutMult: 3, pushPullIntervalMs: 3_000 };
  const members: Member[] = [];
  const gateways: WsGateway[] = [];
  const conflicts: string[] = [];
  const updates: string[] = [];
  let udp: Member[];
  let victim: Member;
  let victimTransport: WsTransport;
  let g1: WsGateway;
  let g2: WsGateway;

  beforeAll(async () => {
    const udpMember = async (name: string) => {
      const m = new Member({ name, transport: await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } }), preset: 'local', config });
      members.push(m);
      return m;
    };
    const gatewayMember = await udpMember('gateway');
    udp = [gatewayMember, await udpMember('udp-1'), await udpMember('udp-2')];
    for (const m of udp.slice(1)) await m.join([gatewayMember.address]);
    for (let i = 0; i < 2; i++) {
      gateways.push(await createWsGateway({ seed: gatewayMember.address, seedName: 'gateway', token: TOKEN, credentialSecret: SECRET, reconnectGraceMs: 60_000 }));
    }
    [g1, g2] = gateways as [WsGateway, WsGateway];
    victimTransport = await connectWsTransport({ url: [g1.url, g2.url], name: 'victim', token: TOKEN });
    victim = new Member({ name: 'victim', transport: victimTransport, preset: 'local', config });
    members.push(victim);
    await victim.join([victimTransport.seed!]);
    for (const m of udp) {
      m.on('conflict', (c) => conflicts.push(`${m.name}: ${c.name} ${c.existingAddress} vs ${c.otherAddress}`));
      m.on('update', (c) => c.member.name === 'victim' && updates.push(`${m.name}: victim at ${c.member.address}`));
    }
    expect(await waitFor(() => udp.every((m) => m.member('victim')?.state === 'alive'), 15_000)).toBe(true);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(members.map((m) => m.close()));
    await Promise.all(gateways.map((g) => g.close()));
  });

  const victimEverywhere = () => udp.map((m) => `${m.name}: ${m.member('victim')?.state}@${m.member('victim')?.address}`).join(', ');
  const staysPut = () => udp.every((m) => m.member('victim')?.state === 'alive' && m.member('victim')?.address === victimTransport.address);

  it('without the token: refused at hello (4001), even with the right credential', async () => {
    const credential = credentialKeys({ credentialSecret: SECRET }).sign('victim');
    await expect(rawJoin(g2.url, { name: 'victim', credential, from: victimTransport.address })).rejects.toThrow(`closed ${WS_CLOSE.unauthorized} a join token is required`);
    await expect(rawJoin(g2.url, { name: 'victim', token: 'guess', credential, from: victimTransport.address })).rejects.toThrow(`closed ${WS_CLOSE.unauthorized} invalid join token`);
    expect(g2.counters).toMatchObject({ refusedToken: 2, moved: 0 });
    expect(g2.sessions()).toEqual([]);
    expect(staysPut(), victimEverywhere()).toBe(true);
  });

  it('with the token but without its credential: refused (4010); forged moves from a member of its own are dropped or taken out; the member stays', async () => {
    const from = victimTransport.address;
    await expect(rawJoin(g2.url, { name: 'victim', token: TOKEN, from })).rejects.toThrow(`closed ${WS_CLOSE.moveRefused}`);
    await expect(rawJoin(g2.url, { name: 'victim', token: TOKEN, from, credential: credentialKeys({ credentialSecret: 'not-the-cluster-secret' }).sign('victim') })).rejects.toThrow(
      `closed ${WS_CLOSE.moveRefused}`,
    );
    expect(g2.counters).toMatchObject({ refusedMove: 2, moved: 0, relaysOpened: 0 });

    // A member of its own (mallory, with the token) gossips that the victim moved.
    const mallory = await rawJoin(g2.url, { name: 'mallory', token: TOKEN });
    const incarnation = victim.member('victim')!.incarnation + 5;
    const range = { min: 1, max: 2 };
    const forged = (node: string, address: string): AliveMessage => ({ type: 'alive', incarnation, node, address, meta: new Uint8Array(0), protocol: range, movedFrom: from });
    const send = (message: AliveMessage) => mallory.ws.send(encodePacket(udp[1]!.address, encodeSwim([message]).slice()));
    // Its own name "moved from" the victim's address: dropped whole (forged-move).
    send(forged('mallory', mallory.welcome.address));
    // The victim moved to mallory's relay: dropped (alive-claim); elsewhere: a move this gateway
    // cannot prove, taken out of the packet, which had nothing else and is not sent.
    send(forged('victim', mallory.welcome.address));
    send(forged('victim', '127.0.0.1:9'));
    expect(await waitFor(() => g2.counters.spoof['forged-move'] === 1 && g2.counters.spoof['alive-claim'] === 1 && g2.counters.foreignMovesStripped === 1)).toBe(true);
    // Then a ping of mallory's own along the same path: once udp-1's ack is back, anything sent before it was handled there.
    mallory.ws.send(encodePacket(udp[1]!.address, encodeSwim([{ type: 'ping', seq: 424_242, target: 'udp-1', sourceName: 'mallory', sourceAddress: mallory.welcome.address }]).slice()));
    expect(await waitFor(() => receivedMessages(mallory.frames).some((m) => m.type === 'ack' && m.seq === 424_242), 10_000), 'no ack from udp-1').toBe(true);
    expect(conflicts.filter((c) => c.includes('victim')), 'nobody heard of the forged move').toEqual([]);
    expect(staysPut(), victimEverywhere()).toBe(true);
    expect(updates).toEqual([]);
    mallory.ws.close();
  });
});
