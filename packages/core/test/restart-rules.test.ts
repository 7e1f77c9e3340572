import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, memberlistProfile, presets, SwimCore, type Effect, type Message, type SwimConfig } from '../src/index.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * What a member does when a restarted peer comes back below what it holds about it
 * (docs/restarts.md): the rules behind answerStaleAlive, answerAccusedPingers,
 * regossipStaleAccusation and relayUnknownAccusations, and memberlist's behaviour in
 * memberlistProfile (aliveNode drops a stale alive, handlePing only acks, suspectNode and
 * deadNode drop news about unknown members).
 */
const defaults = presets.lan();
const memberlist = memberlistProfile(presets.lan());
const EMPTY = new Uint8Array(0);

const alive = (node: string, incarnation: number): Message => ({ type: 'alive', incarnation, node, address: `${node}:1`, meta: EMPTY });
const dead = (node: string, incarnation: number, from: string): Message => ({ type: 'dead', incarnation, node, from });
const ping = (source: string): Message => ({ type: 'ping', seq: 7, target: 'me', sourceName: source, sourceAddress: `${source}:1` });

/** The messages of the packets among `effects` sent to `to`. */
function sentTo(effects: readonly Effect[], to: string): Message[] {
  const out: Message[] = [];
  for (const e of effects) {
    if (e.type !== 'send-packet' || e.to !== to) continue;
    const decoded = decodePacket(e.bytes);
    if (decoded.ok) out.push(...decoded.messages);
  }
  return out;
}

/** Accusations `me` makes itself (not gossip it relays). */
function ours(messages: readonly Message[]): Message[] {
  return messages.filter((m) => 'from' in m && m.from === 'me');
}

function accusationsAbout(messages: readonly Message[], node: string): Message[] {
  return messages.filter((m) => (m.type === 'dead' || m.type === 'suspect') && m.node === node);
}

/** `me` knowing b, c and d, with b declared dead at `incarnation` by c. */
function holdingBDead(config: SwimConfig, incarnation = 1): LoneCore {
  const node = new LoneCore({ ...config, gossipIntervalMs: 0 });
  node.introduce('b', 'c', 'd');
  node.receive('c:1', encodePacket([dead('b', incarnation, 'c')]));
  expect(node.core.member('b')?.state).toBe('dead');
  return node;
}

describe('answerStaleAlive: a stale alive about a member held dead or left', () => {
  it.each([
    ['relayed by another member', 'c:1'],
    ['from the member itself', 'b:1'],
  ])('is answered with the accusation, sent to the member (%s)', (_, from) => {
    const node = holdingBDead(defaults, 3);
    const effects = node.receive(from, encodePacket([alive('b', 1)]));
    expect(accusationsAbout(sentTo(effects, 'b:1'), 'b')).toEqual([dead('b', 3, 'me')]);
    expect(node.core.member('b')?.state, 'the alive is still stale').toBe('dead');
    expect(node.core.counters.staleAlivesAnswered).toBe(1);
  });

  it('at most once per probe interval per member', () => {
    const node = holdingBDead(defaults);
    expect(accusationsAbout(sentTo(node.receive('c:1', encodePacket([alive('b', 1)])), 'b:1'), 'b')).toHaveLength(1);
    node.now += defaults.probeIntervalMs - 1;
    expect(accusationsAbout(sentTo(node.receive('d:1', encodePacket([alive('b', 1)])), 'b:1'), 'b')).toHaveLength(0);
    node.now += 1;
    expect(accusationsAbout(sentTo(node.receive('d:1', encodePacket([alive('b', 1)])), 'b:1'), 'b')).toHaveLength(1);
  });

  it('a member that left is sent its own leave (a dead message from itself)', () => {
    const node = new LoneCore({ ...defaults, gossipIntervalMs: 0 });
    node.introduce('b', 'c');
    node.receive('b:1', encodePacket([dead('b', 2, 'b')]));
    expect(node.core.member('b')?.state).toBe('left');
    expect(accusationsAbout(sentTo(node.receive('c:1', encodePacket([alive('b', 2)])), 'b:1'), 'b')).toEqual([dead('b', 2, 'b')]);
  });

  it('an alive that overrides the death, or about a member held alive or suspect, is not answered', () => {
    const node = holdingBDead(defaults, 3);
    expect(accusationsAbout(sentTo(node.receive('c:1', encodePacket([alive('b', 4)])), 'b:1'), 'b')).toEqual([]);
    expect(node.core.member('b')?.state).toBe('alive');
    expect(accusationsAbout(sentTo(node.receive('c:1', encodePacket([alive('c', 1)])), 'c:1'), 'c')).toEqual([]);
    expect(node.core.counters.staleAlivesAnswered).toBe(0);
  });

  it('memberlistProfile keeps memberlist aliveNode: the stale alive is dropped, nothing is sent', () => {
    const node = holdingBDead(memberlist, 3);
    const effects = node.receive('c:1', encodePacket([alive('b', 1)]));
    expect(accusationsAbout(sentTo(effects, 'b:1'), 'b')).toEqual([]);
    node.advance(node.now + 5_000);
    expect(node.log.some((e) => accusationsAbout(sentTo([e.effect], 'b:1'), 'b').length > 0)).toBe(false);
    expect(node.core.counters.staleAlivesAnswered).toBe(0);
  });
});

