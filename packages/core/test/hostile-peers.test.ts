import { describe, expect, it } from 'vitest';
import {
  createRng,
  decodePacket,
  encodePacket,
  MAX_INCARNATION,
  SwimCore,
  type Effect,
  type Message,
  type PushPullEntry,
  type Rng,
  type SwimConfig,
} from '../src/index.js';
import { introduce } from './harness/introduce.js';
import { LoneCore } from './harness/lone-core.js';

// Issue 10: what a peer, or a stranger, can do to a core with one packet or stream. Each case
// failed on the core before the hardening (14f71da).

const EMPTY = new Uint8Array(0);
const alive = (node: string, incarnation: number, address = `${node}:1`, meta = EMPTY) =>
  ({ type: 'alive', incarnation, node, address, meta }) as const;
const suspect = (node: string, incarnation: number, from = 'x') => ({ type: 'suspect', incarnation, node, from }) as const;
const dead = (node: string, incarnation: number, from = 'x') => ({ type: 'dead', incarnation, node, from }) as const;
const entry = (name: string, incarnation = 1, state: PushPullEntry['state'] = 'alive'): PushPullEntry => ({
  name,
  address: `${name}:1`,
  meta: EMPTY,
  incarnation,
  state,
});
const pushPull = (members: PushPullEntry[]): Message => ({ type: 'push-pull', join: false, members, userState: EMPTY });
const names = (n: number, prefix = 'f') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

function eventsAbout(lone: LoneCore, name: string): string[] {
  return lone.memberEvents().flatMap((e) => (e.effect.member.name === name ? [e.effect.event] : []));
}

function sentTo(effects: readonly Effect[], to: string): Message[][] {
  return effects.flatMap((e) => {
    if (e.type !== 'send-packet' || e.to !== to) return [];
    const decoded = decodePacket(e.bytes);
    if (!decoded.ok) throw new Error(`the core sent an undecodable packet: ${decoded.error.detail}`);
    return [decoded.messages];
  });
}

function packetBytes(effects: readonly Effect[]): number {
  return effects.reduce((sum, e) => sum + (e.type === 'send-packet' ? e.bytes.length : 0), 0);
}

describe('membership events an application can rely on (finding 7, 8)', () => {
  it('dead is reported once; a member back from dead through a suspicion is reported as join', () => {
    const lone = new LoneCore({});
    lone.introduce('b', 'c');
    lone.receive('c:1', encodePacket([dead('b', 1, 'c')]));
    lone.receive('c:1', encodePacket([dead('b', 2, 'c')]));
    expect(eventsAbout(lone, 'b')).toEqual(['join', 'dead']);
    lone.receive('c:1', encodePacket([suspect('b', 3, 'c')]));
    lone.receive('c:1', encodePacket([alive('b', 4)]));
    expect(eventsAbout(lone, 'b')).toEqual(['join', 'dead', 'join', 'alive']);
    expect(lone.core.member('b')).toMatchObject({ state: 'alive', incarnation: 4 });
  });

  it('a remote dead in a push-pull over a local dead raises the incarnation and reports nothing', () => {
    const lone = new LoneCore({});
    lone.introduce('b', 'c');
    lone.receive('c:1', encodePacket([dead('b', 1, 'c')]));
    lone.core.receiveStream(1, 'c:1', encodePacket([pushPull([entry('b', 2, 'dead'), entry('c')])]), lone.now);
    expect(lone.core.member('b')).toMatchObject({ state: 'dead', incarnation: 2 });
    expect(eventsAbout(lone, 'b')).toEqual(['join', 'dead']);
  });

  it('suspect -> alive with new meta reports alive, then update (memberlist NotifyUpdate)', () => {
    const lone = new LoneCore({});
    lone.introduce('b', 'c');
    lone.receive('c:1', encodePacket([suspect('b', 1, 'c')]));
    lone.receive('b:1', encodePacket([alive('b', 2, 'b:1', new Uint8Array([9]))]));
    expect(eventsAbout(lone, 'b')).toEqual(['join', 'suspect', 'alive', 'update']);
  });
});

