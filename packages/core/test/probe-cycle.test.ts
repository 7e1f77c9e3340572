import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, type Effect } from '../src/index.js';
import { LoneCore } from './harness/lone-core.js';

const others = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

/** Every ping is acked by its target at once. */
function ackAll(effect: Effect, node: LoneCore): void {
  if (effect.type !== 'send-packet') return;
  const decoded = decodePacket(effect.bytes);
  if (!decoded.ok) return;
  for (const m of decoded.messages) {
    if (m.type === 'ping') node.receive(effect.to, encodePacket([{ type: 'ack', seq: m.seq, payload: new Uint8Array(0) }]));
  }
}

function probeTargets(node: LoneCore): string[] {
  return node.log.flatMap((e) => (e.effect.type === 'probe' ? [e.effect.target] : []));
}

describe('probe cycle (SWIM §4.3 round-robin, memberlist probe)', () => {
  it.each([1, 2, 3, 4])('probes every member exactly once per pass, reshuffling between passes (seed %i)', (seed) => {
    const node = new LoneCore({}, seed);
    node.introduce(...others);
    node.advance(40_000, ackAll);
    const targets = probeTargets(node);
    const passes: string[][] = [];
    for (let i = 0; i + others.length <= targets.length; i += others.length) passes.push(targets.slice(i, i + others.length));
    expect(passes.length, `seed ${seed}`).toBeGreaterThanOrEqual(4);
    for (const pass of passes) expect([...pass].sort(), `seed ${seed}`).toEqual(others);
    expect(new Set(passes.map((p) => p.join())).size, `seed ${seed}: order reshuffled`).toBeGreaterThan(1);
  });

  it('probes once per interval while acks come back, health staying at 0', () => {
    const node = new LoneCore({}, 7);
    node.introduce(...others);
    node.advance(20_000, ackAll);
    const starts = node.log.filter((e) => e.effect.type === 'probe').map((e) => e.at);
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    expect(gaps.every((g) => g === 1_000)).toBe(true);
    expect(node.core.healthScore).toBe(0);
  });

  it('a probe that fails with no helper answering lasts the health-scaled interval (memberlist probeNode)', () => {
    const node = new LoneCore({}, 3);
    node.introduce(...others);
    node.advance(30_000); // nothing answers
    const failures = node.log.filter((e) => e.effect.type === 'probe' && !e.effect.ok).map((e) => e.at);
    const scores = node.log.filter((e) => e.effect.type === 'health');
    expect(failures.length).toBeGreaterThan(3);
    expect(scores.length).toBeGreaterThan(0);
    // Gaps between failures grow as the score grows: interval x (score + 1).
    const gaps = failures.slice(1).map((t, i) => t - failures[i]!);
    expect(gaps[gaps.length - 1]!).toBeGreaterThan(gaps[0]!);
    expect(node.core.counters.degradedProbes).toBeGreaterThan(0);
  });

  it('a suspect is probed with the accusation attached (buddy system, Lifeguard §IV.C)', () => {
    const node = new LoneCore({}, 5);
    node.introduce(...others);
    node.receive('b:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'a', from: 'b' }]));
    const pingsToA: string[][] = [];
    node.advance(20_000, (effect, n) => {
      if (effect.type === 'send-packet' && effect.to === 'a:1') {
        const decoded = decodePacket(effect.bytes);
        if (decoded.ok && decoded.messages[0]?.type === 'ping') pingsToA.push(decoded.messages.map((m) => m.type));
      }
      ackAll(effect, n);
    });
    expect(pingsToA[0]).toEqual(['ping', 'suspect']);
  });

  it.each([true, false])('buddySystem %s: a ping to a suspect carries our own accusation only when on', (buddySystem) => {
    const node = new LoneCore({ buddySystem }, 5);
    node.introduce(...others);
    node.receive('b:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'a', from: 'b' }]));
    let pingsToA = 0;
    let ownAccusations = 0;
    node.advance(20_000, (effect, n) => {
      if (effect.type === 'send-packet' && effect.to === 'a:1') {
        const decoded = decodePacket(effect.bytes);
        if (decoded.ok && decoded.messages[0]?.type === 'ping') {
          pingsToA++;
          // Gossip may still carry b's accusation; the buddy system adds one from us.
          if (decoded.messages.some((m) => m.type === 'suspect' && m.node === 'a' && m.from === 'me')) ownAccusations++;
        }
      }
      ackAll(effect, n);
    });
    expect(pingsToA).toBeGreaterThan(0);
    expect(ownAccusations > 0).toBe(buddySystem);
  });

  it.each([true, false])('requestNacks %s: ping-reqs ask helpers for a nack only when on (Lifeguard §IV.A)', (requestNacks) => {
    const node = new LoneCore({ requestNacks }, 3);
    node.introduce(...others);
    const nackFlags: boolean[] = [];
    node.advance(10_000, (effect) => {
      if (effect.type !== 'send-packet') return;
      const decoded = decodePacket(effect.bytes);
      if (!decoded.ok) return;
      for (const m of decoded.messages) if (m.type === 'ping-req') nackFlags.push(m.nack);
    });
    expect(nackFlags.length).toBeGreaterThan(0);
    expect(new Set(nackFlags)).toEqual(new Set([requestNacks]));
  });
});

describe('a failed probe accuses what it probed (memberlist probeNode copies the node at the start)', () => {
  /**
   * a's ack to our probe is lost, but its alive at incarnation 2 (a refutation of an accusation
   * that never reached us, say) arrives while the probe runs. memberlist's accusation names the
   * incarnation probed (1), which the alive already overrides: a stays alive.
   */
  it('an alive learnt while the probe ran is not accused', () => {
    const node = new LoneCore({}, 11);
    node.introduce(...others);
    let refutedAt: number | undefined;
    node.advance(30_000, (effect, n) => {
      if (effect.type !== 'send-packet') return;
      const decoded = decodePacket(effect.bytes);
      if (!decoded.ok) return;
      for (const m of decoded.messages) {
        if (m.type !== 'ping') continue;
        if (effect.to !== 'a:1' || m.target !== 'a') {
          n.receive(effect.to, encodePacket([{ type: 'ack', seq: m.seq, payload: new Uint8Array(0) }]));
        } else if (refutedAt === undefined) {
          // The ack is lost; the refutation arrives.
          refutedAt = n.now;
          n.receive('a:1', encodePacket([{ type: 'alive', incarnation: 2, node: 'a', address: 'a:1', meta: new Uint8Array(0) }]));
        }
      }
    });
    expect(refutedAt, 'a was probed').toBeDefined();
    const failed = node.log.find((e) => e.effect.type === 'probe' && e.effect.target === 'a' && !e.effect.ok);
    expect(failed, 'the probe of a failed').toBeDefined();
    // Later probes of a fail too (nothing answers them): those accuse incarnation 2, as they should.
    const suspected = node.memberEvents().find((e) => e.effect.member.name === 'a' && e.effect.event === 'suspect');
    expect(suspected?.at ?? Infinity, 'no accusation from the probe that began at incarnation 1').toBeGreaterThan(failed!.at);
    expect(suspected?.effect.member.incarnation).toBe(2);
  });
});