describe('answerAccusedPingers: a ping from a member held suspect, dead or left', () => {
  it('is acked and answered with the death', () => {
    const node = holdingBDead(defaults, 2);
    const messages = sentTo(node.receive('b:1', encodePacket([ping('b')])), 'b:1');
    expect(messages.some((m) => m.type === 'ack')).toBe(true);
    // Ours, beside c's accusation still queued for gossip and piggybacked on the ack.
    expect(ours(accusationsAbout(messages, 'b'))).toEqual([dead('b', 2, 'me')]);
    expect(node.core.counters.accusedPingersAnswered).toBe(1);
  });

  it('is answered with the suspicion of a suspect', () => {
    const node = new LoneCore({ ...defaults, gossipIntervalMs: 0 });
    node.introduce('b', 'c');
    node.receive('c:1', encodePacket([{ type: 'suspect', incarnation: 2, node: 'b', from: 'c' }]));
    expect(ours(accusationsAbout(sentTo(node.receive('b:1', encodePacket([ping('b')])), 'b:1'), 'b'))).toEqual([{ type: 'suspect', incarnation: 2, node: 'b', from: 'me' }]);
  });

  it('not for a member held alive, nor for a ping from another address than the one held', () => {
    const node = holdingBDead(defaults);
    expect(accusationsAbout(sentTo(node.receive('c:1', encodePacket([ping('c')])), 'c:1'), 'c')).toEqual([]);
    const forged = node.receive('x:9', encodePacket([{ ...ping('b'), sourceAddress: 'x:9' } as Message]));
    expect(accusationsAbout(sentTo(forged, 'x:9'), 'b')).toEqual([]);
    expect(accusationsAbout(sentTo(forged, 'b:1'), 'b')).toEqual([]);
  });

  it('memberlistProfile keeps memberlist handlePing: only the ack (with whatever gossip is queued)', () => {
    const node = holdingBDead(memberlist);
    const messages = sentTo(node.receive('b:1', encodePacket([ping('b')])), 'b:1');
    expect(messages.map((m) => m.type)).toContain('ack');
    expect(ours(accusationsAbout(messages, 'b'))).toEqual([]);
    expect(node.core.counters.accusedPingersAnswered).toBe(0);
  });
});

/** Every dissemination packet `node` sends within `ms`, to anyone (gossip ticks on). */
function gossipedWithin(node: LoneCore, ms: number): Message[] {
  const from = node.log.length;
  node.advance(node.now + ms);
  return node.log.slice(from).flatMap((e) => (e.effect.type === 'send-packet' ? sentTo([e.effect], e.effect.to) : []));
}