describe('incarnations at the top of the uint32 range (finding 1)', () => {
  it.each([
    ['suspect', suspect('me', MAX_INCARNATION)],
    ['dead', dead('me', MAX_INCARNATION)],
    ['alive with other meta', alive('me', MAX_INCARNATION, 'me:1', new Uint8Array([1]))],
    ['suspect one below', suspect('me', MAX_INCARNATION - 1)],
  ] as const)('a forged %s about us is dropped: no throw, no refutation, timers intact', (_, message) => {
    const lone = new LoneCore({});
    lone.introduce('b', 'c');
    const deadline = lone.core.nextDeadline();
    expect(() => lone.receive('b:1', encodePacket([message]))).not.toThrow();
    expect(lone.core.incarnation).toBe(1);
    expect(lone.core.counters.implausibleUpdates).toBe(1);
    expect(lone.core.counters.refutations).toBe(0);
    expect(lone.core.nextDeadline()).toBe(deadline);
  });

  it.each([
    ['suspect', suspect('b', MAX_INCARNATION)],
    ['dead', dead('b', MAX_INCARNATION)],
  ] as const)('a forged %s about a peer at the top is dropped', (_, message) => {
    const lone = new LoneCore({});
    lone.introduce('b', 'c');
    lone.receive('c:1', encodePacket([message]));
    expect(lone.core.member('b')).toMatchObject({ state: 'alive', incarnation: 1 });
  });

  it('with the jump bound off, an accusation at the top renews our incarnation at 1 instead of throwing', () => {
    const lone = new LoneCore({ maxIncarnationJump: 0 });
    lone.introduce('b', 'c');
    let effects: Effect[] = [];
    expect(() => (effects = lone.receive('b:1', encodePacket([suspect('me', MAX_INCARNATION, 'b')])))).not.toThrow();
    expect(lone.core.incarnation).toBe(1);
    expect(lone.core.counters.incarnationRenewals).toBe(1);
    // Every timer still runs: the next push-pull and probes happen.
    lone.advance(120_000, () => {});
    expect(lone.log.some((e) => e.effect.type === 'stream-request' && e.effect.purpose === 'push-pull')).toBe(true);
    expect(lone.core.counters.probes).toBeGreaterThan(2);
    expect(effects.every((e) => e.type !== 'send-packet' || decodePacket(e.bytes).ok)).toBe(true);
  });

  it('updateMeta at the top of the range renews at 1', () => {
    const lone = new LoneCore({ maxIncarnationJump: 0 });
    lone.introduce('b');
    lone.receive('b:1', encodePacket([suspect('me', MAX_INCARNATION - 1, 'b')]));
    expect(lone.core.incarnation).toBe(MAX_INCARNATION);
    expect(() => lone.core.updateMeta(new Uint8Array([1]), lone.now)).not.toThrow();
    expect(lone.core.incarnation).toBe(1);
  });
});

