// Forged query traffic from an endpoint that is no member: nothing is reflected to an address we
// do not hold, every table and every slot stays bounded, repeated copies are handled once, and
// what does not decode is counted and never reaches the application.
import {
  encodeQueryBroadcast,
  encodeQueryRelayMessage,
  encodeQueryResponseMessage,
  queryBroadcastKey,
  swimCodec,
  type Message,
  type QueryRequest,
} from '@swim/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { Member } from '../../src/index.js';
import { SEED, type World } from '../world.js';
import { bytes, cluster, collect } from './query-world.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** An endpoint on the network that is no member: it sends what it likes and counts what it gets. */
function attacker(world: World) {
  const transport = world.network.transport('evil');
  let received = 0;
  transport.listen({ packet: () => void received++, stream: (_from, _bytes, reply) => reply(undefined) });
  let version = 1;
  return {
    get received() {
      return received;
    },
    send(to: Member, messages: Message[]) {
      transport.sendPacket(to.address, swimCodec.encodePacket(messages));
    },
    query(to: Member, query: QueryRequest, copies = 1) {
      for (let i = 0; i < copies; i++) {
        this.send(to, [{ type: 'broadcast', key: queryBroadcastKey(query), origin: query.sourceName, version: version++, payload: encodeQueryBroadcast(query) }]);
      }
    },
    user(to: Member, from: string, payload: Uint8Array) {
      this.send(to, [{ type: 'user', from, payload }]);
    },
  };
}

function forged(member: Member, overrides: Partial<QueryRequest> = {}): QueryRequest {
  return {
    name: 'q',
    payload: new Uint8Array(0),
    filters: [],
    requestAck: true,
    noBroadcast: false,
    id: 1,
    ltime: member.queries.clock.time(),
    timeoutMs: 1_000,
    relayFactor: 0,
    sourceName: 'ghost',
    sourceAddress: 'evil',
    ...overrides,
  };
}

