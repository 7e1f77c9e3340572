import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePacket, encodeMessage, encodePacket, MESSAGE_TYPE_CODES, receivedPart } from '../src/codec/codec.js';
import type { Message } from '../src/codec/messages.js';
import { swimCodec } from '../src/codec/wire-codec.js';
import type { Effect, SendPacketEffect } from '../src/index.js';
import { concat, sampleMessages } from './codec-samples.js';
import { LoneCore } from './harness/lone-core.js';

/**
 * A member passing on an update it just received copies the update's bytes from the packet
 * instead of encoding it again, but only when those bytes are exactly what encoding gives: a
 * peer may write an integer, a length or a header wider than needed (any msgpack writer may),
 * and the update must go on in our canonical form whatever it came in.
 */

const ascii = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0));
const fixstr = (text: string): number[] => [0xa0 | text.length, ...ascii(text)];
const SUSPECT = MESSAGE_TYPE_CODES.suspect;
const ALIVE = MESSAGE_TYPE_CODES.alive;

function decoded(bytes: Uint8Array): Message[] {
  const result = decodePacket(bytes);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.detail}`);
  return result.messages;
}

describe('receivedPart', () => {
  it('is the bytes encodeMessage gives, for every message of a canonical packet', () => {
    const messages = decoded(encodePacket(sampleMessages));
    messages.forEach((message, i) => expect(receivedPart(messages, i)).toEqual(encodeMessage(message)));
    expect(swimCodec.receivedPart).toBe(receivedPart);
  });

  it('refuses a message written wider than needed, and still vouches for its canonical neighbours', () => {
    const canonical = Array.from(encodeMessage({ type: 'suspect', incarnation: 5, node: 'n1', from: 'n2' }));
    const variants: Record<string, number[]> = {
      'incarnation as uint32': [0x94, SUSPECT, 0xce, 0, 0, 0, 5, ...fixstr('n1'), ...fixstr('n2')],
      'incarnation as uint8': [0x94, SUSPECT, 0xcc, 5, ...fixstr('n1'), ...fixstr('n2')],
      'incarnation as a float': [0x94, SUSPECT, 0xcb, 0x40, 0x14, 0, 0, 0, 0, 0, 0, ...fixstr('n1'), ...fixstr('n2')],
      'incarnation as int8': [0x94, SUSPECT, 0xd0, 5, ...fixstr('n1'), ...fixstr('n2')],
      'name as str8': [0x94, SUSPECT, 5, 0xd9, 2, ...ascii('n1'), ...fixstr('n2')],
      'name as str16': [0x94, SUSPECT, 5, 0xda, 0, 2, ...ascii('n1'), ...fixstr('n2')],
      'array as array16': [0xdc, 0, 4, SUSPECT, 5, ...fixstr('n1'), ...fixstr('n2')],
      'type code as uint8': [0x94, 0xcc, SUSPECT, 5, ...fixstr('n1'), ...fixstr('n2')],
      'meta as bin16': [0x95, ALIVE, 5, ...fixstr('n1'), ...fixstr('a:1'), 0xc5, 0, 2, 7, 7],
    };
    for (const [what, bytes] of Object.entries(variants)) {
      const messages = decoded(concat(Uint8Array.of(1), Uint8Array.from(canonical), Uint8Array.from(bytes), Uint8Array.from(canonical)));
      expect(messages, what).toHaveLength(3);
      expect(receivedPart(messages, 1), what).toBeUndefined();
      expect(receivedPart(messages, 0), what).toEqual(Uint8Array.from(canonical));
      expect(receivedPart(messages, 2), what).toEqual(Uint8Array.from(canonical));
    }
  });

  it('vouches only for the latest decode, and for indexes inside it', () => {
    const first = decoded(encodePacket(sampleMessages.slice(0, 3)));
    expect(receivedPart(first, 0)).toBeDefined();
    expect(receivedPart(first, 3)).toBeUndefined();
    expect(receivedPart(first, -1)).toBeUndefined();
    expect(receivedPart([...first], 0)).toBeUndefined();
    const second = decoded(encodePacket(sampleMessages.slice(3, 5)));
    expect(receivedPart(first, 0)).toBeUndefined();
    expect(receivedPart(second, 1)).toEqual(encodeMessage(second[1]!));
    // A packet that fails to decode leaves nothing to vouch for either.
    expect(decodePacket(Uint8Array.of(1, 0xc1)).ok).toBe(false);
    expect(receivedPart(second, 1)).toBeUndefined();
  });

  it('never gives bytes that differ from encodeMessage, whatever packet decodes (bits flipped, fields widened)', () => {
    const small = fc.oneof(
      fc.record({ type: fc.constant('suspect' as const), incarnation: fc.nat(0xffff_ffff), node: fc.string({ minLength: 1, maxLength: 40 }), from: fc.string({ minLength: 1, maxLength: 4 }) }),
      fc.record({
        type: fc.constant('alive' as const),
        incarnation: fc.nat(0xffff_ffff),
        node: fc.string({ minLength: 1, maxLength: 40 }),
        address: fc.string({ minLength: 1, maxLength: 8 }),
        meta: fc.uint8Array({ maxLength: 300 }),
      }),
      fc.constantFrom(...sampleMessages.filter((m) => m.type !== 'push-pull' && m.type !== 'error')),
    );
    /** Flip bits, or widen a header or integer in place (a byte pattern our writer never uses). */
    const mangled = fc
      .tuple(fc.array(small, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 3 }), fc.array(fc.nat(), { maxLength: 2 }))
      .map(([ms, flips, widenings]) => {
        let packet = Array.from(encodePacket(ms as Message[]));
        for (const flip of flips) {
          const bit = flip % (packet.length * 8);
          packet[bit >> 3]! ^= 1 << (bit & 7);
        }
        for (const widening of widenings) {
          const at = 1 + (widening % (packet.length - 1));
          const token = packet[at]!;
          // A positive fixint as uint8, a fixstr header as str8.
          if (token < 0x80) packet = [...packet.slice(0, at), 0xcc, token, ...packet.slice(at + 1)];
          else if (token >= 0xa0 && token <= 0xbf) packet = [...packet.slice(0, at), 0xd9, token & 0x1f, ...packet.slice(at + 1)];
        }
        return Uint8Array.from(packet);
      });
    let vouched = 0;
    let refused = 0;
    fc.assert(
      fc.property(mangled, (packet) => {
        const result = decodePacket(packet);
        if (!result.ok) return;
        result.messages.forEach((message, i) => {
          const part = receivedPart(result.messages, i);
          if (part === undefined) {
            refused++;
            return;
          }
          vouched++;
          expect(Array.from(part)).toEqual(Array.from(encodeMessage(message)));
        });
      }),
      // fast-check's medium size (tooling/vitest/fast-check-seed.ts) makes packets longer, so fewer
      // flips land in a header: more runs keep both outcomes exercised.
      { numRuns: 5000 },
    );
    // Both outcomes were exercised.
    expect(vouched).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });
});

describe('an update passed on', () => {
  const sends = (effects: readonly Effect[]): SendPacketEffect[] => effects.filter((e): e is SendPacketEffect => e.type === 'send-packet');

  function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
    outer: for (let at = 0; at + needle.length <= haystack.length; at++) {
      for (let i = 0; i < needle.length; i++) if (haystack[at + i] !== needle[i]) continue outer;
      return true;
    }
    return false;
  }

  it('goes on in canonical form, however wide the packet that brought it wrote it', () => {
    const lone = new LoneCore({ probeIntervalMs: 60_000, gossipIntervalMs: 60_000, pushPullIntervalMs: 0 }, 3);
    lone.introduce('a', 'b');
    // Drain the join's own gossip, so the ack below carries what the packets bring.
    for (let seq = 1; lone.core.queuedBroadcasts > 0 && seq < 100; seq++) {
      lone.receive('a:1', encodePacket([{ type: 'ping', seq, target: 'me', sourceName: 'a', sourceAddress: '' }]));
    }
    expect(lone.core.queuedBroadcasts).toBe(0);

    const alive: Message = { type: 'alive', incarnation: 2, node: 'b', address: 'b:1', meta: new Uint8Array(0) };
    const canonical = encodeMessage(alive);
    // The same alive with its incarnation as a uint32 (5 bytes instead of 1): still alive b at 2.
    const wide = Uint8Array.from([0x95, ALIVE, 0xce, 0, 0, 0, 2, ...fixstr('b'), ...fixstr('b:1'), 0xc4, 0]);
    const suspect: Message = { type: 'suspect', incarnation: 2, node: 'a', from: 'b' };
    // The ping last: its ack carries what the packet's updates queued.
    const packet = concat(Uint8Array.of(1), wide, encodeMessage(suspect), encodeMessage({ type: 'ping', seq: 500, target: 'me', sourceName: 'a', sourceAddress: '' }));
    expect(decoded(packet)[0]).toEqual(alive);

    const [ack] = sends(lone.receive('a:1', packet));
    expect(ack).toBeDefined();
    const carried = decoded(ack!.bytes);
    expect(carried.map((m) => m.type).sort()).toEqual(['ack', 'alive', 'suspect']);
    expect(contains(ack!.bytes, canonical)).toBe(true);
    expect(contains(ack!.bytes, wide)).toBe(false);
    expect(contains(ack!.bytes, encodeMessage(suspect))).toBe(true);
  });
});
