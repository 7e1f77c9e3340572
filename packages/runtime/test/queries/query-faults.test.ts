// Queries under faults (serf serf.go handleQuery's de-duplication, query.go relayResponse,
// handleQueryResponse's deadline): duplicated packets are handled once, replies after the
// deadline are dropped, relays deliver when the direct path back to the asker is cut.
import { afterEach, describe, expect, it } from 'vitest';
import type { Transport } from '../../src/index.js';
import { SEED, type World } from '../world.js';
import { bytes, cluster, collect, from } from './query-world.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

/** Every packet sent twice: gossip duplicates, and so does a lossy network's retry. */
function duplicating(transport: Transport): Transport {
  return {
    address: transport.address,
    maxPacketBytes: transport.maxPacketBytes,
    supportsStreams: transport.supportsStreams,
    listen: (handlers) => transport.listen(handlers),
    sendPacket(to, packet) {
      transport.sendPacket(to, packet);
      transport.sendPacket(to, packet);
    },
    request: (to, bytes, options, done) => transport.request(to, bytes, options, done),
    close: () => transport.close(),
  };
}

describe(`queries under faults (seed ${SEED})`, () => {
  it('every packet duplicated: each member handles the query once, and the asker counts each member once', async () => {
    const c = await cluster(10, { extra: () => ({ wrap: duplicating }) });
    w = c.w;
    const handled = new Map<string, number>();
    for (const m of c.members) m.handleQuery('dup', () => void handled.set(m.name, (handled.get(m.name) ?? 0) + 1));
    for (const m of c.members) m.handleQuery('answer', () => m.name);
    const asker = c.members[0]!;
    const replies = await collect(w, asker.query('answer', undefined, { requestAck: true, relayFactor: 2, timeoutMs: 2_000 }));
    expect(from(replies, 'ack')).toHaveLength(10);
    expect(from(replies, 'response')).toHaveLength(10);
    expect(new Set(replies.map((r) => `${r.kind} ${r.from}`)).size).toBe(20);
    await collect(w, asker.query('dup', undefined, { timeoutMs: 1_000 }));
    expect([...handled.values()]).toEqual(Array(10).fill(1));
    // The core drops repeated copies of a broadcast before they reach the query service (its own
    // de-duplication is tested with re-versioned copies, query-hostile.test.ts).
    // Duplicated replies (two packets, plus relayed copies) were counted as dropped duplicates.
    expect(asker.queries.counters.repliesDropped).toBeGreaterThan(0);
    expect(asker.queries.counters.acksReceived).toBe(10);
  });

  it("replies after the asker's deadline are dropped; a handler still running at its deadline gives up its slot", async () => {
    const c = await cluster(4);
    w = c.w;
    const clock = w.clock;
    const asker = c.members[0]!;
    let askerDeadline = 0;
    // m1 answers between the asker's deadline and its own (its own started later, when the query arrived).
    c.members[1]!.on('query', (q) => {
      clock.timer(() => q.respond('late')).arm(askerDeadline + 1);
    });
    // m2's handler answers after its own deadline: the answer is not sent.
    c.members[2]!.handleQuery('q', () => new Promise((resolve) => clock.timer(() => resolve('too late')).arm(clock.now() + 1_000)));
    c.members[3]!.handleQuery('q', () => 'in time');
    const handle = asker.query('q', undefined, { timeoutMs: 200 });
    askerDeadline = handle.deadline;
    const replies = await collect(w, handle);
    expect(replies).toEqual([{ kind: 'response', from: 'm3', payload: bytes('in time') }]);
    await w.until(() => c.members[2]!.queries.counters.responsesUnsent === 1 && c.members[1]!.queries.counters.responsesSent === 1, 5_000);
    await w.until(() => asker.queries.counters.repliesDropped === 1, 5_000);
    expect((await handle.finished).responses.size).toBe(1);
    expect(c.members[2]!.queries.handlersRunning).toBe(0);
  });

  it('relays deliver acks and responses when the path from a responder to the asker is cut one way', async () => {
    const c = await cluster(6);
    w = c.w;
    for (const m of c.members) m.handleQuery('q', () => m.name);
    const asker = c.members[0]!;
    // m4 hears the asker (the query gossips to it) but nothing it sends to the asker arrives.
    w.network.setLinkLoss(c.members[4]!.address, asker.address, 1);
    const direct = await collect(w, asker.query('q', undefined, { requestAck: true, timeoutMs: 1_000 }));
    expect(from(direct, 'ack')).not.toContain('m4');
    expect(from(direct, 'response')).not.toContain('m4');
    const relayed = await collect(w, asker.query('q', undefined, { requestAck: true, relayFactor: 2, timeoutMs: 1_000 }));
    expect(from(relayed, 'ack')).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
    expect(from(relayed, 'response')).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
    expect(c.members[4]!.queries.counters.relaysSent).toBe(4);
    // Five responders, an ack and a response each, two relays each.
    expect(c.members.reduce((n, m) => n + m.queries.counters.relaysForwarded, 0)).toBe(20);
  });
});
