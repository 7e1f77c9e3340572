import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, presets, type Effect, type Message, type SwimConfig } from '../src/index.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * The `force-leave` input (Serf RemoveFailedNode / handleNodeLeaveIntent, `serf force-leave`): a
 * failed member is marked left, so that nobody reconnects to it; alive and suspect members are
 * not touched; the leave is gossiped as the member's own (a dead message from itself).
 */
const defaults = presets.lan();
const EMPTY = new Uint8Array(0);
const alive = (node: string, incarnation: number, address = `${node}:1`): Message => ({ type: 'alive', incarnation, node, address, meta: EMPTY });
const deadBy = (node: string, incarnation: number, from: string): Message => ({ type: 'dead', incarnation, node, from });

/** Every ping but those to b is acked: c and d stay alive, b is gone. */
function network(effect: Effect, node: LoneCore): void {
  if (effect.type !== 'send-packet' || effect.to === 'b:1') return;
  const decoded = decodePacket(effect.bytes);
  if (!decoded.ok) return;
  for (const m of decoded.messages) if (m.type === 'ping') node.receive(effect.to, encodePacket([{ type: 'ack', seq: m.seq, payload: EMPTY }]));
}

/** Every message the effects send, decoded. */
function sent(effects: readonly Effect[]): Message[] {
  return effects.flatMap((e) => {
    if (e.type !== 'send-packet') return [];
    const decoded = decodePacket(e.bytes);
    return decoded.ok ? decoded.messages : [];
  });
}

/** `me` with b, c and d; b declared dead at incarnation 3 by c. */
function withDeadB(config: Partial<SwimConfig> = {}): LoneCore {
  const node = new LoneCore({ pushPullIntervalMs: 0, ...config });
  node.introduce('b', 'c', 'd');
  node.receive('b:1', encodePacket([alive('b', 3)]));
  node.receive('c:1', encodePacket([deadBy('b', 3, 'c')]));
  expect(node.core.member('b')?.state).toBe('dead');
  return node;
}

/** Force-leave through the node, its effects logged as the harness logs the others'. */
function forceLeave(node: LoneCore, name: string, options: { prune?: boolean } = {}): Effect[] {
  const effects = node.core.forceLeave(name, options, node.now);
  for (const effect of effects) node.log.push({ at: node.now, effect });
  return effects;
}

const eventsAbout = (node: LoneCore, name: string) =>
  node.memberEvents().filter((e) => e.effect.member.name === name).map((e) => `${e.effect.previous ?? '-'}>${e.effect.event}`);