describe("memberlist PR #345's rules (options, off in every preset)", () => {
  it('regossipStaleAccusation queues the death again on a stale alive', () => {
    const on = new LoneCore({ ...defaults, answerStaleAlive: false, regossipStaleAccusation: true });
    on.introduce('b', 'c', 'd');
    on.receive('c:1', encodePacket([dead('b', 1, 'c')]));
    gossipedWithin(on, 20_000); // the death's own retransmits run out
    on.receive('c:1', encodePacket([alive('b', 1)]));
    expect(accusationsAbout(gossipedWithin(on, 5_000), 'b').length).toBeGreaterThan(0);

    const off = new LoneCore({ ...defaults, answerStaleAlive: false });
    off.introduce('b', 'c', 'd');
    off.receive('c:1', encodePacket([dead('b', 1, 'c')]));
    gossipedWithin(off, 20_000);
    off.receive('c:1', encodePacket([alive('b', 1)]));
    expect(accusationsAbout(gossipedWithin(off, 5_000), 'b')).toEqual([]);
  });

  it('relayUnknownAccusations gossips on an accusation about a member we do not know, without adding it', () => {
    for (const [config, relayed] of [
      [{ ...defaults, relayUnknownAccusations: true }, true],
      [defaults, false],
      [memberlist, false],
    ] as const) {
      const node = new LoneCore(config);
      node.introduce('c', 'd');
      node.receive('c:1', encodePacket([dead('zz', 4, 'c')]));
      expect(node.core.member('zz')).toBeUndefined();
      expect(accusationsAbout(gossipedWithin(node, 5_000), 'zz').length > 0, `relayUnknownAccusations ${config.relayUnknownAccusations}`).toBe(relayed);
    }
  });

  it('relayUnknownAccusations is bounded per source address per probe interval', () => {
    const node = new LoneCore({ ...defaults, relayUnknownAccusations: true, maxNewMembersPerSource: 2 });
    node.introduce('c', 'd');
    node.receive('c:1', encodePacket([1, 2, 3, 4, 5].map((i) => dead(`u${i}`, 1, 'c'))));
    expect(node.core.counters.unknownAccusationsRelayed).toBe(2);
  });
});

describe('the restarted member', () => {
  it('refutes at N + 1 when a push-pull answer holds it dead at N', () => {
    const core = new SwimCore({ name: 'me', address: 'me:1', config: defaults, seed: 3, now: 0 });
    expect(core.incarnation).toBe(1);
    const effects = core.join(['b:1'], 1, 0);
    const request = effects.find((e) => e.type === 'stream-request');
    if (request?.type !== 'stream-request') throw new Error('no join stream');
    const reply = encodePacket([
      {
        type: 'push-pull',
        join: true,
        members: [
          { name: 'b', address: 'b:1', meta: EMPTY, incarnation: 1, state: 'alive' },
          { name: 'me', address: 'me:1', meta: EMPTY, incarnation: 41, state: 'dead' },
        ],
        userState: EMPTY,
      },
    ]);
    core.step({ type: 'stream-response', requestId: request.requestId, bytes: reply }, 1);
    expect(core.incarnation).toBe(42);
    expect(core.counters.refutations).toBe(1);
  });

  it('refutes the accusation a stale-alive answer carries, and answers its sender with the new alive', () => {
    const core = new SwimCore({ name: 'b', address: 'b:1', config: defaults, seed: 4, now: 0 });
    const effects = core.receivePacket('me:1', encodePacket([dead('b', 3, 'me')]), 10);
    expect(core.incarnation).toBe(4);
    const direct = sentTo(effects, 'me:1').filter((m) => m.type === 'alive');
    expect(direct).toEqual([{ type: 'alive', incarnation: 4, node: 'b', address: 'b:1', meta: EMPTY }]);
  });
});