describe('what strangers can add (finding 2)', () => {
  it('a table at maxMembers refuses new names and counts them', () => {
    const lone = new LoneCore({ maxMembers: 8, maxPushPullEntries: 20 });
    lone.introduce(...names(20));
    expect(lone.core.allMembers()).toHaveLength(8);
    expect(lone.core.counters.membersRefused).toBe(20 - 7);
  });

  it('gossip from a stranger adds only its own name, once per interval: others join through a push-pull', () => {
    const lone = new LoneCore({});
    lone.receive('evil:1', encodePacket(names(100).map((n) => alive(n, 1))));
    expect(lone.core.allMembers()).toHaveLength(1);
    expect(lone.core.counters.newMembersNotAdmitted).toBe(100);
    // A member we reaped during its outage announces itself from its own address: taken.
    lone.receive('back:1', encodePacket([alive('back', 3, 'back:1')]));
    lone.receive('x:1', encodePacket([alive('other', 1, 'other:1')]));
    expect(lone.core.allMembers().map((m) => m.name).sort()).toEqual(['back', 'me']);
    // Many names at one stranger address: one per probe interval.
    lone.receive('evil:1', encodePacket(names(100).map((n) => alive(n, 1, 'evil:1'))));
    expect(lone.core.allMembers()).toHaveLength(3);
  });

  it('a member adds at most maxNewMembersPerSource names per probe interval by gossip', () => {
    const lone = new LoneCore({ maxNewMembersPerSource: 5 });
    lone.introduce('b');
    const flood = encodePacket(names(100).map((n) => alive(n, 1)));
    lone.receive('b:1', flood);
    expect(lone.core.allMembers()).toHaveLength(2 + 5);
    lone.receive('b:1', flood);
    expect(lone.core.allMembers()).toHaveLength(2 + 5);
    lone.advance(lone.now + 1_000);
    lone.receive('b:1', flood);
    expect(lone.core.allMembers()).toHaveLength(2 + 10);
    // 95 refused, then 95 (five are known), then 5 more taken and 90 refused.
    expect(lone.core.counters.newMembersNotAdmitted).toBe(95 + 95 + 90);
  });

  it('a push-pull a peer opens adds one new name (a newcomer\'s own), all of them sharing one budget whatever their port', () => {
    const one = new LoneCore({});
    one.core.receiveStream(1, 'evil:40000', encodePacket([pushPull(names(100).map((n) => entry(n)))]), one.now);
    expect(one.core.allMembers()).toHaveLength(2);
    const lone = new LoneCore({ maxNewMembersPerSource: 5 });
    for (let port = 40_000; port < 40_010; port++) {
      lone.core.receiveStream(port, `evil:${port}`, encodePacket([pushPull(names(10, `p${port}-`).map((n) => entry(n)))]), lone.now);
    }
    expect(lone.core.allMembers()).toHaveLength(1 + 5);
  });

  it('the answer to our own join is not rate limited, and join-finished comes once it is merged', () => {
    const lone = new LoneCore({ maxNewMembersPerSource: 5, mergeSliceEntries: 16 });
    const request = lone.core.join(['seed:1'], 7, lone.now).find((e) => e.type === 'stream-request');
    if (request?.type !== 'stream-request') throw new Error('join opened no stream');
    const reply = encodePacket([pushPull(names(50).map((n) => entry(n)))]);
    const first = lone.core.step({ type: 'stream-response', requestId: request.requestId, bytes: reply }, lone.now);
    expect(first.some((e) => e.type === 'join-finished')).toBe(false);
    lone.advance(lone.now + 10);
    expect(lone.log.some((e) => e.effect.type === 'join-finished' && e.effect.contacted.length === 1)).toBe(true);
    expect(lone.core.allMembers()).toHaveLength(51);
  });

  it('a push-pull above maxPushPullEntries is refused whole with an error reply', () => {
    const lone = new LoneCore({ maxMembers: 100, maxPushPullEntries: 100 });
    const effects = lone.core.receiveStream(1, 'evil:1', encodePacket([pushPull(names(101).map((n) => entry(n)))]), lone.now);
    const reply = effects.find((e) => e.type === 'stream-reply');
    expect(reply?.type === 'stream-reply' && reply.bytes !== undefined && decodePacket(reply.bytes)).toMatchObject({
      ok: true,
      messages: [{ type: 'error' }],
    });
    expect(lone.core.allMembers()).toHaveLength(1);
    expect(lone.core.counters.pushPullsRefused).toBe(1);
  });

  it('the decoder refuses a push-pull above the limit at its array header', () => {
    const bytes = encodePacket([pushPull(names(101).map((n) => entry(n)))]);
    expect(decodePacket(bytes, { maxPushPullEntries: 100 })).toMatchObject({ ok: false, error: { code: 'too-many' } });
    expect(decodePacket(bytes, { maxPushPullEntries: 101 }).ok).toBe(true);
  });

  it('a large push-pull is merged a slice per tick, and at most maxConcurrentPushPulls merge at once', () => {
    const lone = new LoneCore({ mergeSliceEntries: 10, maxConcurrentPushPulls: 2 });
    lone.introduce(...names(100));
    // Peers' states that raise every member's incarnation: news about known members, merged in slices.
    const request = (incarnation: number) => encodePacket([pushPull(names(100).map((n) => entry(n, incarnation)))]);
    const atTwo = () => lone.core.allMembers().filter((m) => m.incarnation === 2).length;
    lone.core.receiveStream(1, 'p1:1', request(2), lone.now);
    expect(atTwo()).toBe(10);
    expect(lone.core.nextDeadline()).toBe(lone.now + 1);
    lone.core.receiveStream(2, 'p2:1', request(2), lone.now);
    const third = lone.core.receiveStream(3, 'p3:1', request(2), lone.now);
    expect(third.some((e) => e.type === 'stream-reply' && e.bytes !== undefined && decodePacket(e.bytes).ok && (decodePacket(e.bytes) as { messages: Message[] }).messages[0]!.type === 'error')).toBe(true);
    expect(lone.core.counters.pushPullsRefused).toBe(1);
    lone.advance(lone.now + 30);
    expect(atTwo()).toBe(100);
    // Both merged: a new one is accepted again.
    lone.core.receiveStream(4, 'p3:1', request(3), lone.now);
    expect(lone.core.counters.pushPullsRefused).toBe(1);
  });

  it('meta above metaMaxBytes from a peer is dropped and counted', () => {
    const lone = new LoneCore({ metaMaxBytes: 4 });
    lone.receive('b:1', encodePacket([alive('b', 1, 'b:1', new Uint8Array(5))]));
    expect(lone.core.member('b')).toBeUndefined();
    expect(lone.core.counters.oversizedMeta).toBe(1);
  });
});

