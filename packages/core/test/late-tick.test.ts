import { describe, expect, it } from 'vitest';
import { ConfigError, decodePacket, encodePacket, memberlistProfile, presets, SwimCore, type Effect, type SwimConfig } from '../src/index.js';
import { isLateCall, lateSuspicionGraceMs } from '../src/lifeguard/late-tick.js';
import { LoneCore } from './harness/lone-core.js';

const others = ['a', 'b', 'c', 'd', 'e'];
/** Far past any deadline: a hidden tab under Chrome's intensive throttling wakes once a minute. */
const STALL_MS = 60_000;

function messagesOf(effect: Effect): string[] {
  if (effect.type !== 'send-packet') return [];
  const decoded = decodePacket(effect.bytes);
  return decoded.ok ? decoded.messages.map((m) => m.type) : [];
}

/** Tick the core deadline by deadline, on time, until it sends a ping; returns the ping's target address and seq. */
function untilProbeSent(node: LoneCore, seed: number): { to: string; seq: number } {
  for (let i = 0; i < 1000; i++) {
    const next = node.core.nextDeadline();
    if (next === undefined) break;
    node.now = Math.max(node.now, next);
    for (const effect of node.core.tick(node.now)) {
      node.log.push({ at: node.now, effect });
      if (effect.type !== 'send-packet') continue;
      const decoded = decodePacket(effect.bytes);
      const ping = decoded.ok ? decoded.messages.find((m) => m.type === 'ping') : undefined;
      if (ping?.type === 'ping') return { to: effect.to, seq: ping.seq };
    }
  }
  throw new Error(`seed ${seed}: no probe started`);
}

/** The core's effects of one call at `now` (recorded in the node's log). */
function tickAt(node: LoneCore, now: number): Effect[] {
  node.now = now;
  const effects = node.core.tick(now);
  for (const effect of effects) node.log.push({ at: now, effect });
  return effects;
}

