import { describe, expect, it } from 'vitest';
import { ConfigError, decodePacket, encodePacket, SwimCore, type Effect } from '../src/index.js';
import { Cluster } from './harness/cluster.js';
import { LoneCore } from './harness/lone-core.js';

const bytes = (...values: number[]) => new Uint8Array(values);

function startCluster(n: number, seed: number, config = {}): Cluster {
  const cluster = new Cluster({ seed, config });
  for (let i = 0; i < n; i++) cluster.add(`n${i}`);
  for (let i = 1; i < n; i++) cluster.join(`n${i}`, ['n0']);
  cluster.runUntil(() => cluster.live().every((node) => node.core.members().length === n), 30_000);
  return cluster;
}

function userMessages(cluster: Cluster, name: string) {
  return cluster.node(name).effects.flatMap((e) => (e.effect.type === 'user-message' ? [e.effect] : []));
}

describe('user surface', () => {
  it.each([1, 2])('new metadata reaches everyone at a higher incarnation (seed %i)', (seed) => {
    const cluster = startCluster(8, seed);
    const effects = cluster.perform('n4', (core, now) => core.updateMeta(bytes(7, 7), now));
    expect(effects.some((e) => e.type === 'member' && e.event === 'update')).toBe(true);
    cluster.runUntil(() => cluster.live().every((n) => n.core.member('n4')?.meta[0] === 7), 20_000);
    for (const node of cluster.live()) {
      expect(node.core.member('n4')!.incarnation, `seed ${seed}`).toBe(2);
      if (node.name !== 'n4') expect(node.events.some((e) => e.effect.event === 'update' && e.effect.member.name === 'n4')).toBe(true);
    }
  });

  it('rejects metadata above metaMaxBytes', () => {
    const core = new SwimCore({ name: 'a', address: 'a:1', seed: 1, now: 0, config: { metaMaxBytes: 4 } });
    expect(() => core.updateMeta(new Uint8Array(5), 0)).toThrow(/at most 4/);
  });

  it.each([1, 2])('a user broadcast reaches every member once; a newer version of the key replaces it (seed %i)', (seed) => {
    const cluster = startCluster(12, seed);
    cluster.perform('n2', (core, now) => core.broadcast('config', bytes(1), now));
    cluster.runUntil(() => cluster.live().every((n) => n.name === 'n2' || userMessages(cluster, n.name).length === 1), 20_000);
    cluster.perform('n9', (core, now) => core.broadcast('config', bytes(2), now));
    cluster.runUntil(() => cluster.live().every((n) => n.name === 'n9' || userMessages(cluster, n.name).some((m) => m.payload[0] === 2)), 20_000);
    cluster.run(10_000);
    for (const node of cluster.live()) {
      const got = userMessages(cluster, node.name).map((m) => `${m.key}:${m.payload[0]}`);
      const expected = node.name === 'n2' ? ['config:2'] : node.name === 'n9' ? ['config:1'] : ['config:1', 'config:2'];
      expect(got, `seed ${seed}, ${node.name}`).toEqual(expected);
    }
  });

  it('user messages to one member arrive over a packet and over a stream', () => {
    const cluster = startCluster(4, 3);
    expect(cluster.perform('n0', (core, now) => core.sendUser('n3', bytes(2), false, now)).map((e) => e.type)).toEqual(['send-packet']);
    expect(cluster.perform('n0', (core, now) => core.sendUser('n3', bytes(3), true, now)).map((e) => e.type)).toEqual(['stream-request']);
    cluster.run(1_000);
    // Either may arrive first: latencies are random.
    expect(userMessages(cluster, 'n3').map((m) => [m.from, m.payload[0], m.key]).sort()).toEqual([
      ['n0', 2, undefined],
      ['n0', 3, undefined],
    ]);
    expect(() => cluster.node('n0').core.sendUser('nobody', bytes(1), false, cluster.now)).toThrow(/unknown member/);
    expect(() => cluster.node('n0').core.sendUser('n3', new Uint8Array(2_000), false, cluster.now)).toThrow(/send it reliably/);
  });
});