describe('reflection and amplification (finding 3)', () => {
  const pingReq = (over: Partial<Extract<Message, { type: 'ping-req' }>> = {}): Message => ({
    type: 'ping-req',
    seq: 7,
    target: 'c',
    targetAddress: 'c:1',
    nack: true,
    sourceName: 'b',
    sourceAddress: 'b:1',
    ...over,
  });

  it('relays a ping-req from a member, at its address, about a member at its known address', () => {
    const lone = new LoneCore({});
    lone.introduce('b', 'c');
    expect(sentTo(lone.receive('b:1', encodePacket([pingReq()])), 'c:1')[0]![0]).toMatchObject({ type: 'ping', target: 'c' });
  });

  it.each([
    ['from a stranger', 'evil:1', pingReq({ sourceName: 'evil', sourceAddress: 'evil:1' })],
    ['naming a member but sent from elsewhere', 'evil:1', pingReq()],
    ['answered elsewhere', 'b:1', pingReq({ sourceAddress: 'victim:9' })],
  ] as const)('ignores a ping-req %s', (_, from, message) => {
    const lone = new LoneCore({});
    lone.introduce('b', 'c');
    expect(lone.receive(from, encodePacket([message])).filter((e) => e.type === 'send-packet')).toEqual([]);
    expect(lone.core.counters.pingReqsRefused).toBe(1);
  });

  it.each([
    ['about a member at another address', pingReq({ targetAddress: 'victim:9' })],
    ['about an unknown target', pingReq({ target: 'victim', targetAddress: 'victim:9' })],
  ] as const)('answers a member a ping-req %s with a nack at once, and pings nobody', (_, message) => {
    const lone = new LoneCore({});
    lone.introduce('b', 'c');
    const sent = lone.receive('b:1', encodePacket([message])).filter((e) => e.type === 'send-packet');
    expect(sent.map((e) => e.type === 'send-packet' && e.to)).toEqual(['b:1']);
    expect(sentTo(sent, 'b:1')).toEqual([[{ type: 'nack', seq: 7 }]]);
    expect(lone.core.counters.pingReqsRefused).toBe(1);
  });

  it('a ping naming another source address gets a bare ack at the packet source: never more bytes than came in', () => {
    const lone = new LoneCore({});
    lone.introduce(...names(40, 'm'));
    const ping = encodePacket([{ type: 'ping', seq: 1, target: 'me', sourceName: 'm1', sourceAddress: 'victim:9' }]);
    const effects = lone.receive('evil:1', ping);
    // The payload is our protocol range (three bytes): still no more bytes than came in.
    expect(sentTo(effects, 'evil:1')).toEqual([[{ type: 'ack', seq: 1, payload: Uint8Array.of(0x92, 1, 2) }]]);
    expect(packetBytes(effects)).toBeLessThanOrEqual(ping.length);
  });

  it('a stranger accusing us gets a direct answer only when it is at most twice the size of the accusation', () => {
    // A small alive: answered (a member we reaped during its outage must hear our refutation).
    const small = new LoneCore({});
    small.introduce('b');
    const accusation = encodePacket([suspect('me', 1, 'evil')]);
    const answer = sentTo(small.receive('evil:1', accusation), 'evil:1');
    expect(answer).toEqual([[alive('me', 2, 'me:1')]]);
    expect(encodePacket(answer[0]!).length).toBeLessThanOrEqual(2 * accusation.length);
    // 512 bytes of meta: refuted by gossip only.
    const big = new LoneCore({});
    big.core.updateMeta(new Uint8Array(512), big.now);
    big.introduce('b');
    const effects = big.receive('evil:1', encodePacket([suspect('me', 2, 'evil')]));
    expect(big.core.counters.refutations).toBe(1);
    expect(sentTo(effects, 'evil:1')).toEqual([]);
  });
});

