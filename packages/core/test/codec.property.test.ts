import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assemblePacket,
  decodePacket,
  encodedSize,
  encodeMessage,
  encodePacket,
  MESSAGE_TYPE_CODES,
  PACKET_HEADER_BYTES,
  type DecodeErrorCode,
  type DecodeResult,
} from '../src/codec/codec.js';
import type { Message, PushPullEntry } from '../src/codec/messages.js';
import { MEMBER_STATES } from '../src/members/member.js';
import { concat, plain, referencePackr, referenceUnpackr } from './codec-samples.js';

const ERROR_CODES: readonly DecodeErrorCode[] = ['empty', 'version', 'malformed', 'unknown-type', 'invalid-field', 'too-many'];

// --- arbitraries of valid messages ---

/** Biased towards the boundaries of msgpack's integer widths. */
const uint32 = fc.oneof(
  fc.constantFrom(0, 1, 127, 128, 255, 256, 65_535, 65_536, 0x7fff_ffff, 0xffff_ffff),
  fc.tuple(fc.nat(0xffff), fc.nat(0xffff)).map(([high, low]) => high * 0x1_0000 + low),
);
const safeUint = fc.oneof(uint32, fc.constantFrom(2 ** 32, Number.MAX_SAFE_INTEGER), fc.maxSafeNat());
/** 1 to 32 code points of up to 4 UTF-8 bytes: never over the 128-byte bound of names. */
const name = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 32 }));
const byteArray = fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ minLength: 250, maxLength: 70_000 }));
const smallBytes = fc.uint8Array({ maxLength: 40 });

const entry: fc.Arbitrary<PushPullEntry> = fc.record({
  name,
  address: name,
  meta: smallBytes,
  incarnation: uint32,
  state: fc.constantFrom(...MEMBER_STATES),
});

const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ type: fc.constant('ping' as const), seq: uint32, target: name, sourceName: name, sourceAddress: name }),
  fc.record({
    type: fc.constant('ping-req' as const),
    seq: uint32,
    target: name,
    targetAddress: name,
    nack: fc.boolean(),
    sourceName: name,
    sourceAddress: name,
  }),
  fc.record({ type: fc.constant('ack' as const), seq: uint32, payload: byteArray }),
  fc.record({ type: fc.constant('nack' as const), seq: uint32 }),
  fc.record({ type: fc.constant('suspect' as const), incarnation: uint32, node: name, from: name }),
  fc.record({ type: fc.constant('alive' as const), incarnation: uint32, node: name, address: name, meta: byteArray }),
  fc.record({ type: fc.constant('dead' as const), incarnation: uint32, node: name, from: name }),
  fc.record({
    type: fc.constant('push-pull' as const),
    join: fc.boolean(),
    members: fc.array(entry, { maxLength: 40 }),
    userState: byteArray,
  }),
  fc.record({ type: fc.constant('broadcast' as const), key: name, origin: name, version: safeUint, payload: byteArray }),
  fc.record({ type: fc.constant('user' as const), from: name, payload: byteArray }),
  fc.record({ type: fc.constant('error' as const), message: fc.string({ unit: 'binary', maxLength: 4096 }) }),
);
const messages = fc.array(message, { minLength: 1, maxLength: 12 });
/** Small messages only, so trying every prefix of a packet stays fast. */
const smallMessage = message.filter((m) => encodedSize(m) < 400);

/** The wire array of a message, as a reference msgpack decoder sees it. */
function wireArray(m: Message): unknown[] {
  const code = MESSAGE_TYPE_CODES[m.type];
  switch (m.type) {
    case 'ping':
      return [code, m.seq, m.target, m.sourceName, m.sourceAddress];
    case 'ping-req':
      return [code, m.seq, m.target, m.targetAddress, m.nack, m.sourceName, m.sourceAddress];
    case 'ack':
      return [code, m.seq, m.payload];
    case 'nack':
      return [code, m.seq];
    case 'suspect':
    case 'dead':
      return [code, m.incarnation, m.node, m.from];
    case 'alive':
      return [code, m.incarnation, m.node, m.address, m.meta];
    case 'push-pull':
      return [
        code,
        m.join,
        m.members.map((e) => [e.name, e.address, e.meta, e.incarnation, MEMBER_STATES.indexOf(e.state)]),
        m.userState,
      ];
    case 'broadcast':
      return [code, m.key, m.origin, m.version, m.payload];
    case 'user':
      return [code, m.from, m.payload];
    case 'error':
      return [code, m.message];
  }
}

/** Decoding must come back as a well-formed result, whatever the input. */
function expectWellFormed(result: DecodeResult): void {
  if (result.ok) {
    expect(Array.isArray(result.messages)).toBe(true);
  } else {
    expect(ERROR_CODES).toContain(result.error.code);
    expect(typeof result.error.detail).toBe('string');
  }
}