describe('failure detection details', () => {
  it.each([1, 2])('a member reachable only over streams is not suspected thanks to the fallback ping (seed %i)', (seed) => {
    const cluster = startCluster(8, seed);
    cluster.blockPackets('n5');
    cluster.run(60_000);
    const accused = cluster.live().flatMap((n) => n.events.filter((e) => e.effect.member.name === 'n5' && e.effect.event !== 'join'));
    expect(accused, `seed ${seed}`).toEqual([]);
    const fallbacks = cluster.live().reduce((sum, n) => sum + n.core.counters.fallbackPings, 0);
    expect(fallbacks, `seed ${seed}`).toBeGreaterThan(0);
  });

  it.each([1, 2])('without the fallback ping the same member is declared dead (seed %i)', (seed) => {
    const cluster = startCluster(8, seed, { fallbackStreamPing: false });
    cluster.blockPackets('n5');
    cluster.runUntil(() => cluster.live().some((n) => cluster.stateOf(n.name, 'n5') === 'dead'), 60_000);
  });

  it.each([1, 2])('helpers nack when the target is silent, and a dead member is reaped after gossipToTheDeadMs (seed %i)', (seed) => {
    const cluster = startCluster(8, seed);
    cluster.crash('n6');
    cluster.runUntil(() => cluster.live().every((n) => n.name === 'n6' || cluster.stateOf(n.name, 'n6') === 'dead'), 60_000);
    const nacks = cluster.live().reduce((sum, n) => sum + n.core.counters.nacksReceived, 0);
    expect(nacks, `seed ${seed}`).toBeGreaterThan(0);
    // 30 s of retention, then the next end of a probe pass removes it.
    cluster.runUntil(() => cluster.live().every((n) => n.name === 'n6' || cluster.stateOf(n.name, 'n6') === undefined), 60_000);
  });

  it('the same name from another address is reported as a conflict and changes nothing', () => {
    const node = new LoneCore({});
    node.introduce('b');
    const effects = node.receive('evil:1', encodePacket([{ type: 'alive', incarnation: 9, node: 'b', address: 'evil:1', meta: bytes() }]));
    expect(effects).toContainEqual({ type: 'conflict', name: 'b', existingAddress: 'b:1', otherAddress: 'evil:1' });
    expect(node.core.member('b')).toMatchObject({ address: 'b:1', incarnation: 1, state: 'alive' });
  });
});