describe('late calls are local unhealth (Lifeguard §IV.A): the rule', () => {
  const lan = presets.lan();
  it.each([
    // lateTickMs, asked for, now, late
    [2000, 1000, 3000, false], // exactly the threshold late: not yet
    [2000, 1000, 3001, true],
    [2000, 1000, 1500, false], // on time or a little late
    [2000, undefined, 1e9, false], // nothing was asked for: no lateness to measure
    [0, 1000, 1e9, false], // 0 turns the rule off
  ] as const)('lateTickMs %s, deadline %s, call at %s: late %s', (lateTickMs, askedFor, now, late) => {
    expect(isLateCall({ ...lan, lateTickMs }, askedFor, now)).toBe(late);
  });

  it('presets: one probe interval; memberlistProfile: off', () => {
    expect(presets.lan().lateTickMs).toBe(presets.lan().probeIntervalMs);
    expect(presets.local().lateTickMs).toBe(presets.local().probeIntervalMs);
    expect(presets.wan().lateTickMs).toBe(presets.wan().probeIntervalMs);
    expect(memberlistProfile(presets.lan()).lateTickMs).toBe(0);
  });

  it('a suspicion due in a stall waits the overdue grace, at least one probe timeout', () => {
    expect(lateSuspicionGraceMs(lan)).toBe(2000);
    expect(lateSuspicionGraceMs({ ...lan, overdueGraceMs: 0 })).toBe(lan.probeTimeoutMs);
  });

  it('is validated with the other config problems', () => {
    let error: unknown;
    try {
      new SwimCore({ name: 'me', address: 'me:1', seed: 1, now: 0, config: { lateTickMs: -1, probeTimeoutMs: -5 } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.some((p) => p.startsWith('lateTickMs'))).toBe(true);
    expect(problems.some((p) => p.startsWith('probeTimeoutMs'))).toBe(true);
  });
});

describe('late calls: what the core does on one', () => {
  it.each([1, 2, 3])('timers on time for a minute are never late (seed %i)', (seed) => {
    const node = new LoneCore({}, seed);
    node.introduce(...others);
    node.advance(60_000, (effect, n) => {
      if (effect.type !== 'send-packet') return;
      const decoded = decodePacket(effect.bytes);
      if (!decoded.ok) return;
      for (const m of decoded.messages) if (m.type === 'ping') n.receive(effect.to, encodePacket([{ type: 'ack', seq: m.seq, payload: new Uint8Array(0) }]));
    });
    expect(node.core.counters.lateTicks, `seed ${seed}`).toBe(0);
    expect(node.core.healthScore, `seed ${seed}`).toBe(0);
  });

  it.each([1, 2, 3, 4, 5])('the probe in flight is not failed by our lateness; its ack queued behind the stall counts (seed %i)', (seed) => {
    const node = new LoneCore({}, seed);
    node.introduce(...others);
    const ping = untilProbeSent(node, seed);
    const sentAt = node.now;
    const late = tickAt(node, sentAt + STALL_MS);
    const types = late.flatMap(messagesOf);
    expect(late.filter((e) => e.type === 'probe'), `seed ${seed}: no verdict on the late tick`).toEqual([]);
    expect(types, `seed ${seed}: neither helpers asked nor anyone suspected`).not.toContain('ping-req');
    expect(types, `seed ${seed}`).not.toContain('suspect');
    expect(late, `seed ${seed}: health + 1`).toContainEqual({ type: 'health', score: 1, previous: 0 });
    expect(node.core.counters.lateTicks, `seed ${seed}`).toBe(1);
    // The ack that waited behind the stall is read right after it.
    const acked = node.receive(ping.to, encodePacket([{ type: 'ack', seq: ping.seq, payload: new Uint8Array(0) }]));
    expect(acked.find((e) => e.type === 'probe'), `seed ${seed}`).toMatchObject({ type: 'probe', ok: true, via: 'direct' });
    expect(node.core.counters.suspicionsRaised, `seed ${seed}`).toBe(0);
  });

  it.each([1, 2, 3])('without an ack, helpers are asked one probe timeout after the late call, not on it (seed %i)', (seed) => {
    const node = new LoneCore({}, seed);
    node.introduce(...others);
    untilProbeSent(node, seed);
    const lateAt = node.now + STALL_MS;
    tickAt(node, lateAt);
    const askedAt: number[] = [];
    for (let next = node.core.nextDeadline(); next !== undefined && next <= lateAt + 600; next = node.core.nextDeadline()) {
      for (const effect of tickAt(node, next)) if (messagesOf(effect).includes('ping-req')) askedAt.push(next);
    }
    expect(askedAt.length, `seed ${seed}`).toBeGreaterThan(0);
    expect(Math.min(...askedAt), `seed ${seed}`).toBe(lateAt + presets.lan().probeTimeoutMs);
  });

  it.each([1, 2, 3])('with the rule off (lateTickMs 0) the same late tick fails the probe and accuses its target (seed %i)', (seed) => {
    const node = new LoneCore({ lateTickMs: 0 }, seed);
    node.introduce(...others);
    const ping = untilProbeSent(node, seed);
    const late = tickAt(node, node.now + STALL_MS);
    const target = ping.to.split(':')[0];
    expect(late.find((e) => e.type === 'probe'), `seed ${seed}`).toMatchObject({ type: 'probe', ok: false, target });
    expect(node.core.member(target!)?.state, `seed ${seed}`).toBe('suspect');
    expect(node.core.counters.lateTicks, `seed ${seed}`).toBe(0);
  });

  it.each([1, 2, 3])('a probe is spared once: when the next call is late too, it is judged (helpers asked) (seed %i)', (seed) => {
    const node = new LoneCore({}, seed);
    node.introduce(...others);
    untilProbeSent(node, seed);
    const first = tickAt(node, node.now + STALL_MS).flatMap(messagesOf);
    expect(first, `seed ${seed}: spared on the first late call`).not.toContain('ping-req');
    const second = tickAt(node, node.now + STALL_MS).flatMap(messagesOf);
    expect(second, `seed ${seed}: judged on the second`).toContain('ping-req');
    expect(node.core.counters.lateTicks, `seed ${seed}`).toBe(2);
  });

  it('a suspicion is spared once: when the next call is late too, its suspect is declared dead on it', () => {
    const node = new LoneCore({ directRefutation: false }, 4);
    node.introduce(...others);
    node.receive('b:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'a', from: 'b' }]));
    tickAt(node, node.now + STALL_MS);
    expect(node.core.member('a')?.state).toBe('suspect');
    const second = tickAt(node, node.now + STALL_MS);
    expect(second.filter((e) => e.type === 'member' && e.event === 'dead').map((e) => (e.type === 'member' ? e.member.name : ''))).toEqual(['a']);
    expect(node.core.member('a')?.state).toBe('dead');
  });

  it('a late packet, not only a late timer, is a late call: whichever comes first after the stall', () => {
    const node = new LoneCore({}, 9);
    node.introduce(...others);
    const ping = untilProbeSent(node, 9);
    node.now += STALL_MS;
    const effects = node.receive(ping.to, encodePacket([{ type: 'ack', seq: ping.seq, payload: new Uint8Array(0) }]));
    expect(node.core.counters.lateTicks).toBe(1);
    expect(effects.find((e) => e.type === 'probe')).toMatchObject({ ok: true, via: 'direct' });
  });

  const suspicionCases: ReadonlyArray<readonly [string, Partial<SwimConfig>]> = [
    ['direct refutation on', {}],
    ['direct refutation off', { directRefutation: false }],
  ];
  it.each(suspicionCases)('%s: a suspicion that came due in the stall is not judged on the late call; a refutation right after clears it', (_, config) => {
    const node = new LoneCore(config, 4);
    node.introduce(...others);
    node.receive('b:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'a', from: 'b' }]));
    expect(node.core.member('a')?.state).toBe('suspect');
    const lateAt = node.now + STALL_MS;
    const late = tickAt(node, lateAt);
    expect(late.filter((e) => e.type === 'member' && e.event === 'dead')).toEqual([]);
    expect(node.core.member('a')?.state).toBe('suspect');
    node.receive('a:1', encodePacket([{ type: 'alive', incarnation: 2, node: 'a', address: 'a:1', meta: new Uint8Array(0) }]));
    expect(node.core.member('a')?.state).toBe('alive');
    expect(node.core.counters.deathsDeclared).toBe(0);
  });

  /** Run from the late call to `until`, everyone but the suspect `a` answering; returns when `a` was asked (ping + suspect) and declared dead. */
  function afterLateCall(config: Partial<SwimConfig>): { lateAt: number; checksAt: number[]; deadAt: number | undefined } {
    const node = new LoneCore(config, 4);
    node.introduce(...others);
    node.receive('b:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'a', from: 'b' }]));
    const lateAt = node.now + STALL_MS;
    tickAt(node, lateAt);
    const checksAt: number[] = [];
    node.advance(lateAt + 10_000, (effect, n) => {
      if (effect.type !== 'send-packet') return;
      const decoded = decodePacket(effect.bytes);
      if (!decoded.ok) return;
      if (effect.to === 'a:1') {
        if (decoded.messages.some((m) => m.type === 'suspect')) checksAt.push(n.now);
        return;
      }
      for (const m of decoded.messages) if (m.type === 'ping') n.receive(effect.to, encodePacket([{ type: 'ack', seq: m.seq, payload: new Uint8Array(0) }]));
    });
    const death = node.memberEvents().find((e) => e.effect.member.name === 'a' && e.effect.event === 'dead');
    return { lateAt, checksAt, deadAt: death?.at };
  }

  it('direct refutation off: with no refutation, the verdict comes max(overdueGraceMs, probeTimeoutMs) after the late call', () => {
    const { lateAt, deadAt } = afterLateCall({ directRefutation: false });
    expect(deadAt).toBe(lateAt + lateSuspicionGraceMs(presets.lan()));
  });

  it('direct refutation on: the suspect is asked one probe timeout before that verdict, not on the late call', () => {
    const { lateAt, checksAt, deadAt } = afterLateCall({});
    const lan = presets.lan();
    expect(checksAt[0]).toBe(lateAt + lateSuspicionGraceMs(lan) - lan.probeTimeoutMs);
    expect(deadAt).toBeGreaterThanOrEqual(lateAt + lateSuspicionGraceMs(lan));
  });

  it('with the rule off and no direct refutation (memberlist), the late call declares the suspect dead at once', () => {
    const node = new LoneCore({ lateTickMs: 0, directRefutation: false }, 4);
    node.introduce(...others);
    node.receive('b:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'a', from: 'b' }]));
    const lateAt = node.now + STALL_MS;
    const late = tickAt(node, lateAt);
    expect(late.filter((e) => e.type === 'member' && e.event === 'dead').map((e) => e.type === 'member' && e.member.name)).toEqual(['a']);
  });
});
