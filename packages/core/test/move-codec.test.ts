/**
 * The address a member moved from on @swim's wire (docs/compatibility.md): an alive's and a
 * push-pull entry's element after the protocol range, so written only in protocol version 2 on,
 * and taken off with the range when a queued alive is sent in version 1.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePacket, encodeMessage, encodePacket, partAtVersion, receivedPart } from '../src/codec/codec.js';
import type { AliveMessage, PushPullMessage } from '../src/codec/messages.js';
import { swimCodec } from '../src/codec/wire-codec.js';
import { MAX_ADDRESS_BYTES } from '../src/codec/wire-schema.js';
import { bytes, craftPacket, plain, referenceUnpackr } from './codec-samples.js';

const alive: AliveMessage = { type: 'alive', incarnation: 6, node: 'node-d', address: '10.0.0.9:7946', meta: bytes(0xde, 0xad), protocol: { min: 1, max: 2 } };
const moved: AliveMessage = { ...alive, movedFrom: '10.0.0.4:7946' };

describe('movedFrom on the wire', () => {
  it('follows the range in an alive: one more element, and round-trips', () => {
    const fields = referenceUnpackr.unpack(encodeMessage(moved)) as unknown[];
    expect(fields).toEqual([4, 6, 'node-d', '10.0.0.9:7946', Uint8Array.of(0xde, 0xad), 1, 2, '10.0.0.4:7946']);
    expect(encodeMessage(moved).length).toBe(encodeMessage(alive).length + 1 + '10.0.0.4:7946'.length);
    expect(decodePacket(encodePacket([moved], 2))).toEqual({ ok: true, messages: [moved], version: 2 });
  });

  it('follows the range in a push-pull entry, and round-trips next to entries without it', () => {
    const pushPull: PushPullMessage = {
      type: 'push-pull',
      join: false,
      members: [
        { name: 'a', address: 'a:2', meta: bytes(), incarnation: 3, state: 'alive', protocol: { min: 1, max: 2 }, movedFrom: 'a:1' },
        { name: 'b', address: 'b:1', meta: bytes(), incarnation: 2, state: 'suspect', protocol: { min: 1, max: 2 } },
        { name: 'c', address: 'c:1', meta: bytes(), incarnation: 1, state: 'dead' },
      ],
      userState: bytes(),
    };
    const entries = (referenceUnpackr.unpack(encodeMessage(pushPull)) as unknown[])[2] as unknown[][];
    expect(entries.map((entry) => entry.length)).toEqual([8, 7, 5]);
    expect(entries[0]![7]).toBe('a:1');
    expect(decodePacket(encodePacket([pushPull], 2))).toEqual({ ok: true, messages: [pushPull], version: 2 });
  });

  it('travels only with a range: a message without one is written without it', () => {
    const { protocol: _range, ...bare } = moved;
    const { movedFrom: _move, ...noMove } = bare;
    expect(Array.from(encodeMessage(bare))).toEqual(Array.from(encodeMessage(noMove)));
    const decoded = decodePacket(encodePacket([bare]));
    expect(decoded.ok && decoded.messages[0]).toEqual({ type: 'alive', incarnation: 6, node: 'node-d', address: '10.0.0.9:7946', meta: bytes(0xde, 0xad) });
    const entry = { name: 'a', address: 'a:2', meta: bytes(), incarnation: 3, state: 'alive', movedFrom: 'a:1' } as const;
    const pushPull = decodePacket(encodePacket([{ type: 'push-pull', join: false, members: [entry], userState: bytes() }]));
    expect(pushPull.ok && pushPull.messages[0]).toEqual({ type: 'push-pull', join: false, members: [{ name: 'a', address: 'a:2', meta: bytes(), incarnation: 3, state: 'alive' }], userState: bytes() });
  });

  it('is taken off with the range when a queued alive is sent in version 1', () => {
    const part = swimCodec.encodeMessage(moved);
    expect(partAtVersion(part, 2)).toBe(part);
    const { protocol: _range, movedFrom: _move, ...bare } = moved;
    expect(Array.from(partAtVersion(part, 1))).toEqual(Array.from(encodeMessage(bare)));
  });

  it('reads nil as no move (a later version writing a field after it), which is not our canonical form', () => {
    const fields = referenceUnpackr.unpack(encodeMessage(alive)) as unknown[];
    const result = decodePacket(craftPacket([...fields, null]));
    expect(result.ok && plain(result.messages)).toEqual(plain([alive]));
    expect(result.ok && receivedPart(result.messages, 0)).toBeUndefined();
  });

  it('is passed on byte for byte when received in canonical form, and decodes the same when heard again (the update cache)', () => {
    const packet = encodePacket([moved], 2);
    for (let i = 0; i < 3; i++) {
      const result = decodePacket(packet);
      expect(result.ok && result.messages).toEqual([moved]);
      expect(result.ok && Array.from(receivedPart(result.messages, 0)!)).toEqual(Array.from(encodeMessage(moved)));
    }
  });

  it('refuses to write what the decoder would reject: an empty or too long address', () => {
    expect(() => encodeMessage({ ...alive, movedFrom: '' })).toThrow(/field 'movedFrom' must not be empty/);
    expect(() => encodeMessage({ ...alive, movedFrom: 'x'.repeat(MAX_ADDRESS_BYTES + 1) })).toThrow(RangeError);
    const entry = { name: 'a', address: 'a:2', meta: bytes(), incarnation: 3, state: 'alive', protocol: { min: 1, max: 2 }, movedFrom: '' } as const;
    expect(() => encodeMessage({ type: 'push-pull', join: false, members: [entry], userState: bytes() })).toThrow(/members.movedFrom/);
  });
});

describe('movedFrom (fast-check)', () => {
  const address = fc.oneof(
    fc.string({ minLength: 1, maxLength: 60 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }),
    fc.string({ minLength: MAX_ADDRESS_BYTES, maxLength: MAX_ADDRESS_BYTES, unit: fc.constantFrom('a', '1', ':') }),
  );
  const movedAlive: fc.Arbitrary<AliveMessage> = fc.record({
    type: fc.constant('alive' as const),
    incarnation: fc.nat(0xffff_ffff),
    node: fc.string({ minLength: 1, maxLength: 30 }),
    address,
    meta: fc.uint8Array({ maxLength: 40 }),
    protocol: fc.integer({ min: 1, max: 255 }).chain((min) => fc.integer({ min, max: 255 }).map((max) => ({ min, max }))),
    movedFrom: address,
  });

  it('round-trips in version 2, in an alive and in a push-pull entry, and a version-1 write drops it with the range', () => {
    fc.assert(
      fc.property(movedAlive, (message) => {
        expect(decodePacket(encodePacket([message], 2))).toEqual({ ok: true, messages: [message], version: 2 });
        const entry = { name: message.node, address: message.address, meta: message.meta, incarnation: message.incarnation, state: 'alive' as const, protocol: message.protocol!, movedFrom: message.movedFrom! };
        const pushPull: PushPullMessage = { type: 'push-pull', join: false, members: [entry], userState: bytes() };
        expect(decodePacket(encodePacket([pushPull], 2))).toEqual({ ok: true, messages: [pushPull], version: 2 });
        const { protocol: _range, movedFrom: _move, ...bare } = message;
        const inVersion1 = partAtVersion(swimCodec.encodeMessage(message), 1);
        expect(Array.from(inVersion1)).toEqual(Array.from(encodeMessage(bare)));
        const decoded = decodePacket(Uint8Array.of(1, ...inVersion1));
        expect(decoded.ok && decoded.messages).toEqual([bare]);
      }),
      { seed: 31_0601, numRuns: 300 },
    );
  });
});
