import { encodePacket as encodeSwim, type Message } from '@swim/core';
import { Member } from '@swim/runtime';
import { createUdpTransport, type UdpTransport } from '@swim/transport-udp';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_INCARNATION } from '../src/node/index.js';
import { decodeFrame, encodePacket, encodeRequest, OP_RESULT } from '../src/protocol/framing.js';
import { pool, waitFor } from './helpers.js';
import { rawJoin } from './raw.js';
import { messagesOf, receivedMessages, udpPeer } from './udp-peer.js';

const swim = (...messages: Message[]) => encodeSwim(messages).slice();
const config = { probeIntervalMs: 200, probeTimeoutMs: 150, gossipIntervalMs: 50, suspicionMult: 2, suspicionMaxTimeoutMult: 3 };

describe('gateway: what clients may gossip about incarnations and about the gateway member', () => {
  const made = pool();
  const udps: UdpTransport[] = [];
  const members: Member[] = [];
  afterEach(async () => {
    await Promise.all(members.splice(0).map((m) => m.close()));
    await made.closeAll();
    await Promise.all(udps.splice(0).map((u) => u.close()));
  });

  /** The gateway process as deployed: its own UDP member, handed to clients as the seed. */
  async function gatewayWithMember() {
    const transport = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
    const member = new Member({ name: 'gateway', transport, preset: 'local', config });
    members.push(member);
    const gateway = await made.gateway({ seed: member.address, seedName: 'gateway' });
    return { gateway, member };
  }

  /** Join `client` (bound to `name`) to the gateway's member with a push-pull, as a member's join does. */
  async function joinThroughGateway(client: Awaited<ReturnType<typeof rawJoin>>, name: string, seed: string, id: number): Promise<void> {
    const pushPull = swim({ type: 'push-pull', join: true, userState: new Uint8Array(0), members: [{ name, address: client.welcome.address, meta: new Uint8Array(0), incarnation: 1, state: 'alive' }] });
    client.ws.send(encodeRequest(id, 5_000, true, seed, pushPull));
    const answered = () => client.frames.some((f) => {
      const frame = decodeFrame(f);
      return typeof frame !== 'string' && frame.op === OP_RESULT && frame.id === id && frame.ok;
    });
    expect(await waitFor(answered)).toBe(true);
  }

  /** Ping the gateway's member from `client` and wait for its ack: everything sent before it was handled. */
  async function roundTrip(client: Awaited<ReturnType<typeof rawJoin>>, name: string, seed: string, seq: number): Promise<void> {
    client.ws.send(encodePacket(seed, swim({ type: 'ping', seq, target: 'gateway', sourceName: name, sourceAddress: client.welcome.address })));
    expect(await waitFor(() => receivedMessages(client.frames).some((m) => m.type === 'ack' && m.seq === seq))).toBe(true);
  }

  it("drops a client's suspect <gateway>@2^32-1: the gateway's member stays alive at its incarnation", async () => {
    const { gateway, member } = await gatewayWithMember();
    const mallory = await rawJoin(gateway.url, { name: 'mallory' });
    await joinThroughGateway(mallory, 'mallory', member.address, 1);
    const before = member.incarnation;
    expect(before).toBeLessThan(MAX_INCARNATION);

    mallory.ws.send(encodePacket(member.address, swim({ type: 'suspect', incarnation: MAX_INCARNATION, node: 'gateway', from: 'mallory' })));
    mallory.ws.send(encodePacket(member.address, swim({ type: 'dead', incarnation: MAX_INCARNATION, node: 'gateway', from: 'mallory' })));
    // At the maximum about anyone, in any message or push-pull entry: the whole packet or stream goes.
    mallory.ws.send(encodePacket(member.address, swim({ type: 'alive', incarnation: MAX_INCARNATION, node: 'mallory', address: mallory.welcome.address, meta: new Uint8Array(0) })));
    const entries = [{ name: 'gateway', address: member.address, meta: new Uint8Array(0), incarnation: MAX_INCARNATION, state: 'suspect' as const }];
    mallory.ws.send(encodeRequest(2, 5_000, true, member.address, swim({ type: 'push-pull', join: false, userState: new Uint8Array(0), members: entries })));
    expect(await waitFor(() => gateway.counters.maxIncarnationDropped === 4)).toBe(true);

    // A ping sent after them is answered: had they been delivered, the member would have handled them first.
    await roundTrip(mallory, 'mallory', member.address, 7);
    expect(member.incarnation).toBe(before);
    expect(member.member('gateway')?.state).toBe('alive');
    expect(mallory.ws.readyState).toBe(mallory.ws.OPEN);
  });

  it("takes accusations of the gateway's member out of what clients send to others, and relays the rest", async () => {
    const { gateway, member } = await gatewayWithMember();
    const other = await udpPeer(udps, (bytes) => bytes);
    const mallory = await rawJoin(gateway.url, { name: 'mallory' });
    const self = { sourceName: 'mallory', sourceAddress: mallory.welcome.address };
    const to = other.transport.address;
    // Piggybacked on a ping: the ping and the gossip about alice still go, the accusations do not.
    mallory.ws.send(encodePacket(to, swim(
      { type: 'ping', seq: 1, target: 'x', ...self },
      { type: 'suspect', incarnation: 3, node: 'gateway', from: 'mallory' },
      { type: 'dead', incarnation: 3, node: 'gateway', from: 'gateway' },
      { type: 'alive', incarnation: 4, node: 'gateway', address: '127.0.0.1:1', meta: new Uint8Array(0) },
      { type: 'suspect', incarnation: 1, node: 'alice', from: 'mallory' },
    )));
    // Nothing left once they are out: nothing is sent.
    mallory.ws.send(encodePacket(to, swim({ type: 'dead', incarnation: 1, node: 'gateway', from: 'mallory' })));
    mallory.ws.send(encodePacket(to, swim({ type: 'ping', seq: 2, target: 'x', ...self })));
    expect(await waitFor(() => other.packets.length === 2)).toBe(true);
    expect(other.packets.map((p) => messagesOf(p.bytes).map((m) => m.type))).toEqual([['ping', 'suspect'], ['ping']]);
    expect(messagesOf(other.packets[0]!.bytes)[1]).toMatchObject({ node: 'alice' });

    // A push-pull entry that is not "alive at its address" goes too; the others stay.
    const entry = (name: string, address: string, state: 'alive' | 'suspect' | 'dead' | 'left') => ({ name, address, meta: new Uint8Array(0), incarnation: 2, state });
    const members = [entry('gateway', member.address, 'suspect'), entry('mallory', mallory.welcome.address, 'alive'), entry('gateway', member.address, 'left'), entry('bob', '127.0.0.1:2', 'dead')];
    mallory.ws.send(encodeRequest(1, 5_000, true, to, swim({ type: 'push-pull', join: false, userState: new Uint8Array(0), members })));
    expect(await waitFor(() => other.streams.length === 1)).toBe(true);
    const [pushPull] = messagesOf(other.streams[0]!);
    expect(pushPull?.type === 'push-pull' && pushPull.members.map((m) => `${m.name} ${m.state}`)).toEqual(['mallory alive', 'bob dead']);
    expect(gateway.counters.gatewayAccusationsDropped).toBe(3 + 1 + 2);
    expect(gateway.counters.spoofDropped).toBe(0);
  });

  it('lets an accusation addressed to the gateway member itself through, so that it refutes', async () => {
    const { gateway, member } = await gatewayWithMember();
    const mallory = await rawJoin(gateway.url, { name: 'mallory' });
    await joinThroughGateway(mallory, 'mallory', member.address, 1);
    const before = member.incarnation;
    mallory.ws.send(encodePacket(member.address, swim({ type: 'suspect', incarnation: before, node: 'gateway', from: 'mallory' })));
    expect(await waitFor(() => member.incarnation > before)).toBe(true);
    expect(member.incarnation).toBeLessThan(MAX_INCARNATION);
    expect(gateway.counters.gatewayAccusationsDropped).toBe(0);
  });

  it('with verify off, still drops the maximum incarnation and accusations of the gateway member, and relays other bytes untouched', async () => {
    const other = await udpPeer(udps);
    const gateway = await made.gateway({ verify: false, seedName: 'gateway', seed: '127.0.0.1:1' });
    const client = await rawJoin(gateway.url, { name: 'c' });
    const to = other.transport.address;
    client.ws.send(encodePacket(to, swim({ type: 'suspect', incarnation: MAX_INCARNATION, node: 'x', from: 'c' })));
    client.ws.send(encodePacket(to, swim({ type: 'suspect', incarnation: 1, node: 'gateway', from: 'c' })));
    client.ws.send(encodePacket(to, new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x00])));
    client.ws.send(encodePacket(to, new Uint8Array([1, 2, 3])));
    expect(await waitFor(() => other.packets.length === 2)).toBe(true);
    expect(other.packets.map((p) => [...p.bytes])).toEqual([[0xff, 0xff, 0xff, 0xff, 0x00], [1, 2, 3]]);
    expect(gateway.counters).toMatchObject({ maxIncarnationDropped: 1, gatewayAccusationsDropped: 1 });
  });
});
