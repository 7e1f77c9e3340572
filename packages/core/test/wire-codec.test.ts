import { describe, expect, it } from 'vitest';
import { ConfigError, swimCodec, SwimCore, type Message, type WireCodec } from '../src/index.js';
import { Cluster } from './harness/cluster.js';

/**
 * A wire format of its own, for the tests: the native bytes behind a two-byte marker and with one
 * padding byte per part, so that packing, sizes and decoding all go through the codec the
 * member was given and a native member cannot read it.
 */
const MARK = [0x5a, 0x5a];

function markedCodec(calls: { encoded: number; decoded: number }): WireCodec {
  const unmark = (bytes: Uint8Array): Uint8Array | undefined =>
    bytes.length >= 2 && bytes[0] === MARK[0] && bytes[1] === MARK[1] ? bytes.subarray(2) : undefined;
  const mark = (bytes: Uint8Array): Uint8Array => Uint8Array.from([...MARK, ...bytes]);
  return {
    name: 'marked',
    packetOverheadBytes: swimCodec.packetOverheadBytes + 2,
    partOverheadBytes: 1,
    maxPartsPerPacket: 8,
    minPacketBytes: swimCodec.minPacketBytes + 2 + 8,
    addressProblem: (address) => (address.endsWith(':7946') ? undefined : `address ${address} must use port 7946`),
    encodeMessage(message: Message) {
      calls.encoded++;
      return Uint8Array.from([0, ...swimCodec.encodeMessage(message)]);
    },
    encodedSize: (message) => 1 + swimCodec.encodedSize(message),
    assemblePacket(parts) {
      expect(parts.length).toBeLessThanOrEqual(8);
      return mark(swimCodec.assemblePacket(parts.map((part) => part.subarray(1))));
    },
    encodePacket(messages) {
      return this.assemblePacket(messages.map((message) => this.encodeMessage(message)));
    },
    decodePacket(bytes) {
      calls.decoded++;
      const inner = unmark(bytes);
      return inner === undefined ? { ok: false, error: { code: 'version', detail: 'not marked' } } : swimCodec.decodePacket(inner);
    },
    encodeStream: (message) => mark(swimCodec.encodeStream(message)),
    decodeStream(bytes, limits) {
      const inner = unmark(bytes);
      return inner === undefined ? { ok: false, error: { code: 'version', detail: 'not marked' } } : swimCodec.decodeStream(inner, limits);
    },
  };
}

function converged(cluster: Cluster, n: number): boolean {
  return cluster.live().every((node) => node.core.members().filter((m) => m.state === 'alive').length === n);
}

describe('a member speaks the wire format it was given (WireCodec)', () => {
  it.each([1, 2])('16 members on another codec converge, gossip within its packet limits and detect a crash (seed %i)', (seed) => {
    const calls = { encoded: 0, decoded: 0 };
    const cluster = new Cluster({ seed, codec: () => markedCodec(calls), config: { maxPacketBytes: swimCodec.minPacketBytes + 10 } });
    const names = Array.from({ length: 16 }, (_, i) => `n${i}`);
    for (const name of names) cluster.add(name);
    for (const name of names.slice(1)) cluster.join(name, ['n0']);
    expect(cluster.runUntil(() => converged(cluster, 16), 30_000), `seed ${seed}`).toBeLessThan(30_000);
    cluster.crash('n5');
    cluster.runUntil(() => cluster.live().every((node) => cluster.stateOf(node.name, 'n5') === 'dead'), 60_000);
    for (const node of cluster.live()) expect(cluster.stateOf(node.name, 'n5'), `seed ${seed}, ${node.name}`).toBe('dead');
    const sent = cluster.live().flatMap((node) => node.effects.map((e) => e.effect).filter((e) => e.type === 'send-packet'));
    expect(sent.length).toBeGreaterThan(100);
    for (const effect of sent) {
      expect([effect.bytes[0], effect.bytes[1]], `seed ${seed}`).toEqual(MARK);
      expect(effect.bytes.length, `seed ${seed}`).toBeLessThanOrEqual(1000);
    }
    expect(calls.decoded).toBeGreaterThan(100);
    expect(calls.encoded).toBeGreaterThan(100);
  });

  it('a native member cannot read it: every packet is a counted decode error', () => {
    const other = new SwimCore({ name: 'b', address: 'b:7946', codec: markedCodec({ encoded: 0, decoded: 0 }), seed: 2, now: 0 });
    const native = new SwimCore({ name: 'a', address: 'a:7946', seed: 1, now: 0 });
    const join = other.join(['a:7946'], 1, 0).find((e) => e.type === 'stream-request');
    expect(join).toBeDefined();
    const effects = native.receiveStream(1, 'b:7946', join!.type === 'stream-request' ? join!.bytes : new Uint8Array(), 0);
    expect(effects.some((e) => e.type === 'decode-error')).toBe(true);
    expect(native.counters.decodeErrors).toBe(1);
    expect(native.members().map((m) => m.name)).toEqual(['a']);
  });

  it("refuses at construction an address or a packet size the codec cannot carry, with every problem listed", () => {
    const make = () =>
      new SwimCore({ name: 'a', address: 'a:1', codec: markedCodec({ encoded: 0, decoded: 0 }), config: { maxPacketBytes: swimCodec.minPacketBytes }, seed: 1, now: 0 });
    expect(make).toThrow(ConfigError);
    try {
      make();
    } catch (error) {
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toContain('address a:1 must use port 7946');
      expect(problems).toContain(`maxPacketBytes must be at least ${swimCodec.minPacketBytes + 10} for the marked wire format`);
    }
  });

  it('answers a ping that names no target (memberlist handlePing), not one naming another member', () => {
    let target = '';
    const codec: WireCodec = {
      ...swimCodec,
      decodePacket: () => ({ ok: true, messages: [{ type: 'ping', seq: 9, target, sourceName: '', sourceAddress: '' }] }),
    };
    const core = new SwimCore({ name: 'me', address: 'me:1', codec, seed: 1, now: 0 });
    const acks = (effects: ReturnType<SwimCore['receivePacket']>) =>
      effects.filter((e) => e.type === 'send-packet').flatMap((e) => (e.type === 'send-packet' ? swimCodec.decodePacket(e.bytes) : []));
    expect(acks(core.receivePacket('x:1', new Uint8Array([1]), 1))).toMatchObject([{ ok: true, messages: [{ type: 'ack', seq: 9 }] }]);
    target = 'someone-else';
    expect(acks(core.receivePacket('x:1', new Uint8Array([1]), 2))).toEqual([]);
  });
});
