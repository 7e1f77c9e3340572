import fc from 'fast-check';
import { Unpackr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { decodePacket, encodePacket, MESSAGE_TYPE_CODES, receivedPart } from '../src/codec/codec.js';
import type { Message } from '../src/codec/messages.js';
import { cachedUpdateSlots } from '../src/codec/update-cache.js';
import { concat } from './codec-samples.js';

/**
 * The decoder hands out the message it decoded from equal bytes before, for alive, suspect and
 * dead updates (gossip repeats each one to every member many times). Only how fast a message
 * comes back may change: its fields, the canonical flag behind receivedPart, and what fails.
 */

const ascii = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0));
const fixstr = (text: string): number[] => [0xa0 | text.length, ...ascii(text)];
const ALIVE = MESSAGE_TYPE_CODES.alive;
const SUSPECT = MESSAGE_TYPE_CODES.suspect;
const DEAD = MESSAGE_TYPE_CODES.dead;

function decoded(bytes: Uint8Array): Message[] {
  const result = decodePacket(bytes);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.detail}`);
  return result.messages;
}

const packet = (...parts: number[][]): Uint8Array => concat(Uint8Array.of(1), ...parts.map((part) => Uint8Array.from(part)));

/** The updates of a packet as msgpackr reads them, in our field names: a reference that shares nothing with our decoder. */
function reference(bytes: Uint8Array): unknown[] {
  const arrays = new Unpackr({ useRecords: false, mapsAsObjects: true }).unpackMultiple(bytes.subarray(1)) as unknown[][];
  // A later version's message types are skipped, and fields past the ones a type has are ignored.
  const known = new Set<unknown>(Object.values(MESSAGE_TYPE_CODES));
  return arrays.filter(([code]) => known.has(code)).map(([code, ...fields]) => {
    if (code === ALIVE) {
      const [incarnation, node, address, meta] = fields;
      return { type: 'alive', incarnation, node, address, meta: Uint8Array.from(meta as Uint8Array) };
    }
    const [incarnation, node, from] = fields;
    return { type: code === SUSPECT ? 'suspect' : 'dead', incarnation, node, from };
  });
}

/** Repeats one packet until the cache is past its sampling (a member hearing updates again). */
function warmUp(): void {
  const repeated = packet([0x95, ALIVE, 1, ...fixstr('warm'), ...fixstr('warm:1'), 0xc4, 0]);
  for (let i = 0; i < 4096; i++) decoded(repeated);
}

// First in the file: the cache's counters start fresh (later tests hit it on purpose).
describe('update cache bounds', () => {
  const forged = (i: number): Message => ({ type: 'alive', incarnation: 1 + (i % 9), node: `forged-${i}`, address: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}:1`, meta: new Uint8Array(0) });

  it('stays at its first size under a flood of updates each seen once, and grows once they repeat', () => {
    const slots = cachedUpdateSlots();
    for (let p = 0; p < 10_000; p++) decoded(encodePacket(Array.from({ length: 20 }, (_, k) => forged(p * 20 + k))));
    expect(cachedUpdateSlots()).toBe(slots);
    // The same 5,000 updates heard three times each (a simulator's members).
    for (let round = 0; round < 3; round++) {
      for (let p = 0; p < 250; p++) {
        const bytes = encodePacket(Array.from({ length: 20 }, (_, k) => forged(1_000_000 + p * 20 + k)));
        for (let member = 0; member < 3; member++) decoded(bytes);
      }
    }
    expect(cachedUpdateSlots()).toBeGreaterThan(slots);
  });
});

