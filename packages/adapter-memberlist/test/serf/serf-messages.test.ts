import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeJoinIntent, encodeLeaveIntent, encodeUserEvent, readPushPullClocks, readSerfMessage } from '../../src/serf/serf-messages.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const ascii = (text: string) => Buffer.from(text, 'latin1').toString('hex');

describe('Serf messages inside memberlist user messages', () => {
  // The leave intent of `serf leave` from node "b", captured after its memberlist [8] byte.
  const capturedLeave = `00 83 a5${ascii('LTime')} 02 a4${ascii('Node')} a1${ascii('b')} a5${ascii('Prune')} c2`;

  it('encodes a leave intent byte for byte as a Serf agent does', () => {
    expect(hex(encodeLeaveIntent(2, 'b'))).toBe(capturedLeave.replace(/\s+/g, ''));
  });

  it('reads the captured leave intent', () => {
    expect(readSerfMessage(bytes(capturedLeave))).toEqual({ kind: 'leave', ltime: 2, node: 'b', prune: false });
  });

  it('join intents and user events round-trip; keys in any order and unknown keys are fine', () => {
    expect(readSerfMessage(encodeJoinIntent(7, 'swim-1'))).toEqual({ kind: 'join', ltime: 7, node: 'swim-1' });
    expect(readSerfMessage(encodeUserEvent(3, 'deploy', Uint8Array.of(1, 2), false))).toEqual({
      kind: 'user-event',
      ltime: 3,
      name: 'deploy',
      payload: Uint8Array.of(1, 2),
      coalesce: false,
    });
    // {Node: "n", Extra: 1, LTime: 9}, in that order.
    const shuffled = bytes(`01 83 a4${ascii('Node')} a1${ascii('n')} a5${ascii('Extra')} 01 a5${ascii('LTime')} 09`);
    expect(readSerfMessage(shuffled)).toEqual({ kind: 'join', ltime: 9, node: 'n' });
  });

  it('queries and other kinds are told apart without being decoded', () => {
    expect(readSerfMessage(bytes(`04 81 a5${ascii('LTime')} 05`))).toEqual({ kind: 'query', ltime: 5 });
    expect(readSerfMessage(bytes('09 80'))).toEqual({ kind: 'other', type: 9 });
  });

  it('anything else is not a Serf message, and never throws', () => {
    expect(readSerfMessage(new Uint8Array())).toBeUndefined();
    expect(readSerfMessage(bytes('00 85'))).toBeUndefined();
    // An LTime past 2^53 cannot be kept exactly: refused rather than rounded.
    expect(readSerfMessage(bytes(`00 81 a5${ascii('LTime')} cf ffffffffffffffff`))).toBeUndefined();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (random) => {
        readSerfMessage(random);
        readPushPullClocks(random);
      }),
    );
  });

  it("reads the Lamport clocks of Serf's push-pull state", () => {
    const state = bytes(`02 84 aa${ascii('EventLTime')} 01 a6${ascii('Events')} 90 a5${ascii('LTime')} cd0102 aa${ascii('QueryLTime')} 03`);
    expect(readPushPullClocks(state)).toEqual({ ltime: 0x102, eventLTime: 1, queryLTime: 3 });
    expect(readPushPullClocks(bytes('01 80'))).toBeUndefined();
  });
});
