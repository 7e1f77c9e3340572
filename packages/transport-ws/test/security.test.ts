import { encodePacket as encodeSwim, type Message } from '@swim/core';
import type { TransportHandlers } from '@swim/runtime';
import { createUdpTransport, type UdpTransport } from '@swim/transport-udp';
import { afterEach, describe, expect, it } from 'vitest';
import { WS_CLOSE, WsConnectError, type WsGatewayOptions } from '../src/node/index.js';
import { encodePacket, encodeRequest, encodeReply } from '../src/protocol/framing.js';
import { pool, waitFor } from './helpers.js';
import { rawConnect, rawJoin } from './raw.js';
import { messagesOf } from './udp-peer.js';

const swim = (...messages: Message[]) => encodeSwim(messages);

describe('gateway security', () => {
  const made = pool();
  const udps: UdpTransport[] = [];
  afterEach(async () => {
    await made.closeAll();
    await Promise.all(udps.splice(0).map((u) => u.close()));
  });

  /** A UDP endpoint recording the packets and streams it receives. */
  async function listener() {
    const transport = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
    udps.push(transport);
    const packets: Array<{ from: string; bytes: Uint8Array }> = [];
    const streams: Uint8Array[] = [];
    const handlers: TransportHandlers = {
      packet: (from, bytes) => packets.push({ from, bytes }),
      stream: (_from, bytes, reply) => {
        streams.push(bytes);
        reply(undefined);
      },
    };
    transport.listen(handlers);
    return { transport, packets, streams };
  }

  const gateway = (options: WsGatewayOptions = {}) => made.gateway(options);

  it('refuses a missing or wrong token with 4001, and accepts the right one', async () => {
    const g = await gateway({ token: 's3cret' });
    const missing = made.client(g);
    await expect(missing).rejects.toBeInstanceOf(WsConnectError);
    await expect(missing).rejects.toMatchObject({ code: WS_CLOSE.unauthorized, reason: 'a join token is required' });
    await expect(made.client(g, { token: 'guess' })).rejects.toMatchObject({ code: WS_CLOSE.unauthorized, reason: 'invalid join token' });
    expect(g.counters.refusedToken).toBe(2);
    const ok = await made.client(g, { token: 's3cret' });
    expect(ok.state).toBe('open');
    expect(g.counters.relaysOpened).toBe(1);
  });

  it('refuses a second connection for a live name with 4002, and a name held for a reconnect without its secret', async () => {
    // alice never joins a cluster here: her join deadline must not end the relay during the test.
    const g = await gateway({ reconnectGraceMs: 60_000, joinTimeoutMs: 60_000 });
    const first = await rawJoin(g.url, { name: 'alice' });
    await expect(made.client(g, { name: 'alice' })).rejects.toMatchObject({ code: WS_CLOSE.nameTaken, reason: 'name is in use' });
    await expect(rawJoin(g.url, { name: 'alice', resume: 'not-the-secret' })).rejects.toThrow(/4002/);
    // The connection drops: the relay waits for alice, and only her secret gets it back.
    first.ws.terminate();
    expect(await waitFor(() => g.sessions().some((s) => s.name === 'alice' && !s.connected))).toBe(true);
    await expect(rawJoin(g.url, { name: 'alice' })).rejects.toThrow(/4002 name is held for a reconnect/);
    const back = await rawJoin(g.url, { name: 'alice', resume: first.welcome.resume });
    expect(back.welcome.address).toBe(first.welcome.address);
    expect(back.welcome.resumed).toBe(true);
    expect(g.counters.refusedName).toBe(3);
    back.ws.close(1000);
  });

  it('a relay closes when its grace runs out; resuming it afterwards is refused with 4003', async () => {
    const g = await gateway({ reconnectGraceMs: 100 });
    const first = await rawJoin(g.url, { name: 'bob' });
    first.ws.terminate();
    expect(await waitFor(() => g.counters.graceExpired === 1)).toBe(true);
    expect(g.sessions()).toEqual([]);
    await expect(rawJoin(g.url, { name: 'bob', resume: first.welcome.resume })).rejects.toThrow(/4003/);
    // A fresh hello gets a new relay.
    const again = await rawJoin(g.url, { name: 'bob' });
    expect(again.welcome.resumed).toBe(false);
    again.ws.close(1000);
  });

  it('drops and counts packets that speak for another member; passes its own and gossip about others', async () => {
    const g = await gateway();
    const target = await listener();
    const mallory = await rawJoin(g.url, { name: 'mallory' });
    const self = { sourceName: 'mallory', sourceAddress: mallory.welcome.address };
    const send = (bytes: Uint8Array) => mallory.ws.send(encodePacket(target.transport.address, bytes));
    const ping = { type: 'ping', seq: 1, target: 'x' } as const;
    send(swim({ ...ping, sourceName: 'alice', sourceAddress: mallory.welcome.address }));
    send(swim({ ...ping, ...self, sourceAddress: target.transport.address }));
    send(swim({ type: 'ping-req', seq: 2, target: 'x', targetAddress: '127.0.0.1:1', nack: true, sourceName: 'alice', sourceAddress: '127.0.0.1:2' }));
    send(swim({ type: 'user', from: 'alice', payload: new Uint8Array([1]) }));
    send(swim({ type: 'alive', incarnation: 9, node: 'mallory', address: '127.0.0.1:9', meta: new Uint8Array(0) }));
    send(swim({ type: 'alive', incarnation: 9, node: 'alice', address: mallory.welcome.address, meta: new Uint8Array(0) }));
    // One bad message spoils the packet it rides in.
    send(swim({ ...ping, ...self }, { type: 'user', from: 'alice', payload: new Uint8Array([1]) }));
    send(new Uint8Array([1, 2, 3]));
    // Legitimate: its own ping, and gossip about other members.
    send(swim({ ...ping, ...self, seq: 7 }));
    send(swim({ type: 'suspect', incarnation: 1, node: 'alice', from: 'mallory' }, { type: 'dead', incarnation: 1, node: 'carol', from: 'dave' }));
    send(swim({ type: 'alive', incarnation: 3, node: 'alice', address: '127.0.0.1:7000', meta: new Uint8Array(0) }));
    // Streams are checked too: a push-pull claiming the relay's address for another name, as a request and as a reply.
    const claim = swim({
      type: 'push-pull',
      join: true,
      userState: new Uint8Array(0),
      members: [{ name: 'alice', address: mallory.welcome.address, meta: new Uint8Array(0), incarnation: 1, state: 'alive' }],
    });
    mallory.ws.send(encodeRequest(1, 1_000, true, target.transport.address, claim));
    // A last legitimate packet: frames are handled in order and the relay's datagrams arrive in
    // order on loopback, so once it is in, anything let through before it would be too.
    send(swim({ ...ping, ...self, seq: 99 }));
    expect(await waitFor(() => target.packets.length === 4)).toBe(true);
    expect(target.packets.map((p) => messagesOf(p.bytes).map((m) => m.type))).toEqual([['ping'], ['suspect', 'dead'], ['alive'], ['ping']]);
    expect(target.packets.every((p) => p.from === mallory.welcome.address)).toBe(true);
    expect(target.streams).toHaveLength(0);
    expect(g.counters.spoof).toMatchObject({
      'ping-source': 2,
      'ping-req-source': 1,
      'user-from': 2,
      'alive-address': 1,
      'alive-claim': 1,
      undecodable: 1,
      'push-pull-claim': 1,
    });
    expect(g.counters.spoofDropped).toBe(9);
    expect(g.counters.packetsIn).toBe(4);
    // The refused request got a failed result.
    expect(await waitFor(() => mallory.frames.some((f) => f[0] === 0x03 && f[5] === 2))).toBe(true);
    // The connection stays open: spoofing is dropped, not fatal.
    expect(mallory.ws.readyState).toBe(mallory.ws.OPEN);

    // A stream reply is checked as well: the relay's requester gets no reply.
    const asker = await listener();
    const result = new Promise((resolve) => asker.transport.request(mallory.welcome.address, swim({ ...ping, sourceName: 'asker', sourceAddress: '127.0.0.1:3' }), { timeoutMs: 5_000, expectReply: true }, resolve));
    expect(await waitFor(() => mallory.frames.some((f) => f[0] === 0x04))).toBe(true);
    const stream = mallory.frames.find((f) => f[0] === 0x04)!;
    const id = new DataView(stream.buffer, stream.byteOffset).getUint32(1);
    mallory.ws.send(encodeReply(id, claim));
    expect(await result).toEqual({ ok: false, reason: 'closed without reply' });
    expect(g.counters.spoof['push-pull-claim']).toBe(2);
  });

  it('closes a message over maxMessageBytes with 1009', async () => {
    const g = await gateway({ maxMessageBytes: 2_048 });
    const big = await rawJoin(g.url, { name: 'big' });
    big.ws.send(new Uint8Array(4_096));
    expect((await big.closed).code).toBe(WS_CLOSE.tooBig);
    expect(await waitFor(() => g.counters.oversize === 1)).toBe(true);
  });

  it('drops and counts messages beyond the rate limit, and closes a sustained flood with 4004', async () => {
    let now = 0;
    const g = await gateway({ rateLimit: { messagesPerSecond: 10, burst: 20, closeAfterDrops: 50 }, now: () => now });
    const target = await listener();
    const flood = await rawJoin(g.url, { name: 'flood' });
    const packet = encodePacket(target.transport.address, new Uint8Array([1, 2, 3])); // undecodable, but rate-limited first
    for (let i = 0; i < 40; i++) flood.ws.send(packet);
    expect(await waitFor(() => g.counters.rateLimited + g.counters.spoof.undecodable === 40)).toBe(true);
    expect(g.counters.rateLimited).toBe(20);
    expect(g.counters.spoof.undecodable).toBe(20);
    // A second later the bucket holds 10 again, and 1 of the 20 drops has leaked away.
    now += 1_000;
    for (let i = 0; i < 50; i++) flood.ws.send(packet);
    const closed = await flood.closed;
    expect(closed).toEqual({ code: WS_CLOSE.rateLimited, reason: 'rate limit exceeded' });
    expect(g.counters.rateLimitClosed).toBe(1);
    expect(g.counters.rateLimited).toBe(20 + 32);
  });

  it('closes garbage with a code and a reason, and keeps serving others', async () => {
    const g = await gateway({ verify: false });
    const cases: Array<{ name: string; run: (ws: import('ws').WebSocket) => void; code: number; reason: RegExp; joined: boolean }> = [
      { name: 'binary hello', run: (ws) => ws.send(new Uint8Array([1, 2])), code: WS_CLOSE.unsupportedData, reason: /hello text frame/, joined: false },
      { name: 'bad JSON', run: (ws) => ws.send('{not json'), code: WS_CLOSE.policy, reason: /not JSON/, joined: false },
      { name: 'wrong version', run: (ws) => ws.send(JSON.stringify({ op: 'hello', v: 99, name: 'x' })), code: WS_CLOSE.policy, reason: /version/, joined: false },
      { name: 'no name', run: (ws) => ws.send(JSON.stringify({ op: 'hello', v: 1 })), code: WS_CLOSE.policy, reason: /name/, joined: false },
      { name: 'unknown op', run: (ws) => ws.send(new Uint8Array([0x7f, 0])), code: WS_CLOSE.policy, reason: /unknown op/, joined: true },
      { name: 'truncated address', run: (ws) => ws.send(new Uint8Array([0x01, 200, 65])), code: WS_CLOSE.policy, reason: /truncated/, joined: true },
      { name: 'server-only op', run: (ws) => ws.send(new Uint8Array([0x04, 0, 0, 0, 1, 0])), code: WS_CLOSE.policy, reason: /not sent by clients/, joined: true },
      { name: 'text after welcome', run: (ws) => ws.send('hello again'), code: WS_CLOSE.unsupportedData, reason: /text frame/, joined: true },
    ];
    let i = 0;
    for (const c of cases) {
      const client = c.joined ? await rawJoin(g.url, { name: `garbage-${i++}` }) : await rawConnect(g.url);
      c.run(client.ws);
      const closed = await client.closed;
      expect(closed.code, c.name).toBe(c.code);
      expect(closed.reason, c.name).toMatch(c.reason);
    }
    expect(g.counters.malformed).toBe(cases.length);
    // Others are still served.
    const a = await made.client(g);
    const b = await made.client(g);
    const got: string[] = [];
    b.listen({ packet: (from) => got.push(from), stream: (_f, _b, reply) => reply(undefined) });
    a.sendPacket(b.address, new Uint8Array([1]));
    expect(await waitFor(() => got.length === 1)).toBe(true);
    expect(got).toEqual([a.address]);
  });

  it('rejects bad options', async () => {
    await expect(gateway({ maxMessageBytes: 1_000 })).rejects.toThrow(/maxMessageBytes/);
    await expect(gateway({ relayHost: 'localhost' })).rejects.toThrow(/relayHost/);
    await expect(gateway({ relayHost: '0.0.0.0' })).rejects.toThrow(/relayAdvertiseHost/);
    await expect(gateway({ rateLimit: { burst: 0 } })).rejects.toThrow(/burst/);
    await expect(gateway({ reconnectGraceMs: -1 })).rejects.toThrow(/reconnectGraceMs/);
    // Every problem at once.
    await expect(gateway({ relayHost: 'localhost', rateLimit: { burst: 0 }, helloTimeoutMs: 0 })).rejects.toThrow(
      /\(3 problems\):\n- relayHost .*\n- helloTimeoutMs .*\n- rateLimit.burst /,
    );
    // The caps of issue 10, with every problem listed.
    const caps = gateway({
      maxBufferedBytes: 1_000,
      maxTotalBufferedBytes: 500,
      maxSessions: 0,
      maxSessionsPerIp: 1.5,
      maxStreamsPerSession: -1,
      joinTimeoutMs: Number.NaN,
      seedName: '',
      clientAddress: 'x-forwarded-for' as never,
    });
    await expect(caps).rejects.toThrow(/\(8 problems\)/);
    await expect(caps).rejects.toThrow(
      new RegExp(
        [
          'maxBufferedBytes \\(1000\\) must be at least maxMessageBytes \\(65536\\)',
          'maxTotalBufferedBytes \\(500\\) must be at least maxBufferedBytes \\(1000\\)',
          'maxSessions must be a positive integer, got 0',
          'maxSessionsPerIp must be a positive integer, got 1.5',
          'maxStreamsPerSession must be a positive integer, got -1',
          'joinTimeoutMs must be a positive number, got NaN',
          'clientAddress must be a function',
          'seedName must be a non-empty string',
        ].join('[^]*'),
      ),
    );
  });

  it('closes a connection that says nothing with 4005', async () => {
    const g = await gateway({ helloTimeoutMs: 150 });
    const silent = await rawConnect(g.url);
    expect((await silent.closed).code).toBe(WS_CLOSE.helloTimeout);
    expect(g.counters.helloTimeouts).toBe(1);
  });
});