describe('decoded updates heard again', () => {
  it('come back as the message decoded first, equal to what the bytes say', () => {
    warmUp();
    const bytes = packet(
      [0x95, ALIVE, 7, ...fixstr('n1'), ...fixstr('n1:7946'), 0xc4, 2, 9, 8],
      [0x94, SUSPECT, 0xcd, 1, 0, ...fixstr('n2'), ...fixstr('n3')],
      [0x94, DEAD, 3, ...fixstr('n4'), ...fixstr('n4')],
    );
    const first = decoded(bytes);
    const again = decoded(bytes.slice());
    expect(again).toEqual(reference(bytes));
    for (let i = 0; i < 3; i++) expect(again[i]).toBe(first[i]);
    // One byte more in the incarnation is another update.
    const other = decoded(packet([0x95, ALIVE, 8, ...fixstr('n1'), ...fixstr('n1:7946'), 0xc4, 2, 9, 8]));
    expect(other[0]).not.toBe(first[0]);
    expect(other[0]).toMatchObject({ incarnation: 8, node: 'n1' });
  });

  it('keep whether their bytes were canonical: a widened update is never vouched for, first time or again', () => {
    warmUp();
    const canonical = [0x94, SUSPECT, 5, ...fixstr('w1'), ...fixstr('w2')];
    const widened = [0x94, SUSPECT, 0xce, 0, 0, 0, 5, ...fixstr('w1'), ...fixstr('w2')];
    for (let round = 0; round < 3; round++) {
      const messages = decoded(packet(widened, canonical, widened));
      expect(messages[0]).toEqual(messages[1]);
      expect(receivedPart(messages, 0), `round ${round}`).toBeUndefined();
      expect(receivedPart(messages, 1), `round ${round}`).toEqual(Uint8Array.from(canonical));
      expect(receivedPart(messages, 2), `round ${round}`).toBeUndefined();
    }
  });

  it('decode as msgpack reads them and fail alike, whatever the packet (updates repeated, bits flipped, fields widened)', () => {
    warmUp();
    const names = ['a', 'b', 'node-with-a-longer-name', 'é'];
    const update = fc.oneof(
      fc.record({ type: fc.constant('alive' as const), incarnation: fc.constantFrom(0, 1, 200, 70_000, 0xffff_ffff), node: fc.constantFrom(...names), address: fc.constantFrom('a:1', '10.0.0.1:7946'), meta: fc.constantFrom(new Uint8Array(0), Uint8Array.of(1, 2), new Uint8Array(90)) }),
      fc.record({ type: fc.constantFrom('suspect' as const, 'dead' as const), incarnation: fc.constantFrom(0, 3, 300), node: fc.constantFrom(...names), from: fc.constantFrom(...names) }),
    );
    const packets = fc
      .tuple(fc.array(update, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 2 }), fc.array(fc.nat(), { maxLength: 2 }))
      .map(([updates, flips, widenings]) => {
        let bytes = Array.from(encodePacket(updates as Message[]));
        for (const flip of flips) {
          const bit = 8 + (flip % ((bytes.length - 1) * 8));
          bytes[bit >> 3]! ^= 1 << (bit & 7);
        }
        for (const widening of widenings) {
          const at = 1 + (widening % (bytes.length - 1));
          const token = bytes[at]!;
          if (token < 0x80) bytes = [...bytes.slice(0, at), 0xcc, token, ...bytes.slice(at + 1)];
          else if (token >= 0xa0 && token <= 0xbf) bytes = [...bytes.slice(0, at), 0xd9, token & 0x1f, ...bytes.slice(at + 1)];
        }
        return Uint8Array.from(bytes);
      });
    let hits = 0;
    let failures = 0;
    fc.assert(
      fc.property(packets, (bytes) => {
        const first = decodePacket(bytes);
        const firstVouched = first.ok ? first.messages.map((_, i) => receivedPart(first.messages, i)) : [];
        const again = decodePacket(bytes.slice());
        expect(again.ok).toBe(first.ok);
        if (!first.ok || !again.ok) {
          failures++;
          expect(again).toEqual(first);
          return;
        }
        expect(again.messages).toEqual(reference(bytes));
        again.messages.forEach((message, i) => {
          if (message === first.messages[i]) hits++;
          expect(receivedPart(again.messages, i)).toEqual(firstVouched[i]);
        });
      }),
      { numRuns: 2000 },
    );
    // Both paths were exercised: updates handed out again, and packets that fail.
    expect(hits).toBeGreaterThan(1000);
    expect(failures).toBeGreaterThan(50);
  });
});
