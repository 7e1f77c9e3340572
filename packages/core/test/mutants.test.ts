import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, type Effect, type Message, type SendPacketEffect, type StreamRequestEffect } from '../src/index.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * Fast, deterministic checks of behaviours that only slow simulations noticed when they broke
 * (issue 10, finding 13: mutants that survived the suite). Each test names the behaviour it holds.
 */

const sends = (effects: readonly Effect[]): SendPacketEffect[] => effects.filter((e): e is SendPacketEffect => e.type === 'send-packet');

function messagesOf(packet: SendPacketEffect): Message[] {
  const decoded = decodePacket(packet.bytes);
  if (!decoded.ok) throw new Error(decoded.error.detail);
  return decoded.messages;
}

/** Probes and push-pulls out of the way: only what the test drives happens. */
const QUIET = { probeIntervalMs: 60_000, probeTimeoutMs: 500, pushPullIntervalMs: 0, reconnectIntervalMs: 0 } as const;

describe('direct refutation', () => {
  it.each(['suspect', 'dead'] as const)('a member accused of being %s answers the accuser at once with its alive', (type) => {
    const lone = new LoneCore({ ...QUIET, gossipIntervalMs: 60_000, directRefutation: true }, 21);
    lone.introduce('a');
    const effects = lone.receive('a:1', encodePacket([{ type, incarnation: 1, node: 'me', from: 'a' }]));
    const toAccuser = sends(effects).filter((p) => p.to === 'a:1');
    expect(toAccuser.flatMap(messagesOf)).toContainEqual(expect.objectContaining({ type: 'alive', node: 'me', incarnation: 2 }));
    expect(lone.core.incarnation).toBe(2);
  });
});

describe('refutation and local health', () => {
  it.each(['suspect', 'dead'] as const)('refuting a %s accusation raises the health score by one (Lifeguard)', (type) => {
    const lone = new LoneCore({ ...QUIET }, 22);
    lone.introduce('a');
    expect(lone.core.healthScore).toBe(0);
    const effects = lone.receive('a:1', encodePacket([{ type, incarnation: 1, node: 'me', from: 'a' }]));
    expect(lone.core.healthScore).toBe(1);
    expect(effects).toContainEqual({ type: 'health', score: 1, previous: 0 });
  });
});

describe('gossip to the dead', () => {
  it('the gossip tick also picks members dead for less than gossipToTheDeadMs, never ones that left', () => {
    const gossipToTheDeadMs = 5000;
    const lone = new LoneCore({ ...QUIET, gossipIntervalMs: 200, gossipNodes: 3, gossipToTheDeadMs }, 23);
    lone.introduce('a', 'b', 'c');
    lone.receive('a:1', encodePacket([{ type: 'dead', incarnation: 1, node: 'b', from: 'a' }]));
    lone.receive('c:1', encodePacket([{ type: 'dead', incarnation: 1, node: 'c', from: 'c' }]));
    const diedAt = lone.now;
    expect(lone.core.member('b')?.state).toBe('dead');
    expect(lone.core.member('c')?.state).toBe('left');

    // Something new every tick, so each tick has news for every target.
    const gossipedTo = new Map<string, number[]>();
    let version = 0;
    for (let t = 0; t < 8000; t += 200) {
      lone.receive('a:1', encodePacket([{ type: 'broadcast', key: 'tick', origin: 'a', version: ++version, payload: new Uint8Array(8) }]));
      lone.log.length = 0;
      lone.advance(lone.now + 200);
      for (const { at, effect } of lone.log) {
        if (effect.type === 'send-packet') gossipedTo.set(effect.to, [...(gossipedTo.get(effect.to) ?? []), at]);
      }
    }
    const toDead = gossipedTo.get('b:1') ?? [];
    expect(toDead.length).toBeGreaterThan(0);
    expect(toDead.every((at) => at - diedAt < gossipToTheDeadMs)).toBe(true);
    expect(gossipedTo.get('c:1')).toBeUndefined();
  });
});

describe('reconnect to reaped members', () => {
  it('a peer declared dead and reaped is still push-pulled within a few reconnect intervals', () => {
    const reconnectIntervalMs = 2000;
    const lone = new LoneCore(
      {
        probeIntervalMs: 200,
        probeTimeoutMs: 100,
        suspicionMult: 1,
        gossipToTheDeadMs: 1000, // also when dead members are reaped
        pushPullIntervalMs: 0,
        reconnectIntervalMs,
        fallbackStreamPing: false,
      },
      24,
    );
    lone.introduce('a');
    // a never answers: suspected, declared dead, then reaped by a probe pass.
    let reapedAt: number | undefined;
    let next = lone.core.nextDeadline();
    for (; next !== undefined && next <= 120_000 && reapedAt === undefined; next = lone.core.nextDeadline()) {
      lone.advance(next);
      if (lone.core.member('a') === undefined) reapedAt = lone.now;
    }
    expect(reapedAt, 'a was never reaped').toBeDefined();
    expect(lone.core.counters.deathsDeclared).toBe(1);

    lone.log.length = 0;
    lone.advance(reapedAt! + 3 * reconnectIntervalMs);
    const reconnects = lone.log
      .map(({ effect }) => effect)
      .filter((e): e is StreamRequestEffect => e.type === 'stream-request' && e.purpose === 'push-pull' && e.to === 'a:1');
    expect(reconnects.length).toBeGreaterThan(0);
    expect(lone.core.counters.reconnectAttempts).toBeGreaterThan(0);
  });

  it('reconnectSchedule tells the next reconnect tick and the failed members it may try; none when reconnects are off', () => {
    expect(new LoneCore({ ...QUIET }, 25).core.reconnectSchedule()).toBeUndefined();
    const lone = new LoneCore({ ...QUIET, reconnectIntervalMs: 2000, suspicionMult: 1, probeIntervalMs: 200, probeTimeoutMs: 100, fallbackStreamPing: false }, 25);
    const first = lone.core.reconnectSchedule()!;
    // The first tick is spread over one interval from the start (Serf staggers its timers too).
    expect(first.at).toBeGreaterThanOrEqual(lone.now);
    expect(first.at).toBeLessThanOrEqual(lone.now + 2000);
    expect(first.candidates).toBe(0);
    lone.introduce('a');
    lone.advance(first.at);
    // Re-armed one interval after the tick that ran.
    expect(lone.core.reconnectSchedule()!.at).toBe(first.at + 2000);
    // a never answers: once it is dead, it is a candidate.
    for (let next = lone.core.nextDeadline(); next !== undefined && next <= 60_000 && lone.core.member('a')?.state !== 'dead'; next = lone.core.nextDeadline()) lone.advance(next);
    expect(lone.core.member('a')?.state).toBe('dead');
    expect(lone.core.reconnectSchedule()!.candidates).toBe(1);
  });
});
