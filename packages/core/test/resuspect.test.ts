import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, memberlistProfile, presets, type Effect } from '../src/index.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * A member refutes an accusation and is accused again at its new incarnation before its
 * refutation reaches us (gossip races: `pnpm bench starve` found it with real agents). The second
 * accusation is a new suspicion with its own timer; the first timer must not judge it.
 * The memberlist profile isolates the rule: no direct refutation, no grace, no health scaling.
 */
const config = memberlistProfile(presets.lan());

/** Every ping is acked, so our own probes never confirm the suspicion; b's own alive messages are delivered by `run`. */
function answerPings(effect: Effect, n: LoneCore): void {
  if (effect.type !== 'send-packet') return;
  const decoded = decodePacket(effect.bytes);
  if (!decoded.ok) return;
  for (const m of decoded.messages) if (m.type === 'ping') n.receive(effect.to, encodePacket([{ type: 'ack', seq: m.seq, payload: new Uint8Array(0) }]));
}

const suspect = (incarnation: number, from: string) => encodePacket([{ type: 'suspect', incarnation, node: 'b', from }]);
const alive = (incarnation: number) => encodePacket([{ type: 'alive', incarnation, node: 'b', address: 'b:1', meta: new Uint8Array(0) }]);

/** b accused at 1 by c at time 0, then `then` at the given times; returns when b died (ms after the first accusation), if it did. */
function run(then: ReadonlyArray<readonly [at: number, from: string, bytes: Uint8Array]>): number | undefined {
  const node = new LoneCore(config);
  node.introduce('b', 'c', 'd');
  const start = node.now;
  node.receive('c:1', suspect(1, 'c'));
  for (const [at, from, bytes] of then) {
    node.advance(start + at, answerPings);
    node.receive(from, bytes);
  }
  node.advance(start + 60_000, answerPings);
  const dead = node.memberEvents().find((e) => e.effect.event === 'dead' && e.effect.member.name === 'b');
  return dead === undefined ? undefined : dead.at - start;
}

describe('an accusation at a newer incarnation of a member already suspect', () => {
  const timeout = run([])!;

  it('is judged by a timer of its own, from when it arrived', () => {
    expect(timeout).toBeGreaterThan(3_000);
    // b refuted 1 with 2 and d accused it at 2; b's alive at 2 arrives after that accusation and
    // cannot clear it (suspect beats alive at an equal incarnation), so b dies, but a whole timeout
    // after the accusation at 2, not when the timer of the accusation at 1 runs out.
    expect(run([[3_000, 'd:1', suspect(2, 'd')], [3_100, 'b:1', alive(2)]])).toBe(3_000 + timeout);
  });

  it("leaves the member time to refute the new accusation, which clears it", () => {
    expect(run([[3_000, 'd:1', suspect(2, 'd')], [3_100, 'b:1', alive(2)], [timeout, 'b:1', alive(3)]])).toBeUndefined();
  });

  it('an accusation at the same incarnation is still a confirmation of the running timer', () => {
    expect(run([[3_000, 'd:1', suspect(1, 'd')]])).toBeLessThanOrEqual(timeout);
  });
});
