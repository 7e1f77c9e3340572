import { describe, expect, it } from 'vitest';
import {
  decodePacket,
  encodePacket,
  MAX_MESSAGES_PER_PACKET,
  presets,
  SWIM_PROTOCOL,
  SwimCore,
  validateConfig,
  type Effect,
  type Message,
  type SendPacketEffect,
} from '../src/index.js';
import { BroadcastQueue } from '../src/dissemination/broadcast-queue.js';
import { craftPacket } from './codec-samples.js';
import { introduce } from './harness/introduce.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * Every packet the core builds must be one its peers decode: within maxPacketBytes, and within
 * the decoder's bound on messages per packet (issue 10, finding 9).
 */

const sends = (effects: readonly Effect[]): SendPacketEffect[] => effects.filter((e): e is SendPacketEffect => e.type === 'send-packet');

function alive(node: string, address: string, meta = new Uint8Array(0)): Message {
  return { type: 'alive', incarnation: 1, node, address, meta };
}

/** Learn `count` members, as a join would. */
function introduceMany(lone: LoneCore, count: number): void {
  lone.introduce(...Array.from({ length: count }, (_, i) => `m${i}`));
}

function expectDecodable(packets: readonly SendPacketEffect[], maxPacketBytes: number): void {
  for (const packet of packets) {
    expect(packet.bytes.length).toBeLessThanOrEqual(maxPacketBytes);
    const decoded = decodePacket(packet.bytes);
    expect(decoded.ok ? 'ok' : decoded.error.detail).toBe('ok');
  }
}

describe('BroadcastQueue.take: at most maxParts parts', () => {
  it('stops at maxParts even when the budget has room for more', () => {
    const queue = new BroadcastQueue();
    for (let i = 0; i < 10; i++) queue.enqueue(`k${i}`, new Uint8Array(5).fill(i));
    const taken = queue.take(10_000, 0, 3, 4);
    expect(taken.parts).toHaveLength(4);
    expect(queue.size).toBe(10);
    expect(queue.peek().filter((item) => item.transmits === 1)).toHaveLength(4);
    expect(queue.take(10_000, 0, 3, 0).parts).toHaveLength(0);
  });
});

describe('packets within the decoder bound on messages', () => {
  it('a gossip packet of a 1,100-member table at maxPacketBytes 65507 holds at most MAX_MESSAGES_PER_PACKET messages', () => {
    const lone = new LoneCore({ maxPacketBytes: 65_507, probeIntervalMs: 60_000, probeTimeoutMs: 500, pushPullIntervalMs: 0 }, 3);
    introduceMany(lone, 1100);
    expect(lone.core.members()).toHaveLength(1101);
    expect(lone.core.queuedBroadcasts).toBe(1101);
    lone.log.length = 0;
    lone.advance(lone.now + lone.core.config.gossipIntervalMs + 1);
    const packets = sends(lone.log.map((e) => e.effect));
    expect(packets.length).toBeGreaterThan(0);
    expectDecodable(packets, 65_507);
    // The queue was not emptied into one rejected packet: it takes more than one.
    expect(Math.max(...packets.map((p) => (decodePacket(p.bytes) as { messages: Message[] }).messages.length))).toBe(MAX_MESSAGES_PER_PACKET);
  });

  it('a ping with piggybacked gossip holds at most MAX_MESSAGES_PER_PACKET messages, the ping included', () => {
    const lone = new LoneCore({ maxPacketBytes: 65_507, gossipIntervalMs: 0, probeIntervalMs: 1000, probeTimeoutMs: 500, pushPullIntervalMs: 0 }, 4);
    introduceMany(lone, 1100);
    lone.log.length = 0;
    lone.advance(lone.now + 1000);
    const pings = sends(lone.log.map((e) => e.effect)).filter((p) => {
      const decoded = decodePacket(p.bytes);
      return !decoded.ok || decoded.messages[0]?.type === 'ping';
    });
    expect(pings.length).toBeGreaterThan(0);
    expectDecodable(pings, 65_507);
    const first = decodePacket(pings[0]!.bytes);
    expect(first.ok && first.messages.length).toBe(MAX_MESSAGES_PER_PACKET);
  });
});

/** The longest string the decoder accepts in a field, found by asking it (binary search). */
function longestAccepted(wire: (value: string) => unknown[]): number {
  let low = 1; // accepted
  let high = 4096; // rejected
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    if (decodePacket(craftPacket(wire('x'.repeat(mid)))).ok) low = mid;
    else high = mid;
  }
  return low;
}

/** The smallest maxPacketBytes the config accepts with the default 512 bytes of meta. */
function smallestPacketAllowed(): number {
  let low = 1; // rejected
  let high = 65_507; // accepted
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    if (validateConfig({ ...presets.lan(), maxPacketBytes: mid }).length === 0) high = mid;
    else low = mid;
  }
  return high;
}

