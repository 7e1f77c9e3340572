import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, memberlistProfile, presets, type Effect, type SwimConfig } from '../src/index.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * A member cut off from the network (every packet it sends is lost, nothing answers): its probes
 * fail, its health score climbs, and it suspects the others. With three members the suspicion
 * needs no confirmations (k forced to 0) and times out at min = 4 s (LAN, n = 3).
 */
function firstSuspicion(config: Partial<SwimConfig>, seed: number) {
  const node = new LoneCore(config, seed);
  node.introduce('b', 'c');
  node.advance(120_000);
  const events = node.memberEvents();
  const suspect = events.find((e) => e.effect.event === 'suspect')!;
  const dead = events.find((e) => e.effect.event === 'dead' && e.effect.member.name === suspect.effect.member.name)!;
  return { node, suspect, dead, waited: dead.at - suspect.at };
}

const lan = presets.lan();
const memberlist = memberlistProfile(lan);

describe('the memberlist profile', () => {
  it('turns both corrections off', () => {
    expect(memberlist.overdueGraceMs).toBe(0);
    expect(memberlist.healthScaling).toBe('off');
    expect(memberlist.healthPenaltyOrder).toBe('after-suspicion');
  });

  it.each([1, 2, 3])('raises the suspicion first and applies the probe penalty afterwards (seed %i)', (seed) => {
    const { node, suspect } = firstSuspicion(memberlist, seed);
    const sameTick = node.log.filter((e) => e.at === suspect.at).map((e) => e.effect.type);
    expect(sameTick.indexOf('member'), `seed ${seed}`).toBeLessThan(sameTick.indexOf('health'));
  });

  it.each([1, 2, 3])('our default applies the penalty before raising the suspicion (seed %i)', (seed) => {
    const { node, suspect } = firstSuspicion({}, seed);
    const sameTick = node.log.filter((e) => e.at === suspect.at).map((e) => e.effect.type);
    expect(sameTick.indexOf('health'), `seed ${seed}`).toBeLessThan(sameTick.indexOf('member'));
  });

  it.each([1, 2, 3])('declares death exactly at the unscaled minimum, however unhealthy it is (seed %i)', (seed) => {
    const { waited, node } = firstSuspicion(memberlist, seed);
    expect(waited, `seed ${seed}`).toBe(4_000);
    expect(node.core.healthScore, `seed ${seed}`).toBeGreaterThan(0);
  });
});

describe('correction 2: health scaling of suspicion timeouts', () => {
  it.each([1, 2, 3])('read at creation with memberlist ordering misses the failed probe penalty (seed %i)', (seed) => {
    const { waited } = firstSuspicion({ ...memberlist, healthScaling: 'at-creation' }, seed);
    expect(waited, `seed ${seed}: score was still 0 when read`).toBe(4_000);
  });

  it.each([1, 2, 3])('read at creation after the penalty stretches the timeout by (score + 1) (seed %i)', (seed) => {
    const { waited } = firstSuspicion({ ...memberlist, healthScaling: 'at-creation', healthPenaltyOrder: 'before-suspicion' }, seed);
    expect(waited, `seed ${seed}: score 1 at creation`).toBe(8_000);
  });

  it.each([1, 2, 3])('read at expiry catches the penalty even with memberlist ordering (seed %i)', (seed) => {
    const { waited, node } = firstSuspicion({ ...memberlist, healthScaling: 'at-expiry' }, seed);
    // The score keeps climbing while every probe fails, so the timer re-arms past the plain 4 s.
    expect(waited, `seed ${seed}`).toBeGreaterThan(8_000);
    expect(node.core.healthScore, `seed ${seed}`).toBe(lan.awarenessMaxMultiplier - 1);
  });
});

describe('correction 1: grace on overdue confirmations, in the core', () => {
  /**
   * Six members (LAN: min 4 s, max 24 s, k = 2). Suspicion of b arrives at 0 s; confirmations at
   * 2 s (timeout shrinks to 11.381 s) and 9 s (shrinks to 4 s: overdue).
   */
  function overdue(config: Partial<SwimConfig>, refuteAt?: number) {
    const node = new LoneCore({ ...config, healthScaling: 'off' });
    node.introduce('b', 'c', 'd', 'e', 'f');
    const suspect = (from: string) =>
      encodePacket([{ type: 'suspect', incarnation: 1, node: 'b', from }]);
    const answerPings = answerEveryPing();
    node.advance(5_000, answerPings);
    const start = node.now;
    node.receive('c:1', suspect('c'));
    node.advance(start + 2_000, answerPings);
    node.receive('d:1', suspect('d'));
    node.advance(start + 9_000, answerPings);
    node.receive('e:1', suspect('e'));
    if (refuteAt !== undefined) {
      node.advance(start + refuteAt, answerPings);
      node.receive('b:1', encodePacket([{ type: 'alive', incarnation: 2, node: 'b', address: 'b:1', meta: new Uint8Array(0) }]));
    }
    node.advance(start + 30_000, answerPings);
    const dead = node.memberEvents().find((e) => e.effect.event === 'dead');
    return dead === undefined ? undefined : dead.at - start;
  }

  it('memberlist declares death the moment the overdue confirmation arrives', () => {
    expect(overdue({ overdueGraceMs: 0 })).toBe(9_000);
  });
  it('with the grace, death waits 2 s more (never past the timer already armed)', () => {
    expect(overdue({ overdueGraceMs: 2_000 })).toBe(11_000);
  });
  it('with the grace, a refutation inside the window saves the member', () => {
    expect(overdue({ overdueGraceMs: 2_000 }, 10_500)).toBeUndefined();
  });
  it('without the grace, the same refutation comes too late', () => {
    expect(overdue({ overdueGraceMs: 0 }, 10_500)).toBe(9_000);
  });
});

/** A network that answers every ping with an ack from its target. */
function answerEveryPing() {
  return (effect: Effect, node: LoneCore) => {
    if (effect.type !== 'send-packet') return;
    const decoded = decodePacket(effect.bytes);
    if (!decoded.ok) return;
    for (const message of decoded.messages) {
      if (message.type === 'ping') node.receive(effect.to, encodePacket([{ type: 'ack', seq: message.seq, payload: new Uint8Array(0) }]));
    }
  };
}
