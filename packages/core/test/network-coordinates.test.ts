import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  createRng,
  DEFAULT_VIVALDI_CONFIG,
  decodePacket,
  decodeSwimAckPayload,
  encodePacket,
  encodeSwimAckPayload,
  newCoordinate,
  SwimCore,
  VivaldiClient,
  type Coordinate,
  type Effect,
} from '../src/index.js';
import { Cluster } from './harness/cluster.js';
import { LoneCore } from './harness/lone-core.js';

const RANGE = { min: 1, max: 2 };

function at(components: Record<number, number>, fields: Partial<Omit<Coordinate, 'vec'>> = {}, dims = 8): Coordinate {
  const vec = new Array<number>(dims).fill(0);
  for (const [i, v] of Object.entries(components)) vec[Number(i)] = v;
  return { vec, error: 0.5, adjustment: 0, height: 1e-4, ...fields };
}

/** The next ping `node` sends to `target`, with the time it left; deadlines run up to it. */
function nextPing(node: LoneCore, target: string): { seq: number; sentAt: number } {
  let found: { seq: number; sentAt: number } | undefined;
  for (let waited = 0; found === undefined && waited < 30_000; waited += 10) {
    node.advance(node.now + 10, (effect) => {
      if (found !== undefined || effect.type !== 'send-packet' || effect.to !== `${target}:1`) return;
      const decoded = decodePacket(effect.bytes);
      const first = decoded.ok ? decoded.messages[0] : undefined;
      if (first?.type === 'ping') found = { seq: first.seq, sentAt: node.now };
    });
  }
  if (found === undefined) throw new Error(`no ping to ${target} within 30 s`);
  return found;
}

/** Answer `node`'s next probe of `target` with a direct ack carrying `payload`, `rttMs` after the ping left. */
function answerProbe(node: LoneCore, target: string, payload: Uint8Array, rttMs: number): Effect[] {
  const ping = nextPing(node, target);
  node.now = ping.sentAt + rttMs;
  return node.receive(`${target}:1`, encodePacket([{ type: 'ack', seq: ping.seq, payload }]));
}

const ackWith = (coordinate: Coordinate) => encodeSwimAckPayload({ protocol: RANGE, coordinate });