describe('names (finding 4)', () => {
  it('a forged leave followed by an alive at another address does not take the name until leftNameReclaimMs', () => {
    const lone = new LoneCore({ leftNameReclaimMs: 30_000 });
    lone.introduce('b', 'c');
    lone.receive('evil:1', encodePacket([dead('b', 1, 'b')]));
    expect(lone.core.member('b')?.state).toBe('left');
    const effects = lone.receive('evil:1', encodePacket([alive('b', 2, 'evil:1')]));
    expect(effects).toContainEqual({ type: 'conflict', name: 'b', existingAddress: 'b:1', otherAddress: 'evil:1' });
    expect(lone.core.member('b')?.address).toBe('b:1');
    // The real member refutes the leave in the meantime.
    lone.receive('b:1', encodePacket([alive('b', 2)]));
    expect(lone.core.member('b')).toMatchObject({ state: 'alive', address: 'b:1', incarnation: 2 });
  });
});

describe('direct refutation (finding 10)', () => {
  it('answers the verdict check even right after answering a buddy accusation from the same member', () => {
    const lone = new LoneCore({});
    lone.introduce('b');
    const accuse = (incarnation: number) =>
      encodePacket([{ type: 'ping', seq: 1, target: 'me', sourceName: 'b', sourceAddress: 'b:1' }, suspect('me', incarnation, 'b')]);
    const first = lone.receive('b:1', accuse(1));
    expect(sentTo(first, 'b:1').some((m) => m.some((x) => x.type === 'alive'))).toBe(true);
    // The answer was lost; b's suspicion expires and it asks once more, 600 ms later.
    lone.advance(600);
    const second = lone.receive('b:1', accuse(1));
    expect(sentTo(second, 'b:1').some((m) => m.some((x) => x.type === 'alive' && x.node === 'me' && x.incarnation === 2))).toBe(true);
  });
});