describe('codec properties', () => {
  it('round-trips arbitrary messages of every type', () => {
    fc.assert(
      fc.property(messages, (ms) => {
        const packet = encodePacket(ms);
        const result = decodePacket(packet);
        if (!result.ok) throw new Error(`${result.error.code}: ${result.error.detail}`);
        expect(plain(result.messages)).toEqual(plain(ms));
        // The budgeting identities the rest of the core relies on.
        const parts = ms.map(encodeMessage);
        expect(parts.map((part) => part.length)).toEqual(ms.map(encodedSize));
        expect(Array.from(assemblePacket(parts))).toEqual(Array.from(packet));
        expect(packet.length).toBe(PACKET_HEADER_BYTES + parts.reduce((sum, part) => sum + part.length, 0));
      }),
      { numRuns: 400 },
    );
  });

  it('writes standard msgpack, and reads what a reference encoder writes', () => {
    fc.assert(
      fc.property(messages, (ms) => {
        const values = referenceUnpackr.unpackMultiple(encodePacket(ms).subarray(PACKET_HEADER_BYTES)) as unknown[];
        expect(plain(values)).toEqual(plain(ms.map(wireArray)));
        const crafted = concat(Uint8Array.of(1), ...ms.map((m) => Uint8Array.from(referencePackr.pack(wireArray(m)))));
        const result = decodePacket(crafted);
        expect(result.ok && plain(result.messages)).toEqual(plain(ms));
      }),
      { numRuns: 200 },
    );
  });

  it('either refuses to encode a message or round-trips it exactly', () => {
    const anyNumber = fc.oneof(uint32, fc.integer(), fc.double(), fc.constantFrom(-1, 2 ** 32, 2 ** 53));
    const anyText = fc.string({ unit: fc.nat(0xffff).map((unit) => String.fromCharCode(unit)), maxLength: 200 });
    const wild = fc.oneof(
      fc.record({ type: fc.constant('suspect' as const), incarnation: anyNumber, node: anyText, from: anyText }),
      fc.record({ type: fc.constant('broadcast' as const), key: anyText, origin: anyText, version: anyNumber, payload: smallBytes }),
      fc.record({ type: fc.constant('error' as const), message: fc.oneof(anyText, fc.string({ minLength: 4090, maxLength: 4100 })) }),
    );
    fc.assert(
      fc.property(wild, (m: Message) => {
        let packet: Uint8Array;
        try {
          packet = encodePacket([m]);
        } catch (error) {
          expect(error instanceof RangeError || error instanceof TypeError).toBe(true);
          return;
        }
        const result = decodePacket(packet);
        expect(result.ok && plain(result.messages)).toEqual(plain([m]));
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws on arbitrary bytes', () => {
    const tokens = fc.oneof(
      fc.nat(255),
      fc.constantFrom(0x90, 0x92, 0x94, 0x95, 0x97, 0xdc, 0xdd, 0xa3, 0xd9, 0xda, 0xdb, 0xc4, 0xc5, 0xc6, 0xcc, 0xce, 0xcf, 0xd4, 0xc1),
    );
    const anyBytes = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      fc.array(tokens, { maxLength: 300 }).map((values) => Uint8Array.from([1, ...values])),
    );
    fc.assert(
      fc.property(anyBytes, (input) => {
        expectWellFormed(decodePacket(input));
      }),
      { numRuns: 5000 },
    );
  });

  it('rejects every cut inside a message, and accepts every cut between messages', () => {
    fc.assert(
      fc.property(fc.array(smallMessage, { minLength: 2, maxLength: 6 }), (ms) => {
        const packet = encodePacket(ms);
        // Where each message ends: cuts there leave a shorter, valid packet.
        const boundaries = new Map<number, number>();
        let end = PACKET_HEADER_BYTES;
        ms.forEach((m, i) => boundaries.set((end += encodedSize(m)), i + 1));
        for (let length = 0; length < packet.length; length++) {
          const result = decodePacket(packet.subarray(0, length));
          expectWellFormed(result);
          const complete = boundaries.get(length);
          if (length <= PACKET_HEADER_BYTES) {
            expect(!result.ok && result.error.code).toBe('empty');
          } else if (complete !== undefined) {
            expect(result.ok && plain(result.messages)).toEqual(plain(ms.slice(0, complete)));
          } else {
            expect(!result.ok && result.error.code).toBe('malformed');
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('never throws when bits of a valid packet flip', () => {
    const flipped = fc
      .tuple(fc.array(smallMessage, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { minLength: 1, maxLength: 4 }))
      .map(([ms, positions]) => {
        const packet = Uint8Array.from(encodePacket(ms));
        for (const position of positions) {
          const bit = position % (packet.length * 8);
          packet[bit >> 3]! ^= 1 << (bit & 7);
        }
        return packet;
      });
    fc.assert(
      fc.property(flipped, (packet) => {
        expectWellFormed(decodePacket(packet));
      }),
      { numRuns: 3000 },
    );
  });
});