describe('every control packet fits the smallest packet the config allows', () => {
  it('pings, buddy accusations, ping-reqs, relayed nacks, a refutation and a move with 512 bytes of meta, at the longest names and addresses', () => {
    const nameBytes = longestAccepted((s) => [3, 1, s, 'from']); // suspect.node
    const addressBytes = longestAccepted((s) => [4, 1, 'node', s, new Uint8Array(0)]); // alive.address
    expect(longestAccepted((s) => [0, 1, 'target', 'source', s])).toBe(addressBytes); // ping.sourceAddress
    expect(longestAccepted((s) => [1, 1, 't', s, true, 's', 'a'])).toBe(addressBytes); // ping-req.targetAddress
    const maxPacketBytes = smallestPacketAllowed();
    const meta = new Uint8Array(presets.lan().metaMaxBytes).fill(7);
    expect(meta.length).toBe(512);

    // Names and addresses of the longest length, distinct in their first characters.
    const name = (tag: string) => (tag + 'n'.repeat(nameBytes)).slice(0, nameBytes);
    const address = (tag: string) => (tag + 'a'.repeat(addressBytes)).slice(0, addressBytes);
    const self = { name: name('self'), address: address('self') };
    const core = new SwimCore({ ...self, meta, seed: 11, now: 0, config: { maxPacketBytes, pushPullIntervalMs: 0, reconnectIntervalMs: 0 } });
    // Members of this version, so that alives carry their range and a move its movedFrom.
    const peers = ['p1', 'p2', 'p3', 'p4'].map((tag) => ({ name: name(tag), address: address(tag), protocol: SWIM_PROTOCOL }));
    const out: SendPacketEffect[] = [];
    let now = 0;
    const record = (effects: Effect[]) => out.push(...sends(effects));
    record(introduce(core, peers, now).effects);
    expect(core.members()).toHaveLength(5);
    // We move: our alive names the longest address we left (docs/design.md, "A member moves").
    record(core.move(address('moved'), now));

    // Nobody answers: probes go direct, then indirect; suspects get the buddy accusation; verdicts are checked.
    for (let next = core.nextDeadline(); next !== undefined && next <= 20_000; next = core.nextDeadline()) {
      now = next;
      record(core.tick(now));
    }
    // A member accuses us (refutation, answered directly with our 512-byte meta), pings us, asks us to relay.
    const [p1, p2] = peers as [(typeof peers)[0], (typeof peers)[0]];
    record(core.receivePacket(p1.address, encodePacket([{ type: 'suspect', incarnation: 1, node: self.name, from: p1.name }]), now));
    record(core.receivePacket(p1.address, encodePacket([{ type: 'ping', seq: 9, target: self.name, sourceName: p1.name, sourceAddress: p1.address }]), now));
    record(core.receivePacket(p1.address, encodePacket([alive(p1.name, p1.address), alive(p2.name, p2.address)]), now));
    record(
      core.receivePacket(
        p1.address,
        encodePacket([{ type: 'ping-req', seq: 10, target: p2.name, targetAddress: p2.address, nack: true, sourceName: p1.name, sourceAddress: p1.address }]),
        now,
      ),
    );
    const until = now + 2000;
    for (let next = core.nextDeadline(); next !== undefined && next <= until; next = core.nextDeadline()) {
      now = next;
      record(core.tick(now));
    }

    expect(core.counters.oversizedBroadcasts, 'updates no packet could carry').toBe(0);
    expectDecodable(out, maxPacketBytes);
    const kinds = new Set(
      out.map((p) => {
        const decoded = decodePacket(p.bytes);
        return decoded.ok ? decoded.messages.map((m) => m.type).join('+') : 'undecodable';
      }),
    );
    // The large ones were all built, and none was cut.
    expect([...kinds].some((k) => k.startsWith('ping-req'))).toBe(true);
    expect(kinds.has('ping+suspect')).toBe(true);
    expect(kinds.has('alive')).toBe(true);
    expect([...kinds].some((k) => k.startsWith('nack'))).toBe(true);
    const moves = out.flatMap((p) => {
      const decoded = decodePacket(p.bytes);
      return decoded.ok ? decoded.messages.filter((m) => m.type === 'alive' && m.movedFrom === self.address) : [];
    });
    expect(moves.length, 'our move, gossiped with 512 bytes of meta').toBeGreaterThan(0);
  });
});

describe('an update no packet can carry', () => {
  it('is dropped and counted, not queued for ever, and never holds back the others', () => {
    const lone = new LoneCore({ probeIntervalMs: 60_000, probeTimeoutMs: 500, pushPullIntervalMs: 0 }, 5);
    lone.introduce('a', 'b');
    const queuedBefore = lone.core.queuedBroadcasts;
    const big = { type: 'broadcast', key: 'big', origin: 'a', version: 1, payload: new Uint8Array(2000).fill(1) } as const;
    const effects = lone.receive('a:1', encodePacket([big]));
    // Delivered to the application all the same: it arrived whole.
    expect(effects.some((e) => e.type === 'user-message' && e.key === 'big')).toBe(true);
    expect(lone.core.counters.oversizedBroadcasts).toBe(1);
    expect(lone.core.queuedBroadcasts).toBe(queuedBefore);

    lone.receive('a:1', encodePacket([{ type: 'broadcast', key: 'small', origin: 'a', version: 1, payload: new Uint8Array([2]) }]));
    lone.log.length = 0;
    lone.advance(lone.now + 30_000);
    expect(lone.core.queuedBroadcasts).toBe(0);
    const gossiped = sends(lone.log.map((e) => e.effect)).flatMap((p) => {
      const decoded = decodePacket(p.bytes);
      return decoded.ok ? decoded.messages : [];
    });
    expect(gossiped.some((m) => m.type === 'broadcast' && m.key === 'small')).toBe(true);
  });
});