describe('force-leave of a failed member', () => {
  it('marks it left with a left event, drops it from the reconnect candidates and gossips its leave', () => {
    const node = withDeadB();
    expect(node.core.forceLeaveTarget('b')).toBe('failed');
    expect(node.core.reconnectSchedule()?.candidates).toBe(1);
    forceLeave(node, 'b', {});
    expect(node.core.member('b')).toMatchObject({ state: 'left', incarnation: 3 });
    expect(eventsAbout(node, 'b')).toEqual(['->join', 'alive>dead', 'dead>left']);
    expect(node.core.reconnectSchedule()?.candidates).toBe(0);
    expect(node.core.counters).toMatchObject({ forceLeaves: 1, forceLeavesIgnored: 0, forceLeavesPruned: 0 });
    // The leave rides the next gossip: a dead from b itself, at the incarnation it died at.
    const out: Effect[] = [];
    node.advance(node.now + 2 * defaults.gossipIntervalMs, (e) => out.push(e));
    expect(sent(out)).toContainEqual(deadBy('b', 3, 'b'));
  });

  it('a member holding b dead takes the gossiped leave: left, with a left event, no reconnect to it', () => {
    const node = withDeadB();
    node.receive('c:1', encodePacket([deadBy('b', 3, 'b')]));
    expect(node.core.member('b')?.state).toBe('left');
    expect(eventsAbout(node, 'b')).toEqual(['->join', 'alive>dead', 'dead>left']);
    expect(node.core.reconnectSchedule()?.candidates).toBe(0);
    // Dead at a higher incarnation after it is still no news for the application.
    node.receive('c:1', encodePacket([deadBy('b', 4, 'c')]));
    expect(eventsAbout(node, 'b')).toEqual(['->join', 'alive>dead', 'dead>left']);
  });

  it('with prune, forgets it at once; its stale alive is then refused and answered with its leave', () => {
    const node = withDeadB();
    forceLeave(node, 'b', { prune: true });
    expect(node.core.member('b')).toBeUndefined();
    expect(node.core.allMembers().map((m) => m.name).sort()).toEqual(['c', 'd', 'me']);
    expect(eventsAbout(node, 'b')).toEqual(['->join', 'alive>dead', 'dead>left']);
    expect(node.core.counters).toMatchObject({ forceLeaves: 1, forceLeavesPruned: 1 });
    expect(node.core.forceLeaveTarget('b')).toBe('unknown');
    // d never saw b go and passes on its alive: the tombstone says b left.
    const effects = node.receive('d:1', encodePacket([alive('b', 3)]));
    expect(node.core.member('b')).toBeUndefined();
    expect(sent(effects)).toContainEqual(deadBy('b', 3, 'b'));
    // The probe order still works after the removal: c and d are probed, nobody is wedged.
    const out: Effect[] = [];
    node.advance(node.now + 10 * defaults.probeIntervalMs, (e, n) => {
      out.push(e);
      network(e, n);
    });
    const pinged = new Set(sent(out).flatMap((m) => (m.type === 'ping' ? [m.target] : [])));
    expect([...pinged].sort()).toEqual(['c', 'd']);
  });

  it('of a member already left does nothing, and with prune forgets it', () => {
    const node = withDeadB();
    node.receive('c:1', encodePacket([deadBy('b', 3, 'b')]));
    expect(node.core.forceLeaveTarget('b')).toBe('left');
    expect(forceLeave(node, 'b', {})).toEqual([]);
    expect(node.core.counters.forceLeaves).toBe(0);
    forceLeave(node, 'b', { prune: true });
    expect(node.core.member('b')).toBeUndefined();
    expect(node.core.counters).toMatchObject({ forceLeaves: 0, forceLeavesPruned: 1 });
  });

  it('of a failed member already reaped (a reconnect candidate still) ends the reconnects and tells the others', () => {
    const node = withDeadB({ gossipIntervalMs: 0 });
    node.advance(node.now + defaults.gossipToTheDeadMs + 5 * defaults.probeIntervalMs, network);
    expect(node.core.member('b'), 'reaped').toBeUndefined();
    expect(node.core.forceLeaveTarget('b')).toBe('failed');
    expect(node.core.reconnectSchedule()?.candidates).toBe(1);
    forceLeave(node, 'b', {});
    expect(node.core.reconnectSchedule()?.candidates).toBe(0);
    expect(node.core.forceLeaveTarget('b')).toBe('unknown');
    expect(node.core.counters.forceLeaves).toBe(1);
    // Its tombstone now says it left: a stale alive is answered with its own leave.
    expect(sent(node.receive('d:1', encodePacket([alive('b', 3)])))).toContainEqual(deadBy('b', 3, 'b'));
  });

  it('a gossiped leave about a reaped failed member ends our reconnects to it, unless it is about an older life', () => {
    const node = withDeadB({ gossipIntervalMs: 0 });
    node.advance(node.now + defaults.gossipToTheDeadMs + 5 * defaults.probeIntervalMs, network);
    node.receive('c:1', encodePacket([deadBy('b', 2, 'b')]));
    expect(node.core.reconnectSchedule()?.candidates, 'a leave of incarnation 2 is older than the death at 3').toBe(1);
    node.receive('c:1', encodePacket([deadBy('b', 3, 'b')]));
    expect(node.core.reconnectSchedule()?.candidates).toBe(0);
  });
});

describe('force-leave of a member that is not failed', () => {
  it.each([
    ['alive', (node: LoneCore) => node],
    ['suspect', (node: LoneCore) => (node.receive('c:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'd', from: 'c' }])), node)],
  ] as const)('%s: nothing changes, nothing is sent; counted as ignored', (state, setup) => {
    const node = setup(withDeadB());
    expect(node.core.member('d')?.state).toBe(state);
    expect(node.core.forceLeaveTarget('d')).toBe('up');
    const before = node.memberEvents().length;
    const queued = node.core.queuedBroadcasts;
    expect(forceLeave(node, 'd', { prune: true })).toEqual([]);
    expect(node.core.member('d')?.state).toBe(state);
    expect(node.memberEvents().length).toBe(before);
    expect(node.core.queuedBroadcasts).toBe(queued);
    expect(node.core.counters).toMatchObject({ forceLeaves: 0, forceLeavesIgnored: 1, forceLeavesPruned: 0 });
  });

  it('ourselves: not touched', () => {
    const node = withDeadB();
    expect(node.core.forceLeaveTarget('me')).toBe('up');
    forceLeave(node, 'me', {});
    expect(node.core.member('me')?.state).toBe('alive');
    expect(node.core.hasLeft).toBe(false);
  });

  it('a forged force-leave of us (our own leave we never sent) is refuted above it', () => {
    const node = withDeadB();
    const effects = node.receive('c:1', encodePacket([deadBy('me', 1, 'me')]));
    expect(node.core.member('me')).toMatchObject({ state: 'alive', incarnation: 2 });
    expect(node.core.counters.refutations).toBe(1);
    expect(sent(effects)).toContainEqual(expect.objectContaining({ type: 'alive', node: 'me', incarnation: 2 }));
  });

  it('an unknown name, or no name, throws a RangeError and changes nothing', () => {
    const node = withDeadB();
    expect(node.core.forceLeaveTarget('zed')).toBe('unknown');
    expect(() => forceLeave(node, 'zed')).toThrow(new RangeError('force-leave: no member named zed'));
    expect(() => node.core.forceLeave('', {}, node.now)).toThrow(RangeError);
    expect(node.core.member('b')?.state).toBe('dead');
  });
});