describe('anti-entropy', () => {
  it('a remote "dead" is merged as a suspicion, a remote "left" as left (memberlist mergeState)', () => {
    const node = new LoneCore({});
    node.introduce('b', 'c');
    const effects = node.core.join(['seed:1'], 1, 0);
    const request = effects.find((e): e is Extract<Effect, { type: 'stream-request' }> => e.type === 'stream-request')!;
    expect(request.purpose).toBe('join');
    const reply = encodePacket([
      {
        type: 'push-pull',
        join: true,
        members: [
          { name: 'b', address: 'b:1', meta: bytes(), incarnation: 1, state: 'dead' },
          { name: 'c', address: 'c:1', meta: bytes(), incarnation: 1, state: 'left' },
          { name: 'd', address: 'd:1', meta: bytes(), incarnation: 3, state: 'alive' },
        ],
        userState: bytes(42),
      },
    ]);
    const after = node.core.step({ type: 'stream-response', requestId: request.requestId, bytes: reply }, 0);
    expect(node.core.member('b')!.state).toBe('suspect');
    expect(node.core.member('c')!.state).toBe('left');
    expect(node.core.member('d')).toMatchObject({ state: 'alive', incarnation: 3 });
    expect(after).toContainEqual({ type: 'user-state', from: 'seed:1', state: bytes(42), join: true });
    expect(after).toContainEqual({ type: 'join-finished', joinId: 1, contacted: ['seed:1'], failed: [] });
  });

  it('answers a push-pull with its own state first, including itself', () => {
    const node = new LoneCore({});
    node.introduce('b');
    const request = encodePacket([{ type: 'push-pull', join: false, members: [], userState: bytes() }]);
    const effects = node.core.receiveStream(9, 'b:1', request, 0);
    const reply = effects.find((e) => e.type === 'stream-reply');
    expect(reply).toBeDefined();
    const decoded = decodePacket((reply as { bytes: Uint8Array }).bytes);
    expect(decoded.ok && decoded.messages[0]?.type === 'push-pull' && decoded.messages[0].members.map((m) => m.name).sort()).toEqual(['b', 'me']);
  });

  it('reports failed seeds in join-finished', () => {
    const node = new LoneCore({});
    const effects = node.core.join(['x:1'], 4, 0);
    const request = effects.find((e): e is Extract<Effect, { type: 'stream-request' }> => e.type === 'stream-request')!;
    expect(node.core.step({ type: 'stream-failed', requestId: request.requestId, reason: 'refused' }, 0)).toContainEqual({
      type: 'join-finished',
      joinId: 4,
      contacted: [],
      failed: [{ address: 'x:1', reason: 'refused' }],
    });
  });
});

describe('bad input', () => {
  it('a malformed packet is counted and dropped, with no state change', () => {
    const node = new LoneCore({});
    node.introduce('b');
    const before = node.core.allMembers();
    for (const garbage of [bytes(), bytes(1), bytes(1, 0xc1), bytes(99, 1, 2, 3), bytes(1, 0x93, 4)]) {
      const effects = node.core.receivePacket('b:1', garbage, 0);
      expect(effects.map((e) => e.type)).toEqual(['decode-error']);
    }
    expect(node.core.counters.decodeErrors).toBe(5);
    expect(node.core.allMembers()).toEqual(before);
  });

  it('a malformed stream request gets an error reply, not a crash', () => {
    const node = new LoneCore({});
    const effects = node.core.receiveStream(3, 'b:1', bytes(1, 0xff, 0xff), 0);
    expect(effects.map((e) => e.type)).toEqual(['decode-error', 'stream-reply']);
    const reply = effects[1] as { bytes: Uint8Array };
    const decoded = decodePacket(reply.bytes);
    expect(decoded.ok && decoded.messages[0]?.type).toBe('error');
  });

  it('invalid options fail at construction with every problem listed', () => {
    let error: unknown;
    try {
      new SwimCore({ name: '', address: '', now: Number.NaN, config: { probeIntervalMs: -1, gossipNodes: 1.5 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.length).toBeGreaterThanOrEqual(5);
    expect(problems.join('\n')).toMatch(/probeIntervalMs/);
    expect(problems.join('\n')).toMatch(/gossipNodes/);
    expect(problems.join('\n')).toMatch(/name/);
    expect(problems.join('\n')).toMatch(/address/);
    expect(problems.join('\n')).toMatch(/seed or rng/);
  });
});

describe('leave', () => {
  it.each([1, 2, 3])('sends the leave at once to gossipNodes members, not only at the next gossip tick (seed %i)', (seed) => {
    const lone = new LoneCore({}, seed);
    lone.introduce('a', 'b', 'c', 'd', 'e');
    const effects = lone.core.leave(lone.now);
    const sent = effects.filter((e): e is Extract<Effect, { type: 'send-packet' }> => e.type === 'send-packet');
    const leaves = sent.filter((e) => {
      const decoded = decodePacket(e.bytes);
      return decoded.ok && decoded.messages.some((m) => m.type === 'dead' && m.node === 'me' && m.from === 'me');
    });
    expect(new Set(leaves.map((e) => e.to)).size, `seed ${seed}`).toBe(3); // LAN gossipNodes
  });
});
