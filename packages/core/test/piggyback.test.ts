import { describe, expect, it } from 'vitest';
import { createRng, decodePacket, encodePacket, type Effect, type MemberView, type Message, type SendPacketEffect } from '../src/index.js';
import { MemberTable, NO_MEMBER } from '../src/members/member-table.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * Gossip rides on packets to members only (issue 10: "no gossip piggybacked on packets to
 * non-members"): a stranger's small packet must not buy a full packet of gossip.
 */

const sends = (effects: readonly Effect[]): SendPacketEffect[] => effects.filter((e): e is SendPacketEffect => e.type === 'send-packet');

function messagesOf(packet: SendPacketEffect): Message[] {
  const decoded = decodePacket(packet.bytes);
  if (!decoded.ok) throw new Error(decoded.error.detail);
  return decoded.messages;
}

const ping = (seq: number, sourceName = 'x'): Message => ({ type: 'ping', seq, target: 'me', sourceName, sourceAddress: '' });

/** A core that knows a, b, c and d, with updates queued (it has not gossiped yet). */
function coreWithNews(): LoneCore {
  const lone = new LoneCore({ probeIntervalMs: 60_000, probeTimeoutMs: 500, gossipIntervalMs: 60_000, pushPullIntervalMs: 0 }, 7);
  lone.introduce('a', 'b', 'c', 'd');
  expect(lone.core.queuedBroadcasts).toBeGreaterThan(3);
  return lone;
}

/** Something new to gossip, so that a piggyback, if allowed, has material. */
function queueNews(lone: LoneCore, version: number): void {
  lone.receive('a:1', encodePacket([{ type: 'broadcast', key: 'news', origin: 'a', version, payload: new Uint8Array(40) }]));
}

describe('piggybacked gossip', () => {
  it('a stranger pinging us gets a bare ack, and the replies to its packet are at most twice its size', () => {
    const lone = coreWithNews();
    const single = encodePacket([ping(1)]);
    const replies = sends(lone.receive('stranger:9', single));
    expect(replies).toHaveLength(1);
    expect(messagesOf(replies[0]!).map((m) => m.type)).toEqual(['ack']);

    // A compound packet of pings: each answered, none with gossip.
    const compound = encodePacket(Array.from({ length: 40 }, (_, i) => ping(100 + i)));
    const out = sends(lone.receive('stranger:9', compound));
    const bytesOut = out.reduce((sum, p) => sum + p.bytes.length, 0);
    expect(out.flatMap(messagesOf).every((m) => m.type === 'ack')).toBe(true);
    expect(bytesOut).toBeLessThanOrEqual(2 * compound.length);
    expect(lone.core.queuedBroadcasts).toBeGreaterThan(3); // nothing was spent on the stranger
  });

  it('a member pinging us gets its ack with gossip', () => {
    const lone = coreWithNews();
    const replies = sends(lone.receive('a:1', encodePacket([ping(1, 'a')])));
    expect(replies).toHaveLength(1);
    const types = messagesOf(replies[0]!).map((m) => m.type);
    expect(types[0]).toBe('ack');
    expect(types.length).toBeGreaterThan(1);
  });

  it('a member dead for less than gossipToTheDeadMs gets gossip with its ack; one that left, or died long ago, does not', () => {
    const lone = coreWithNews();
    lone.receive('a:1', encodePacket([{ type: 'dead', incarnation: 1, node: 'b', from: 'a' }]));
    lone.receive('c:1', encodePacket([{ type: 'dead', incarnation: 1, node: 'c', from: 'c' }]));
    expect(lone.core.member('b')?.state).toBe('dead');
    expect(lone.core.member('c')?.state).toBe('left');

    queueNews(lone, 1);
    const toDead = sends(lone.receive('b:1', encodePacket([ping(1, 'b')])));
    expect(messagesOf(toDead[0]!).length).toBeGreaterThan(1);

    queueNews(lone, 2);
    const toLeft = sends(lone.receive('c:1', encodePacket([ping(2, 'c')])));
    expect(messagesOf(toLeft[0]!).map((m) => m.type)).toEqual(['ack']);

    lone.now += lone.core.config.gossipToTheDeadMs + 1;
    queueNews(lone, 3);
    const toLongDead = sends(lone.receive('b:1', encodePacket([ping(3, 'b')])));
    expect(messagesOf(toLongDead[0]!).map((m) => m.type)).toEqual(['ack']);
  });
});

describe('MemberTable address index', () => {
  const add = (table: MemberTable, name: string, address: string) => table.add(name, address, new Uint8Array(0), 1, 'alive', 0);

  it('finds members by address through adds, moves and reaps', () => {
    const table = new MemberTable(createRng(1));
    const self = add(table, 'me', 'me:1');
    const a = add(table, 'a', 'a:1');
    const b = add(table, 'b', 'b:1');
    expect(table.atAddress('a:1')).toEqual([a]);
    expect(table.atAddress('nobody:1')).toEqual([]);
    expect(table.isMemberAddress('me:1', self)).toBe(false);

    table.setAddress(a, 'a:2');
    expect(table.atAddress('a:1')).toEqual([]);
    expect(table.atAddress('a:2')).toEqual([a]);

    // A new name at a dead member's address: both are found there until the dead one is reaped.
    table.setState(b, 'dead', 0);
    const b2 = add(table, 'b2', 'b:1');
    expect(new Set(table.atAddress('b:1'))).toEqual(new Set([b, b2]));
    const reaped: MemberView[] = [];
    for (let i = 0; i < 10; i++) table.nextProbeTarget(self, 1000, 10, reaped);
    expect(reaped.map((m) => m.name)).toEqual(['b']);
    expect(table.atAddress('b:1')).toEqual([b2]);
    expect(table.isMemberAddress('b:1')).toBe(true);

    table.setState(b2, 'left', 0);
    expect(table.isMemberAddress('b:1')).toBe(false);
  });

  it('reuses a reaped member\'s slot without leaving its name or address behind', () => {
    const table = new MemberTable(createRng(2));
    const self = add(table, 'me', 'me:1');
    const a = add(table, 'a', 'a:1');
    table.setState(a, 'dead', 0);
    const reaped: MemberView[] = [];
    for (let i = 0; i < 4; i++) table.nextProbeTarget(self, 1000, 10, reaped);
    expect(reaped.map((m) => m.name)).toEqual(['a']);
    const c = add(table, 'c', 'c:1');
    expect(c).toBe(a);
    expect(table.idOf('a')).toBe(NO_MEMBER);
    expect(table.atAddress('a:1')).toEqual([]);
    expect(table.idOf('c')).toBe(c);
    expect(table.view(c)).toEqual({ name: 'c', address: 'c:1', meta: new Uint8Array(0), incarnation: 1, state: 'alive', stateChangedAt: 0 });
    expect(table.ackedAt(c)).toBe(-Infinity);
  });
});
