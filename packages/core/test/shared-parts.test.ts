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

  it('shares again after a lone member\'s stream of distinct updates (where it looks up only a sample)', () => {
    // Distinct updates, each encoded once, as one member that applies every update it hears.
    const wrong: number[] = [];
    for (let i = 0; i < 30_000; i++) {
      const message = alive(100_000 + i, 5);
      const part = encodeSharedMessage(message);
      const expected = encodeMessage(message);
      if (part.length !== expected.length || part.some((byte, at) => byte !== expected[at])) wrong.push(i);
    }
    expect(wrong).toEqual([]);
    // Then as many members of one process: each update re-gossiped by three of them, interleaved.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 5_000; i++) encodeSharedMessage(alive(200_000 + i, 9));
    }
    const unshared: number[] = [];
    for (let i = 0; i < 200; i++) {
      if (encodeSharedMessage(alive(300_000 + i, 3)) !== encodeSharedMessage(alive(300_000 + i, 3))) unshared.push(i);
    }
    expect(unshared).toEqual([]);
  });

  it('never shares a large part (user payloads), and is what the native codec queues', () => {
    const big: Message = { type: 'broadcast', key: 'k', origin: 'n1', version: 1, payload: new Uint8Array(400) };
    expect(encodeSharedMessage(big)).not.toBe(encodeSharedMessage(big));
    expect(swimCodec.encodeMessage).toBe(encodeSharedMessage);
  });
});