describe('all effects or none (finding 1)', () => {
  class TrippingRng implements Rng {
    armed = false;
    readonly #inner = createRng(3);
    nextUint32(): number {
      if (this.armed) throw new Error('tripped');
      return this.#inner.nextUint32();
    }
  }

  it('a throw inside a call drops its effects, counts it, and leaves every timer running', () => {
    const rng = new TrippingRng();
    const config: Partial<SwimConfig> = {};
    const core = new SwimCore({ name: 'me', address: 'me:1', rng, now: 0, config });
    introduce(core, [{ name: 'b' }, { name: 'c' }], 0);
    // A refutation (a health effect) and then a new member, whose random probe position throws.
    rng.armed = true;
    expect(() => core.receivePacket('b:1', encodePacket([suspect('me', 1, 'b'), alive('d', 1)]), 10)).toThrow('tripped');
    rng.armed = false;
    expect(core.counters.internalErrors).toBe(1);
    expect(core.tick(10)).toEqual([]);

    // Now a throw inside the timers themselves (a probe pass reshuffles with the rng).
    let now = 10;
    const answer = (effects: Effect[]) => {
      for (const e of effects) {
        if (e.type !== 'send-packet') continue;
        const decoded = decodePacket(e.bytes);
        for (const m of decoded.ok ? decoded.messages : []) {
          if (m.type === 'ping') core.receivePacket(e.to, encodePacket([{ type: 'ack', seq: m.seq, payload: EMPTY }]), now);
        }
      }
    };
    rng.armed = true;
    for (let i = 0; i < 1000 && core.counters.internalErrors === 1; i++) {
      now = Math.max(now, core.nextDeadline() ?? now);
      try {
        answer(core.tick(now));
      } catch {
        // the trip we are waiting for
      }
    }
    rng.armed = false;
    expect(core.counters.internalErrors).toBe(2);
    const probesBefore = core.counters.probes;
    const until = now + 20_000;
    while ((core.nextDeadline() ?? Infinity) <= until) {
      now = Math.max(now, core.nextDeadline()!);
      answer(core.tick(now));
    }
    expect(core.counters.probes - probesBefore).toBeGreaterThanOrEqual(15);
    expect(core.members().map((m) => m.name).sort()).toEqual(['b', 'c', 'me']);
  });
});

describe('user broadcasts from strangers', () => {
  it('a broadcast at an implausible version is dropped, so our next version of the key stays encodable', () => {
    const lone = new LoneCore({});
    lone.introduce('b');
    const forged = { type: 'broadcast', key: 'k', origin: 'b', version: Number.MAX_SAFE_INTEGER, payload: EMPTY } as const;
    lone.receive('b:1', encodePacket([forged]));
    expect(lone.log.some((e) => e.effect.type === 'user-message')).toBe(false);
    expect(lone.core.counters.implausibleUpdates).toBe(1);
    expect(() => lone.core.broadcast('k', new Uint8Array([1]), lone.now)).not.toThrow();
  });
});

describe('invented members do not wreck local health (Lifeguard missed nacks)', () => {
  it('helpers that answered our pings come first, and only their silence counts against us', () => {
    const lone = new LoneCore({});
    lone.introduce('b', 'c', ...names(10));
    // b and c answer pings and nack ping-reqs; the ten invented members never answer anything.
    const network = (effect: Effect, at: LoneCore) => {
      if (effect.type !== 'send-packet' || (effect.to !== 'b:1' && effect.to !== 'c:1')) return;
      const decoded = decodePacket(effect.bytes);
      for (const m of decoded.ok ? decoded.messages : []) {
        if (m.type === 'ping') at.receive(effect.to, encodePacket([{ type: 'ack', seq: m.seq, payload: EMPTY }]));
        if (m.type === 'ping-req' && m.nack) at.receive(effect.to, encodePacket([{ type: 'nack', seq: m.seq }]));
      }
    };
    const scores: number[] = [];
    for (let t = 5_000; t <= 60_000; t += 5_000) {
      lone.advance(t, network);
      scores.push(lone.core.healthScore);
    }
    // Once b and c have answered a ping each (within the first pass), every failed probe of an
    // invented member has b and c as helpers, whose nacks keep the score at 0.
    expect(scores.slice(-6)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(lone.core.counters.probeFailures).toBeGreaterThan(5);
  });
});
