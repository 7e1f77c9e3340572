import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, memberlistProfile, presets, type Effect, type Message, type SwimConfig } from '../src/index.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * A member reaped after its death is remembered (docs/restarts.md): found by the real-agent soak
 * (docs/endurance.md), where a member paused through soak-12's death and reap, and another
 * restored from a snapshot taken before it, brought soak-12 back at the incarnation it died at. Every
 * member joined it, suspected it again, and that zombie's suspicion fired 0.3 s after the real
 * process restarted: five death verdicts about a member that had just come back.
 */
const defaults = presets.lan();
const EMPTY = new Uint8Array(0);
const alive = (node: string, incarnation: number, address = `${node}:1`): Message => ({ type: 'alive', incarnation, node, address, meta: EMPTY });

/** Every ping but those to b is acked: c and d stay alive, b is gone. */
function network(effect: Effect, node: LoneCore): void {
  if (effect.type !== 'send-packet' || effect.to === 'b:1') return;
  const decoded = decodePacket(effect.bytes);
  if (!decoded.ok) return;
  for (const m of decoded.messages) if (m.type === 'ping') node.receive(effect.to, encodePacket([{ type: 'ack', seq: m.seq, payload: EMPTY }]));
}

function sentTo(effects: readonly Effect[], to: string): Message[] {
  return effects.flatMap((e) => {
    if (e.type !== 'send-packet' || e.to !== to) return [];
    const decoded = decodePacket(e.bytes);
    return decoded.ok ? decoded.messages : [];
  });
}

/** `me` with c and d, and b declared dead at incarnation 3 (by c) and reaped. */
function afterReap(config: SwimConfig): LoneCore {
  const node = new LoneCore({ ...config, gossipIntervalMs: 0, pushPullIntervalMs: 0, reconnectIntervalMs: 0 });
  node.introduce('b', 'c', 'd');
  node.receive('b:1', encodePacket([alive('b', 3)]));
  node.receive('c:1', encodePacket([{ type: 'dead', incarnation: 3, node: 'b', from: 'c' }]));
  expect(node.core.member('b')?.state).toBe('dead');
  node.advance(node.now + config.gossipToTheDeadMs + 5 * config.probeIntervalMs, network);
  expect(node.core.member('b'), 'reaped').toBeUndefined();
  return node;
}

function joinsOfB(node: LoneCore): number {
  return node.memberEvents().filter((e) => e.effect.event === 'join' && e.effect.member.name === 'b').length;
}

describe('tombstones: a reaped death is not undone by a stale view', () => {
  it('an alive at the incarnation b died at, from its old address, is not taken back in; b is told its death', () => {
    const node = afterReap(defaults);
    const joins = joinsOfB(node);
    // d was paused through b's death (or restored from an old snapshot) and passes b on.
    const effects = node.receive('d:1', encodePacket([alive('b', 3)]));
    expect(node.core.member('b')).toBeUndefined();
    expect(joinsOfB(node)).toBe(joins);
    expect(node.core.counters.reapedAlivesRefused).toBe(1);
    expect(sentTo(effects, 'b:1')).toEqual([{ type: 'dead', incarnation: 3, node: 'b', from: 'me' }]);
  });

  it('a lower incarnation (a restart at 1) is stale too; the refutation above the death brings b back', () => {
    const node = afterReap(defaults);
    node.receive('b:1', encodePacket([alive('b', 1)]));
    expect(node.core.member('b')).toBeUndefined();
    // b, running again, refutes the death it was told.
    node.receive('b:1', encodePacket([alive('b', 4)]));
    expect(node.core.member('b')).toMatchObject({ state: 'alive', incarnation: 4 });
  });

  it('tells the address at most once per probe interval, however many stale copies arrive', () => {
    const node = afterReap(defaults);
    let told = 0;
    for (let i = 0; i < 10; i++) told += sentTo(node.receive('d:1', encodePacket([alive('b', 3)])), 'b:1').length;
    expect(told).toBe(1);
    expect(node.core.counters.reapedAlivesRefused).toBe(10);
  });

  it('another address claiming the name is not held back by the tombstone', () => {
    const node = afterReap(defaults);
    node.receive('e:1', encodePacket([alive('b', 1, 'e:1')]));
    expect(node.core.member('b')).toMatchObject({ state: 'alive', address: 'e:1' });
  });

  it('is forgotten after reconnectTimeoutMs', () => {
    const config = { ...defaults, reconnectTimeoutMs: 60_000 };
    const node = afterReap(config);
    node.advance(node.now + 60_000, network);
    node.receive('d:1', encodePacket([alive('b', 3)]));
    expect(node.core.member('b')?.state).toBe('alive');
  });

  it('a member reaped after its leave is held the same way, and told its own leave', () => {
    const node = new LoneCore({ ...defaults, gossipIntervalMs: 0, pushPullIntervalMs: 0, reconnectIntervalMs: 0 });
    node.introduce('b', 'c', 'd');
    node.receive('b:1', encodePacket([{ type: 'dead', incarnation: 1, node: 'b', from: 'b' }]));
    expect(node.core.member('b')?.state).toBe('left');
    node.advance(node.now + defaults.gossipToTheDeadMs + 5 * defaults.probeIntervalMs, network);
    expect(node.core.member('b'), 'reaped').toBeUndefined();
    const effects = node.receive('d:1', encodePacket([alive('b', 1)]));
    expect(node.core.member('b')).toBeUndefined();
    expect(sentTo(effects, 'b:1')).toEqual([{ type: 'dead', incarnation: 1, node: 'b', from: 'b' }]);
  });

  it('memberlistProfile takes the dead member back in, as memberlist aliveNode does once it forgot it', () => {
    const node = afterReap(memberlistProfile(defaults));
    node.receive('d:1', encodePacket([alive('b', 3)]));
    expect(node.core.member('b')).toMatchObject({ state: 'alive', incarnation: 3 });
  });
});
