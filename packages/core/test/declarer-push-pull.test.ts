import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, memberlistProfile, presets, type Effect, type Message, type SwimConfig } from '../src/index.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * pushPullWithDeclarer (docs/endurance.md): a member told it was declared dead was cut off from
 * its declarer's side long enough for a suspicion to run out; besides refuting, it push-pulls with
 * the declarer at once, so what that side learnt meanwhile (a join gossiped while the two could not
 * hear each other, its retransmits spent) reaches it now, not at its next periodic push-pull.
 */
const defaults = presets.lan();
const QUIET: Partial<SwimConfig> = { gossipIntervalMs: 0, reconnectIntervalMs: 0 };
const dead = (node: string, incarnation: number, from: string): Message => ({ type: 'dead', incarnation, node, from });

function pushPullsTo(effects: readonly Effect[]): string[] {
  return effects.flatMap((e) => (e.type === 'stream-request' && e.purpose === 'push-pull' ? [e.to] : []));
}

/** Every ping is acked: the members we know stay alive while time passes. */
function ackPings(effect: Effect, node: LoneCore): void {
  if (effect.type !== 'send-packet') return;
  const decoded = decodePacket(effect.bytes);
  if (!decoded.ok) return;
  for (const m of decoded.messages) if (m.type === 'ping') node.receive(effect.to, encodePacket([{ type: 'ack', seq: m.seq, payload: new Uint8Array(0) }]));
}

function member(config: SwimConfig): LoneCore {
  const node = new LoneCore({ ...config, ...QUIET });
  node.introduce('b', 'c', 'd');
  return node;
}

describe('pushPullWithDeclarer', () => {
  it('refuting a death verdict push-pulls with the declarer, not with the member that relayed it', () => {
    const node = member(defaults);
    // c declared us dead; d relays its verdict.
    const effects = node.receive('d:1', encodePacket([dead('me', 1, 'c')]));
    expect(node.core.member('me')?.incarnation, 'refuted').toBe(2);
    expect(pushPullsTo(effects)).toEqual(['c:1']);
    expect(node.core.counters.declarerPushPulls).toBe(1);
  });

  it('falls back to the sender when the declarer is not a member we hold alive', () => {
    const node = member(defaults);
    const effects = node.receive('d:1', encodePacket([dead('me', 1, 'stranger')]));
    expect(pushPullsTo(effects)).toEqual(['d:1']);
  });

  it('at most once per push-pull interval, however often it is declared dead', () => {
    const node = member(defaults);
    const first = pushPullsTo(node.receive('d:1', encodePacket([dead('me', 1, 'c')])));
    // Declared dead again above the refutation, by another member, soon after.
    node.advance(node.now + 1_000, ackPings);
    const again = pushPullsTo(node.receive('c:1', encodePacket([dead('me', 2, 'b')])));
    expect(node.core.member('me')?.incarnation, 'refuted again').toBe(3);
    expect([first, again]).toEqual([['c:1'], []]);
    // A push-pull interval after the first, a new verdict is caught up with again.
    node.advance(node.now + defaults.pushPullIntervalMs, ackPings);
    const later = node.receive('c:1', encodePacket([dead('me', 3, 'b')]));
    expect(pushPullsTo(later)).toEqual(['b:1']);
  });

  it('a suspicion is only refuted: no push-pull (it is not yet a verdict)', () => {
    const node = member(defaults);
    const effects = node.receive('d:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'me', from: 'c' }]));
    expect(node.core.member('me')?.incarnation).toBe(2);
    expect(pushPullsTo(effects)).toEqual([]);
  });

  it('a stale verdict, already refuted, opens none', () => {
    const node = member(defaults);
    node.receive('d:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'me', from: 'c' }]));
    const effects = node.receive('d:1', encodePacket([dead('me', 1, 'c')]));
    expect(pushPullsTo(effects)).toEqual([]);
  });

  it('memberlistProfile only refutes (memberlist refute)', () => {
    const node = member(memberlistProfile(defaults));
    const effects = node.receive('d:1', encodePacket([dead('me', 1, 'c')]));
    expect(node.core.member('me')?.incarnation).toBe(2);
    expect(pushPullsTo(effects)).toEqual([]);
  });
});
