import { describe, expect, it } from 'vitest';
import { encodeMessage, encodeSharedMessage } from '../src/codec/codec.js';
import type { Message } from '../src/codec/messages.js';
import { swimCodec } from '../src/codec/wire-codec.js';
import { sampleMessages } from './codec-samples.js';

const alive = (i: number, incarnation = 1): Message => ({ type: 'alive', incarnation, node: `n${i}`, address: `n${i}:7946`, meta: new Uint8Array(0) });

/** Equal updates encoded by many members of one process share one read-only array; the bytes never change. */
describe('encodeSharedMessage', () => {
  it('gives the bytes of encodeMessage for every message type', () => {
    for (const message of sampleMessages) expect(encodeSharedMessage(message)).toEqual(encodeMessage(message));
  });

  it('hands out one array for equal updates, and the right bytes for 20,000 distinct ones (the table grows meanwhile)', () => {
    const first = encodeSharedMessage(alive(1));
    expect(encodeSharedMessage(alive(1))).toBe(first);
    expect(encodeSharedMessage(alive(1, 2))).not.toBe(first);
    const wrong: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 20_000; i++) {
        const message = alive(i, 1 + (i % 7));
        const expected = encodeMessage(message);
        // Three members re-gossip each: hits outnumber misses, so the table grows.
        for (let member = 0; member < 3; member++) {
          const part = encodeSharedMessage(message);
          if (part.length !== expected.length || part.some((byte, at) => byte !== expected[at])) wrong.push(i);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(encodeSharedMessage(alive(19_999, 1 + (19_999 % 7)))).toBe(encodeSharedMessage(alive(19_999, 1 + (19_999 % 7))));
  });

  it('never shares a large part (user payloads), and is what the native codec queues', () => {
    const big: Message = { type: 'broadcast', key: 'k', origin: 'n1', version: 1, payload: new Uint8Array(400) };
    expect(encodeSharedMessage(big)).not.toBe(encodeSharedMessage(big));
    expect(swimCodec.encodeMessage).toBe(encodeSharedMessage);
  });
});