describe('coordinates on direct acks (serf ping_delegate.go NotifyPingComplete)', () => {
  it('a direct ack moves our coordinate by its RTT, as a Vivaldi client fed the same sample, and caches the peer\'s', () => {
    const node = new LoneCore({});
    node.introduce('b');
    const before = node.core.coordinate();
    expect(before).toEqual(newCoordinate(DEFAULT_VIVALDI_CONFIG));
    const peer = at({ 0: 0.01, 3: -0.004 });
    answerProbe(node, 'b', ackWith(peer), 20);

    const reference = new VivaldiClient({ rng: createRng(99) }); // the peer is not at our point: no random draw
    const expected = reference.update('b', peer, 0.02);
    expect(expected.kind).toBe('updated');
    expect(node.core.coordinate()).toEqual(reference.coordinate());
    expect(node.core.coordinateOf('b')).toEqual(peer);
    expect(node.core.coordinateOf('me')).toBe(node.core.coordinate()); // ours under our own name, as Serf caches it
    expect(node.core.estimateRtt('b')).toBe(reference.distanceTo(peer)! * 1000);
    expect(node.core.estimateRtt('b', 'me')).toBeCloseTo(node.core.estimateRtt('me', 'b')!, 9);
    expect(node.core.counters).toMatchObject({ coordinateUpdates: 1, coordinatesRejected: 0 });
  });

  it.each([
    ['NaN in vec', at({ 0: Number.NaN })],
    ['+Infinity height', at({ 0: 0.01 }, { height: Number.POSITIVE_INFINITY })],
    ['4 dimensions', at({ 0: 0.01 }, {}, 4)],
    ['a huge vec, 1e300 s', at({ 0: 1e300 })],
    ['a vec 50 s out', at({ 0: 30, 1: 40 })],
    ['a negative error', at({ 0: 0.01 }, { error: -1 })],
  ])('a forged coordinate (%s) is refused and counted: ours, and the cache, unchanged', (_name, forged) => {
    const node = new LoneCore({});
    node.introduce('b', 'c');
    answerProbe(node, 'c', ackWith(at({ 1: 0.005 })), 6);
    const settled = node.core.coordinate();
    for (let i = 0; i < 3; i++) answerProbe(node, 'b', ackWith(forged), 10);
    expect(node.core.coordinate()).toBe(settled);
    expect(node.core.coordinateOf('b')).toBeUndefined();
    expect(node.core.estimateRtt('b')).toBeUndefined();
    expect(node.core.counters).toMatchObject({ coordinateUpdates: 1, coordinatesRejected: 3, coordinateResets: 0 });
    expect(node.core.member('b')?.state).toBe('alive'); // coordinates never touch membership
  });

  it('an unreadable coordinate is counted as refused; an ack with none (a member before coordinates) changes nothing', () => {
    const node = new LoneCore({});
    node.introduce('b');
    answerProbe(node, 'b', Uint8Array.of(0x93, 1, 2, 0xa1, 0x78), 10);
    answerProbe(node, 'b', Uint8Array.of(0x92, 1, 2), 10);
    answerProbe(node, 'b', new Uint8Array(0), 10);
    expect(node.core.counters).toMatchObject({ coordinateUpdates: 0, coordinatesRejected: 1 });
    expect(node.core.coordinate()).toEqual(newCoordinate(DEFAULT_VIVALDI_CONFIG));
  });

  it('an RTT above 10 s is refused (serf client.go Update), with probe timeouts long enough to see one', () => {
    const node = new LoneCore({ probeIntervalMs: 60_000, probeTimeoutMs: 20_000, adaptiveTimeoutCeilingMs: 20_000 });
    node.introduce('b');
    answerProbe(node, 'b', ackWith(at({ 0: 0.01 })), 12_000);
    expect(node.core.counters).toMatchObject({ coordinateUpdates: 0, coordinatesRejected: 1 });
  });

  it('a direct ack after the probe timeout is no sample (memberlist calls NotifyPingComplete only within it)', () => {
    const node = new LoneCore({});
    node.introduce('b');
    answerProbe(node, 'b', ackWith(at({ 0: 0.01 })), 700); // lan probe timeout 500 ms
    expect(node.core.counters.coordinateUpdates).toBe(0);
    expect(node.core.member('b')?.state).toBe('alive');
  });

  it('our direct ack carries our coordinate to a member, only our range to a stranger (no amplification)', () => {
    const node = new LoneCore({});
    node.introduce('b');
    answerProbe(node, 'b', ackWith(at({ 0: 0.01 })), 20);
    const ackPayloadTo = (from: string): Uint8Array => {
      const ping = encodePacket([{ type: 'ping', seq: 7, target: 'me', sourceName: from.split(':')[0]!, sourceAddress: from }]);
      const sent = node.receive(from, ping).find((e) => e.type === 'send-packet' && e.to === from);
      if (sent?.type !== 'send-packet') throw new Error('no ack');
      const decoded = decodePacket(sent.bytes);
      const ack = decoded.ok ? decoded.messages.find((m) => m.type === 'ack') : undefined;
      if (ack?.type !== 'ack') throw new Error('no ack');
      return ack.payload;
    };
    expect(decodeSwimAckPayload(ackPayloadTo('b:1'))).toEqual({ protocol: RANGE, coordinate: node.core.coordinate() });
    expect(decodeSwimAckPayload(ackPayloadTo('stranger:1'))).toEqual({ protocol: RANGE });
  });

  it('coordinates: false sends the range alone, ignores peers\' coordinates, and has no coordinate', () => {
    const node = new LoneCore({ coordinates: false });
    node.introduce('b');
    answerProbe(node, 'b', ackWith(at({ 0: 0.01 })), 20);
    expect(node.core.coordinate()).toBeUndefined();
    expect(node.core.coordinateOf('b')).toBeUndefined();
    expect(node.core.estimateRtt('b')).toBeUndefined();
    expect(node.core.counters).toMatchObject({ coordinateUpdates: 0, coordinatesRejected: 0 });
    const sent = node.receive('b:1', encodePacket([{ type: 'ping', seq: 3, target: 'me', sourceName: 'b', sourceAddress: 'b:1' }]));
    const packet = sent.find((e) => e.type === 'send-packet');
    const decoded = packet?.type === 'send-packet' ? decodePacket(packet.bytes) : undefined;
    const ack = decoded?.ok ? decoded.messages[0] : undefined;
    expect(ack?.type === 'ack' ? [...ack.payload] : undefined).toEqual([0x92, 1, 2]);
  });

  it('validates the switch and the Vivaldi config with the rest, every problem at once', () => {
    const make = () =>
      new SwimCore({
        name: 'me',
        address: 'me:1',
        seed: 1,
        now: 0,
        config: { coordinates: 'yes' as unknown as boolean },
        vivaldi: { dimensionality: 0, vivaldiCC: 2 },
      });
    expect(make).toThrow(ConfigError);
    try {
      make();
    } catch (error) {
      const problems = (error as ConfigError).problems;
      expect(problems).toHaveLength(3);
      expect(problems[0]).toBe('coordinates must be a boolean, got "yes"');
      expect(problems[1]).toMatch(/^vivaldi: dimensionality/);
      expect(problems[2]).toMatch(/^vivaldi: vivaldiCC/);
    }
  });

  it('a Vivaldi config of our own is used: 3 dimensions', () => {
    const core = new SwimCore({ name: 'me', address: 'me:1', seed: 1, now: 0, vivaldi: { dimensionality: 3 } });
    expect(core.coordinate()?.vec).toHaveLength(3);
  });
});

describe('coordinates in a cluster (core harness)', () => {
  it('converge to the simulated RTT, and a reaped member is forgotten (Serf handleReap)', () => {
    const seed = 7;
    // One-way latency 5 ms: every RTT is 10 ms.
    const cluster = new Cluster({ seed, latencyMs: [5, 5], config: { gossipToTheDeadMs: 5_000 } });
    const names = ['a', 'b', 'c', 'd'];
    for (const name of names) cluster.add(name);
    for (const name of names.slice(1)) cluster.join(name, ['a']);
    cluster.run(90_000);
    for (const x of names) {
      for (const y of names) {
        if (x === y) continue;
        const estimate = cluster.node(x).core.estimateRtt(y);
        expect(estimate, `${x} -> ${y} (seed ${seed})`).toBeGreaterThan(8);
        expect(estimate, `${x} -> ${y} (seed ${seed})`).toBeLessThan(12);
      }
    }
    const a = cluster.node('a').core;
    expect(a.counters.coordinateUpdates).toBeGreaterThan(50);
    expect(a.coordinate()!.error).toBeLessThan(0.5);
    cluster.crash('d');
    cluster.runUntil(() => a.member('d') === undefined, 60_000);
    expect(a.coordinateOf('d')).toBeUndefined();
    expect(a.estimateRtt('d')).toBeUndefined();
  });
});
