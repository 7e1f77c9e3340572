/**
 * A member that missed a move holds the mover at the address it left, probes it there, and
 * suspects it; nobody passes that stale suspicion on, so the mover never hears it to refute. Any
 * member that holds the move and hears the stale accusation tells its sender the move directly
 * (membership.ts #correctMissedMove), so the suspicion ends before it runs out into a false death.
 */
import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, SwimCore, type Effect, type Message, type PushPullEntry } from '../src/index.js';

const RANGE = { min: 1, max: 2 } as const;
const EMPTY = new Uint8Array(0);

/** A core `me` at me:1 that joined b, c and d (each at name:1, incarnation 1, range 1-2), then heard b move to b:2. */
function heardMove(): SwimCore {
  const core = new SwimCore({ name: 'me', address: 'me:1', seed: 7, now: 0 });
  const members: PushPullEntry[] = ['b', 'c', 'd'].map((name) => ({ name, address: `${name}:1`, meta: EMPTY, incarnation: 1, state: 'alive', protocol: RANGE }));
  const request = core.join(['b:1'], 1, 0).find((e) => e.type === 'stream-request');
  if (request?.type !== 'stream-request') throw new Error('no join request');
  core.step({ type: 'stream-response', requestId: request.requestId, bytes: encodePacket([{ type: 'push-pull', join: true, members, userState: EMPTY }], 2) }, 0);
  core.receivePacket('b:2', encodePacket([{ type: 'alive', incarnation: 2, node: 'b', address: 'b:2', meta: EMPTY, protocol: RANGE, movedFrom: 'b:1' }], 2), 1);
  expect(core.member('b')).toMatchObject({ address: 'b:2', incarnation: 2, state: 'alive' });
  return core;
}

/** Messages sent straight to `to` among `effects`. */
function sentTo(effects: readonly Effect[], to: string): Message[] {
  return effects.flatMap((effect) => {
    if (effect.type !== 'send-packet' || effect.to !== to) return [];
    const decoded = decodePacket(effect.bytes);
    return decoded.ok ? decoded.messages : [];
  });
}

const staleSuspect = encodePacket([{ type: 'suspect', incarnation: 1, node: 'b', from: 'c' }], 2);

describe('a stale accusation about a moved member', () => {
  it('is answered to its sender with the move it missed, once per answer interval', () => {
    const core = heardMove();
    const effects = core.receivePacket('c:1', staleSuspect, 10);
    expect(sentTo(effects, 'c:1')).toContainEqual({ type: 'alive', incarnation: 2, node: 'b', address: 'b:2', meta: EMPTY, protocol: RANGE, movedFrom: 'b:1' });
    expect(core.counters.missedMovesCorrected).toBe(1);
    // The same sender again at once: not answered twice.
    expect(sentTo(core.receivePacket('c:1', staleSuspect, 11), 'c:1').filter((m) => m.type === 'alive')).toEqual([]);
    // A stale dead from another member is answered too; the accusation changes nothing here.
    const dead = core.receivePacket('d:1', encodePacket([{ type: 'dead', incarnation: 1, node: 'b', from: 'd' }], 2), 12);
    expect(sentTo(dead, 'd:1').filter((m) => m.type === 'alive' && m.node === 'b')).toHaveLength(1);
    expect(core.member('b')).toMatchObject({ address: 'b:2', incarnation: 2, state: 'alive' });
    expect(core.counters.missedMovesCorrected).toBe(2);
  });

  it('is not answered when it is current, about a member that never moved, or from an address that is no member', () => {
    const core = heardMove();
    const current = core.receivePacket('c:1', encodePacket([{ type: 'suspect', incarnation: 2, node: 'b', from: 'c' }], 2), 10);
    expect(sentTo(current, 'c:1').filter((m) => m.type === 'alive' && m.node === 'b')).toEqual([]);
    const never = core.receivePacket('c:1', encodePacket([{ type: 'suspect', incarnation: 0, node: 'd', from: 'c' }], 2), 11);
    expect(sentTo(never, 'c:1').filter((m) => m.type === 'alive')).toEqual([]);
    const stranger = core.receivePacket('evil:9', staleSuspect, 12);
    expect(sentTo(stranger, 'evil:9')).toEqual([]);
    expect(core.counters.missedMovesCorrected).toBe(0);
  });
});