describe(`forged query traffic (seed ${SEED})`, () => {
  it('a query whose asker is not a member we hold at that address is dropped: no ack, no handler, nothing sent back', async () => {
    const c = await cluster(3);
    w = c.w;
    const attack = attacker(w);
    const handled: string[] = [];
    for (const m of c.members) m.handleQuery('*', () => void handled.push(m.name));
    const [m0, m1] = c.members as [Member, Member];
    attack.query(m0, forged(m0, { id: 1 }));
    attack.query(m0, forged(m0, { id: 2, sourceName: 'm1', sourceAddress: 'evil' }));
    attack.query(m0, forged(m0, { id: 3, sourceName: 'm1', sourceAddress: m0.address }));
    // m1 never sees the two that claim its name: the core drops a broadcast of its own origin.
    await w.until(() => c.members.map((m) => m.queries.counters.received).join() === '3,1,3', 5_000);
    expect(c.members.map((m) => m.queries.counters.dropped['unknown-asker'])).toEqual([3, 1, 3]);
    expect(handled).toEqual([]);
    expect(c.members.reduce((n, m) => n + m.queries.counters.acksSent, 0)).toBe(0);
    expect(attack.received).toBe(0);
    expect(m1.queries.counters.repliesDropped).toBe(0);
  });

  it('copies of one query under new broadcast versions are handled once (the service de-duplicates by ltime and id)', async () => {
    const c = await cluster(3);
    w = c.w;
    const [m0, m1] = c.members as [Member, Member];
    let handled = 0;
    m0.handleQuery('q', () => void handled++);
    const query = forged(m0, { sourceName: 'm1', sourceAddress: m1.address, id: 77 });
    const attack = attacker(w);
    // One copy at a time: the core drops a copy older than one it has seen.
    for (let copy = 1; copy <= 5; copy++) {
      attack.query(m0, query);
      await w.until(() => m0.queries.counters.received === copy);
    }
    expect(m0.queries.counters.duplicate).toBe(4);
    expect(handled).toBe(1);
    expect(m0.queries.counters.accepted).toBe(1);
    // The single ack went to m1, which asked nothing: it drops it.
    await w.until(() => m1.queries.counters.repliesDropped >= 1);
  });

  it('a flood of forged queries leaves the de-duplication table and the handler slots bounded', async () => {
    const c = await cluster(3, { queries: { maxConcurrentHandlers: 8, maxResponseWindowMs: 1_000, config: { queryBuffer: 64, maxQueriesPerLTime: 4 } } });
    w = c.w;
    const [m0, m1] = c.members as [Member, Member];
    m0.handleQuery('q', () => new Promise<undefined>(() => {}));
    const attack = attacker(w);
    const start = m0.queries.clock.time();
    for (let t = 0; t < 50; t++) {
      for (let id = 0; id < 20; id++) {
        attack.query(m0, forged(m0, { ltime: start + t, id, sourceName: 'm1', sourceAddress: m1.address, timeoutMs: 0xffff_ffff }));
      }
    }
    await w.until(() => m0.queries.counters.received >= 1000, 10_000);
    const counters = m0.queries.counters;
    expect(counters.accepted).toBe(50 * 4);
    expect(counters.dropped.full).toBe(50 * 16);
    expect(counters.dropped.busy).toBe(50 * 4 - 8);
    expect(m0.queries.handlersRunning).toBe(8);
    // The claimed 49-day timeout holds a slot for maxResponseWindowMs at most.
    await w.until(() => m0.queries.handlersRunning === 0, 2_000);
  });

  it("forged responses cannot grow a query's results past the members it counted, nor reach one it did not ask", async () => {
    const c = await cluster(3);
    w = c.w;
    const [m0, m1] = c.members as [Member, Member];
    const attack = attacker(w);
    const handle = m0.query('q', undefined, { timeoutMs: 1_000 });
    for (let i = 0; i < 500; i++) {
      attack.user(m0, 'm1', encodeQueryResponseMessage({ ltime: handle.ltime, id: handle.id, from: `fake${i}`, ack: false, payload: bytes('x') }));
      attack.user(m0, 'm1', encodeQueryResponseMessage({ ltime: handle.ltime + 1 + i, id: i, from: 'm1', ack: false, payload: bytes('x') }));
    }
    const summary = await w.settle(handle.finished);
    expect(summary.responses.size).toBeLessThanOrEqual(3);
    expect(m0.queries.counters.repliesDropped).toBe(1000 - summary.responses.size);
    expect(m1.queries.counters.repliesDropped).toBe(0);
  });

  it('relays pass on only replies, only to a member held at the named address', async () => {
    const c = await cluster(3);
    w = c.w;
    const [m0, m1, m2] = c.members as [Member, Member, Member];
    const attack = attacker(w);
    const reply = encodeQueryResponseMessage({ ltime: 1, id: 1, from: 'x', ack: true, payload: new Uint8Array(0) });
    const appMessages: string[] = [];
    m1.on('message', () => appMessages.push('m1'));
    attack.user(m0, 'm2', encodeQueryRelayMessage(bytes('hello app'), { name: 'm1', address: m1.address }));
    attack.user(m0, 'm2', encodeQueryRelayMessage(reply, { name: 'ghost', address: 'evil' }));
    attack.user(m0, 'm2', encodeQueryRelayMessage(reply, { name: 'm1', address: 'evil' }));
    attack.user(m0, 'm2', encodeQueryRelayMessage(encodeQueryRelayMessage(reply, { name: 'm1', address: m1.address }), { name: 'm2', address: m2.address }));
    attack.user(m0, 'm2', encodeQueryRelayMessage(reply, { name: 'm1', address: m1.address }));
    await w.until(() => m0.queries.counters.relaysRefused + m0.queries.counters.relaysForwarded === 5);
    expect(m0.queries.counters).toMatchObject({ relaysRefused: 4, relaysForwarded: 1 });
    await w.until(() => m1.queries.counters.repliesDropped === 1);
    expect(attack.received).toBe(0);
    expect(appMessages).toEqual([]);
  });

  it('query traffic that does not decode is counted, never delivered as a message', async () => {
    const c = await cluster(2);
    w = c.w;
    const [m0] = c.members as [Member];
    const attack = attacker(w);
    const delivered: string[] = [];
    m0.on('message', ({ key }) => delivered.push(String(key)));
    attack.user(m0, 'm1', new Uint8Array([0xc1]));
    attack.user(m0, 'm1', new Uint8Array([0xc1, 9, 0x90]));
    attack.send(m0, [{ type: 'broadcast', key: 'swim:query:1:1', origin: 'm1', version: 1, payload: bytes('garbage') }]);
    attack.send(m0, [{ type: 'broadcast', key: 'swim:query:5:5', origin: 'm1', version: 1, payload: encodeQueryBroadcast(forged(m0, { ltime: 1, id: 1 })) }]);
    attack.user(m0, 'm1', bytes('an application message'));
    await w.until(() => delivered.length === 1);
    expect(m0.queries.counters.malformed).toBe(4);
    expect(delivered).toEqual(['undefined']);
  });

  it('a hostile tag expression is refused by its budget, not run to the end', async () => {
    const c = await cluster(2, { tags: () => ({ role: 'a'.repeat(400) }) });
    w = c.w;
    const [m0, m1] = c.members as [Member, Member];
    const handled: number[] = [];
    m0.handleQuery('*', () => void handled.push(1));
    const attack = attacker(w);
    const expr = `${'(a*)*'.repeat(100)}b`;
    for (let id = 0; id < 50; id++) attack.query(m0, forged(m0, { id, sourceName: 'm1', sourceAddress: m1.address, filters: [{ kind: 'tag', tag: 'role', expr }] }));
    await w.until(() => m0.queries.counters.filtered === 50);
    expect(handled).toEqual([]);
  });
});
