import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, memberlistProfile, presets, VERDICT_CHECKS, type Effect, type SwimConfig } from '../src/index.js';
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
    expect(memberlist.directRefutation).toBe(false);
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
    // Grace alone: no health scaling, no verdict check.
    const node = new LoneCore({ ...config, healthScaling: 'off', directRefutation: false });
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

describe('direct refutation (our addition, off in the memberlist profile)', () => {
  const alive = (node: string, incarnation: number) =>
    encodePacket([{ type: 'alive', incarnation, node, address: `${node}:1`, meta: new Uint8Array(0) }]);
  const sentTo = (node: LoneCore, to: string, since: number) =>
    node.log.filter((e) => e.at >= since && e.effect.type === 'send-packet' && e.effect.to === to).flatMap((e) => {
      const decoded = decodePacket((e.effect as { bytes: Uint8Array }).bytes);
      return decoded.ok ? decoded.messages : [];
    });

  it('answers a stale accusation about itself to the sender, once per probe interval', () => {
    const node = new LoneCore({});
    node.introduce('b', 'c');
    // Refute once to reach incarnation 2, then hear the old accusation again from c.
    node.receive('b:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'me', from: 'b' }]));
    expect(node.core.incarnation).toBe(2);
    const at = node.now;
    node.receive('c:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'me', from: 'x' }]));
    node.receive('c:1', encodePacket([{ type: 'dead', incarnation: 1, node: 'me', from: 'x' }]));
    const answers = sentTo(node, 'c:1', at).filter((m) => m.type === 'alive');
    expect(answers).toEqual([{ type: 'alive', incarnation: 2, node: 'me', address: 'me:1', meta: new Uint8Array(0) }]);
    expect(node.core.incarnation).toBe(2); // a stale accusation is not refuted again
  });

  it('answers every verdict check of one round, though latency jitter brings them closer than a third of a probe timeout', () => {
    const node = new LoneCore({});
    node.introduce('b');
    // The alives sent in answer to one accusation from b.
    const check = () =>
      node.receive('b:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'me', from: 'b' }])).flatMap((effect) => {
        if (effect.type !== 'send-packet' || effect.to !== 'b:1') return [];
        const decoded = decodePacket(effect.bytes);
        return decoded.ok ? decoded.messages.filter((m) => m.type === 'alive') : [];
      });
    expect(check()).toHaveLength(1);
    // The later checks, sent a third of a probe timeout apart, each arrive a few ms sooner after the one before.
    for (let i = 1; i < VERDICT_CHECKS; i++) {
      node.advance(node.now + lan.probeTimeoutMs / VERDICT_CHECKS - 4);
      expect(check(), `check ${i + 1}`).toHaveLength(1);
    }
    // A flood is still answered at most once per sixth of a probe timeout.
    let flood = 0;
    for (let i = 0; i < 10; i++) flood += check().length;
    expect(flood).toBe(0);
  });

  it('answers a current accusation with the refuting incarnation', () => {
    const node = new LoneCore({});
    node.introduce('b');
    node.receive('b:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'me', from: 'b' }]));
    expect(sentTo(node, 'b:1', 0).filter((m) => m.type === 'alive').map((m) => (m as { incarnation: number }).incarnation)).toEqual([2]);
  });

  it('the memberlist profile answers nothing directly', () => {
    const node = new LoneCore(memberlist);
    node.introduce('b');
    node.receive('b:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'me', from: 'b' }]));
    expect(sentTo(node, 'b:1', 0).filter((m) => m.type === 'alive')).toEqual([]);
  });

  /** When an unanswered round's checks go, the first at `first`: a third of a probe timeout apart. */
  function checkSchedule(first: number): number[] {
    return Array.from({ length: VERDICT_CHECKS }, (_, i) => toMicros(first + (i * lan.probeTimeoutMs) / VERDICT_CHECKS));
  }

  /** Times rounded to the microsecond: thirds of a probe timeout, added to a clock, are not exact. */
  function toMicros(ms: number): number {
    return Math.round(ms * 1000) / 1000;
  }

  /** Records when the verdict checks (counters.verdictChecks) are sent, as `advance` runs the deadlines. */
  function checkTimes() {
    const at: number[] = [];
    let seen = 0;
    // The core also runs due deadlines right after an input: sample after receives too.
    const sample = (n: LoneCore) => {
      for (; seen < n.core.counters.verdictChecks; seen++) at.push(n.now);
    };
    return { at, sample, watch: (_effect: Effect, n: LoneCore) => sample(n) };
  }

  /**
   * True when the packet being handed to the network is a verdict check: the check counter moved
   * since the last packet (one check per tick in these tests).
   */
  function verdictCheckWatch(): (n: LoneCore) => boolean {
    let seen = 0;
    return (n) => {
      const moved = n.core.counters.verdictChecks > seen;
      seen = n.core.counters.verdictChecks;
      return moved;
    };
  }

  /** b suspected by gossip (k = 0 with three members: min 4 s); nothing else answers. */
  function verdict(config: Partial<SwimConfig>, suspectAnswers: boolean) {
    const isVerdictCheck = verdictCheckWatch();
    const node = new LoneCore({ ...config, healthScaling: 'off' });
    node.introduce('b', 'c');
    node.receive('c:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'b', from: 'c' }]));
    const start = node.now;
    const checks = checkTimes();
    node.advance(20_000, (effect, n) => {
      checks.watch(effect, n);
      if (effect.type !== 'send-packet') return;
      const decoded = decodePacket(effect.bytes);
      if (!decoded.ok) return;
      const check = isVerdictCheck(n);
      for (const m of decoded.messages) {
        // A silent suspect answers no verdict check (an acked check postpones the verdict: below).
        if (m.type === 'ping' && (suspectAnswers || !check)) n.receive(effect.to, encodePacket([{ type: 'ack', seq: m.seq, payload: new Uint8Array(0) }]));
        // b had refuted long ago (incarnation 2), but the refutation never reached us. It answers
        // the accusation only from one probe timeout before the verdict (earlier buddy probes are
        // left unanswered, to isolate the verdict check).
        if (suspectAnswers && m.type === 'suspect' && m.node === 'b' && n.now >= start + 4_000 - lan.probeTimeoutMs) n.receive('b:1', alive('b', 2));
      }
    });
    const dead = node.memberEvents().find((e) => e.effect.event === 'dead' && e.effect.member.name === 'b');
    return { node, checks: checks.at.map((at) => toMicros(at - start)), deadAfter: dead === undefined ? undefined : dead.at - start };
  }

  it('before a verdict, asks the suspect once more: an alive answer clears the suspicion', () => {
    const { node, deadAfter } = verdict({}, true);
    expect(deadAfter).toBeUndefined();
    expect(node.core.member('b')).toMatchObject({ state: 'alive', incarnation: 2 });
    expect(node.core.counters.verdictChecks).toBe(1);
  });

  it('asks a silent suspect one probe timeout before the verdict, so the verdict comes when the timer is due, as in memberlist', () => {
    const { checks, deadAfter } = verdict({}, false);
    expect(deadAfter).toBe(4_000);
    // Asked again each third of a probe timeout, as nothing came back.
    expect(checks).toEqual(checkSchedule(4_000 - lan.probeTimeoutMs));
  });

  /**
   * b suspected by gossip (three members: k 0, min 4 s). Every ping is acked by its target, the
   * verdict checks as `answerCheck` says (from `ackFrom`, or not at all), and b refutes only
   * through `refuteOnCheck` (its alive answer to the check numbered so, counting from 1).
   */
  function ackedCheck(answerCheck: (check: number, at: number) => string | undefined, refuteOnCheck?: number) {
    const isVerdictCheck = verdictCheckWatch();
    const node = new LoneCore({ healthScaling: 'off' });
    node.introduce('b', 'c');
    node.receive('c:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'b', from: 'c' }]));
    const start = node.now;
    let checks = 0;
    node.advance(start + 30_000, (effect, n) => {
      if (effect.type !== 'send-packet') return;
      const decoded = decodePacket(effect.bytes);
      if (!decoded.ok) return;
      const check = isVerdictCheck(n);
      if (check) checks++;
      for (const m of decoded.messages) {
        if (m.type !== 'ping') continue;
        const ackFrom = check ? answerCheck(checks, n.now - start) : effect.to;
        if (ackFrom !== undefined) n.receive(ackFrom, encodePacket([{ type: 'ack', seq: m.seq, payload: new Uint8Array(0) }]));
        if (check && checks === refuteOnCheck) n.receive('b:1', alive('b', 2));
      }
    });
    const dead = node.memberEvents().find((e) => e.effect.event === 'dead' && e.effect.member.name === 'b');
    return { node, deadAfter: dead === undefined ? undefined : dead.at - start };
  }

  it('a suspect that acks the verdict check is asked again, not declared dead, and its next answer clears it', () => {
    // b's alive answer to the first check is lost; its ack arrives. The second check's alive arrives.
    const { node, deadAfter } = ackedCheck(() => 'b:1', 2);
    expect(deadAfter).toBeUndefined();
    expect(node.core.member('b')).toMatchObject({ state: 'alive', incarnation: 2 });
    // Both checks acked (the second's ack arrives before its alive).
    expect(node.core.counters.verdictChecksAcked).toBe(2);
    expect(node.core.counters.verdictChecks).toBe(2);
  });

  it('a suspect is not declared dead while it acks the checks; one probe interval after its last answer it is', () => {
    // b acks the checks sent in the first 8 s (never refuting), then falls silent.
    const { node, deadAfter } = ackedCheck((_, at) => (at < 8_000 ? 'b:1' : undefined));
    const acked = node.core.counters.verdictChecksAcked;
    expect(acked).toBeGreaterThan(2);
    // Checks every probe interval from 3.5 s: the last acked one was sent before 8 s, the silent
    // one a probe interval later, and the verdict one probe timeout after that.
    expect(deadAfter).toBeGreaterThan(8_000);
    expect(deadAfter).toBeLessThanOrEqual(8_000 + lan.probeIntervalMs + lan.probeTimeoutMs);
  });

  it('a lost check is asked again a third of a probe timeout later: the answer to the second clears the suspicion in time', () => {
    // The first check is lost on the way (no ack, no alive); b answers the second with ack and alive.
    const { node, deadAfter } = ackedCheck((check) => (check === 2 ? 'b:1' : undefined), 2);
    expect(deadAfter).toBeUndefined();
    expect(node.core.member('b')).toMatchObject({ state: 'alive', incarnation: 2 });
    expect(node.core.counters.verdictChecks).toBe(2);
  });

  it('two lost checks do not decide a death: the answer to the third clears the suspicion in time', () => {
    // The suspicion nobody told b about (raised across a healed partition, simulated day seed 1,
    // 28108 s): both checks lost to 1 % loss declared a running member dead with two checks.
    const { node, deadAfter } = ackedCheck((check) => (check === 3 ? 'b:1' : undefined), 3);
    expect(deadAfter).toBeUndefined();
    expect(node.core.member('b')).toMatchObject({ state: 'alive', incarnation: 2 });
    expect(node.core.counters.verdictChecks).toBe(3);
  });

  it('an ack of the check from another address does not hold the verdict back', () => {
    // c (or anyone who guessed the sequence number) acks the check b never answers.
    const { node, deadAfter } = ackedCheck(() => 'c:1');
    expect(deadAfter).toBe(4_000);
    expect(node.core.counters.verdictChecksAcked).toBe(0);
  });

  /**
   * Every ping is acked but the verdict checks (b's probes succeed, so we never confirm our own
   * suspicion), and b never refutes.
   */
  function answerPings(): (effect: Effect, n: LoneCore) => void {
    const isCheck = verdictCheckWatch();
    return (effect, n) => {
      if (effect.type !== 'send-packet') return;
      const decoded = decodePacket(effect.bytes);
      if (!decoded.ok || isCheck(n)) return;
      for (const m of decoded.messages) if (m.type === 'ping') n.receive(effect.to, encodePacket([{ type: 'ack', seq: m.seq, payload: new Uint8Array(0) }]));
    };
  }

  /**
   * b suspected with confirmations wanted (six members: k 2, min 4 s, max 24 s), b never refuting;
   * at 20 s two confirmations make the timeout min (4 s), long passed, while the timer armed has
   * 4 s to go: the overdue grace decides how soon the verdict comes (correction 1).
   */
  function overdue(overdueGraceMs: number) {
    const node = new LoneCore({ healthScaling: 'off', overdueGraceMs });
    node.introduce('b', 'c', 'd', 'e', 'f');
    node.receive('c:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'b', from: 'c' }]));
    const start = node.now;
    const checks = checkTimes();
    const answer = answerPings();
    const network = (effect: Effect, n: LoneCore) => {
      checks.watch(effect, n);
      answer(effect, n);
    };
    node.advance(start + 20_000, network);
    const confirmedAt = node.now;
    node.receive('d:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'b', from: 'd' }]));
    node.receive('e:1', encodePacket([{ type: 'suspect', incarnation: 1, node: 'b', from: 'e' }]));
    checks.sample(node);
    node.advance(confirmedAt + 20_000, network);
    const dead = node.memberEvents().find((e) => e.effect.event === 'dead' && e.effect.member.name === 'b');
    return { checks: checks.at.map((at) => toMicros(at - confirmedAt)), deadAfter: dead === undefined ? undefined : dead.at - confirmedAt };
  }

  it('when a confirmation brings the verdict closer than a probe timeout, asks at once and waits a whole probe timeout for the answer', () => {
    expect(overdue(100)).toEqual({ checks: checkSchedule(0), deadAfter: lan.probeTimeoutMs });
  });

  it('with the default grace, asks one probe timeout before the overdue verdict', () => {
    expect(overdue(2_000)).toEqual({ checks: checkSchedule(2_000 - lan.probeTimeoutMs), deadAfter: 2_000 });
  });

  it('the memberlist profile declares death when the timer fires, sending nothing to the suspect first', () => {
    const { node, deadAfter } = verdict(memberlist, false);
    expect(deadAfter).toBe(4_000);
    expect(node.core.counters.verdictChecks).toBe(0);
  });
});
