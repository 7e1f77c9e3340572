/**
 * Forward-compatible decoding (docs/compatibility.md): a later version may add message types and
 * trailing fields, and this one still reads what it knows. A message of an unknown type is skipped
 * and counted, the rest of its packet handled; fields after the ones a type has here are skipped;
 * anything wrong in what this version does know still rejects the whole packet, and what is
 * skipped stays within the decoder's bounds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePacket, encodeMessage, MAX_MESSAGES_PER_PACKET, MESSAGE_TYPE_CODES, receivedPart } from '../src/codec/codec.js';
import { MAX_SKIP_DEPTH } from '../src/codec/msgpack-reader.js';
import { swimCodec } from '../src/codec/wire-codec.js';
import type { Message } from '../src/codec/messages.js';
import { bytes, craftPacket, plain, pushPullMembers, referencePackr, referenceUnpackr, sampleMessages } from './codec-samples.js';
import { LoneCore } from './harness/lone-core.js';

/** Type codes no message has in this version: what a later one may use. */
const FUTURE_CODE = Math.max(...Object.values(MESSAGE_TYPE_CODES)) + 1;

/** Values of every msgpack family a later version might write, nested and not. */
const FUTURE_FIELDS: unknown[] = [null, true, -5, 2 ** 40, 1.5, 'text', bytes(1, 2, 3), [1, ['deep', [bytes()]]], { key: 'value', n: [1, 2] }];

/**
 * The protocol range (protocol-range.ts) an alive carries before any field a later version adds:
 * since version 2, the sixth and seventh elements of an alive are known fields, not extras.
 */
const RANGE: readonly [number, number] = [1, 3];

/**
 * The eighth element of an alive, also known: the address its member moved from. A later version
 * that adds a field after it writes nil there when the member did not move.
 */
const NO_MOVE = null;

/** A message as the msgpack array it travels as, with `extra` fields after the ones it has (after an alive's range and move). */
function withExtraFields(message: Message, extra: readonly unknown[]): unknown[] {
  const range = message.type === 'alive' && extra.length > 0 ? [...RANGE, NO_MOVE] : [];
  return [...(referenceUnpackr.unpack(encodeMessage(message)) as unknown[]), ...range, ...extra];
}

/** What {@link withExtraFields} decodes to: the message, an alive with the range it was given. */
function asRead(message: Message, extra: readonly unknown[]): Message {
  return message.type === 'alive' && extra.length > 0 ? { ...message, protocol: { min: RANGE[0], max: RANGE[1] } } : message;
}

function decoded(packet: Uint8Array): { messages: Message[]; skipped: number } {
  const result = decodePacket(packet);
  if (!result.ok) throw new Error(`decode failed: ${result.error.code}: ${result.error.detail}`);
  return { messages: result.messages, skipped: result.skipped ?? 0 };
}

describe('a message of a type this version does not know', () => {
  it('is skipped and counted; the messages around it are decoded', () => {
    const [ping, alive] = [sampleMessages[0]!, sampleMessages[5]!];
    const packet = craftPacket(referenceUnpackr.unpack(encodeMessage(ping)), [FUTURE_CODE, ...FUTURE_FIELDS], referenceUnpackr.unpack(encodeMessage(alive)), [99]);
    const { messages, skipped } = decoded(packet);
    expect(plain(messages)).toEqual(plain([ping, alive]));
    expect(skipped).toBe(2);
  });

  it('leaves no `skipped` on a packet of known messages only', () => {
    expect(decodePacket(craftPacket([8, 1]))).toEqual({ ok: true, messages: [{ type: 'nack', seq: 1 }] });
  });

  it('still rejects the packet when its own bytes are broken (truncated, or not msgpack)', () => {
    const whole = craftPacket([8, 1], [FUTURE_CODE, 'a longer field', bytes(1, 2)]);
    expect(decodePacket(whole.subarray(0, whole.length - 2))).toMatchObject({ ok: false, error: { code: 'malformed', detail: /^part 2: truncated in 'message type \d+'/ } });
    // 0xc1 is never msgpack.
    expect(decodePacket(bytes(1, 0x92, FUTURE_CODE, 0xc1))).toMatchObject({ ok: false, error: { code: 'malformed', detail: /is not msgpack/ } });
  });

  it('counts towards the bound on messages per packet', () => {
    const many = Array.from({ length: MAX_MESSAGES_PER_PACKET + 1 }, () => [FUTURE_CODE]);
    expect(decodePacket(craftPacket(...many))).toMatchObject({ ok: false, error: { code: 'too-many' } });
    expect(decoded(craftPacket(...many.slice(1))).skipped).toBe(MAX_MESSAGES_PER_PACKET);
  });

  it(`is followed at most ${MAX_SKIP_DEPTH} arrays or maps deep, without recursion`, () => {
    const nest = (depth: number): unknown => (depth === 0 ? 1 : [nest(depth - 1)]);
    expect(decoded(craftPacket([FUTURE_CODE, nest(MAX_SKIP_DEPTH)])).skipped).toBe(1);
    expect(decodePacket(craftPacket([FUTURE_CODE, nest(MAX_SKIP_DEPTH + 1)]))).toMatchObject({ ok: false, error: { code: 'malformed', detail: /nests more than/ } });
    // A hundred thousand levels, hand-made: refused at the bound, not a stack overflow.
    const bomb = new Uint8Array(2 + 100_000).fill(0x91);
    bomb.set([1, 0x92, FUTURE_CODE]);
    expect(decodePacket(bomb)).toMatchObject({ ok: false, error: { code: 'malformed' } });
  });

  it('cannot claim more than its bytes hold', () => {
    // A map32 of four billion pairs, a bin32 of four GiB, an ext32: each with nothing behind it.
    for (const tail of [[0xdf, 0xff, 0xff, 0xff, 0xff], [0xc6, 0xff, 0xff, 0xff, 0xff], [0xc9, 0xff, 0xff, 0xff, 0xff, 0x01]]) {
      expect(decodePacket(bytes(1, 0x92, FUTURE_CODE, ...tail))).toMatchObject({ ok: false, error: { code: 'malformed', detail: /truncated/ } });
    }
  });

  it('on a stream is one message, skipped: decodeStream says so rather than failing', () => {
    const codec = swimCodec;
    expect(codec.decodeStream(craftPacket([FUTURE_CODE, 'request']), {})).toEqual({ ok: true, messages: [], skipped: 1 });
    expect(codec.decodeStream(craftPacket([FUTURE_CODE], [8, 1]), {})).toMatchObject({ ok: false, error: { code: 'malformed', detail: 'a stream carries exactly one message, got 2' } });
  });
});

describe('a message with fields after the ones its type has here', () => {
  it.each(sampleMessages.map((m) => [m.type, m] as const))('%s: decodes to the same message, extra fields skipped', (_type, message) => {
    const { messages } = decoded(craftPacket(withExtraFields(message, FUTURE_FIELDS)));
    expect(plain(messages)).toEqual(plain([asRead(message, FUTURE_FIELDS)]));
    // Its bytes are not what this version writes, so a member passing it on encodes it again.
    expect(receivedPart(messages, 0)).toBeUndefined();
  });

  it('push-pull entries with fields added later keep the eight they have (five, the range and the move)', () => {
    const message = sampleMessages.find((m) => m.type === 'push-pull')!;
    const fields = referenceUnpackr.unpack(encodeMessage(message)) as unknown[];
    const entries = (fields[2] as unknown[][]).map((entry, i) => [...entry, ...RANGE, i === 0 ? '10.9.9.9:7946' : NO_MOVE, 'zone-a', [1, 2]]);
    const { messages } = decoded(craftPacket([fields[0], fields[1], entries, fields[3], 'trailing']));
    const withRanges = pushPullMembers.map((entry, i) => ({ ...entry, protocol: { min: RANGE[0], max: RANGE[1] }, ...(i === 0 ? { movedFrom: '10.9.9.9:7946' } : {}) }));
    expect(plain(messages)).toEqual(plain([{ ...message, members: withRanges }]));
  });

  it('an alive that moved, with fields added later after its move, keeps the move', () => {
    const alive = sampleMessages.find((m) => m.type === 'alive')!;
    const { messages } = decoded(craftPacket([...(referenceUnpackr.unpack(encodeMessage(alive)) as unknown[]), ...RANGE, '10.9.9.9:7946', ...FUTURE_FIELDS]));
    expect(plain(messages)).toEqual(plain([{ ...alive, protocol: { min: RANGE[0], max: RANGE[1] }, movedFrom: '10.9.9.9:7946' }]));
  });

  it('an alive or an entry whose move is no address rejects the packet: the move is a field this version knows', () => {
    const alive = referenceUnpackr.unpack(encodeMessage(sampleMessages.find((m) => m.type === 'alive')!)) as unknown[];
    expect(decodePacket(craftPacket([...alive, ...RANGE, 7]))).toMatchObject({ ok: false, error: { code: 'invalid-field', detail: "part 1 (alive): field 'movedFrom' must be a string, got an integer" } });
    expect(decodePacket(craftPacket([...alive, ...RANGE, '']))).toMatchObject({ ok: false, error: { code: 'invalid-field', detail: "part 1 (alive): field 'movedFrom' must not be empty" } });
    expect(decodePacket(craftPacket([...alive, ...RANGE, 'x'.repeat(256)]))).toMatchObject({ ok: false, error: { code: 'invalid-field' } });
    const pushPull = referenceUnpackr.unpack(encodeMessage(sampleMessages.find((m) => m.type === 'push-pull')!)) as unknown[];
    const entries = (pushPull[2] as unknown[][]).map((entry) => [...entry, ...RANGE, true]);
    expect(decodePacket(craftPacket([pushPull[0], pushPull[1], entries, pushPull[3]]))).toMatchObject({ ok: false, error: { code: 'invalid-field', detail: /members\[0\]: field 'movedFrom' must be a string/ } });
  });

  it('an alive or an entry whose range is no range rejects the packet: the range is a field this version knows', () => {
    const alive = referenceUnpackr.unpack(encodeMessage(sampleMessages.find((m) => m.type === 'alive')!)) as unknown[];
    expect(decodePacket(craftPacket([...alive, 'one', 2]))).toMatchObject({ ok: false, error: { code: 'invalid-field', detail: /part 1 \(alive\): field 'protocol.min' must be a protocol version 1..255/ } });
    expect(decodePacket(craftPacket([...alive, 3, 2]))).toMatchObject({ ok: false, error: { code: 'invalid-field', detail: "part 1 (alive): field 'protocol' must satisfy 1 <= min <= max, got 3-2" } });
    expect(decodePacket(craftPacket([...alive, 0, 2]))).toMatchObject({ ok: false, error: { code: 'invalid-field' } });
    expect(decodePacket(craftPacket([...alive, 1, 256]))).toMatchObject({ ok: false, error: { code: 'invalid-field' } });
    // One field after the meta is a later version's extra, as before ranges: skipped.
    expect(decodePacket(craftPacket([...alive, 'one']))).toMatchObject({ ok: true });
    const pushPull = referenceUnpackr.unpack(encodeMessage(sampleMessages.find((m) => m.type === 'push-pull')!)) as unknown[];
    const entries = (pushPull[2] as unknown[][]).map((entry) => [...entry, 2, 1]);
    expect(decodePacket(craftPacket([pushPull[0], pushPull[1], entries, pushPull[3]]))).toMatchObject({ ok: false, error: { code: 'invalid-field', detail: /members\[0\]: field 'protocol' must satisfy/ } });
  });

  it('still rejects the packet when a field it knows is wrong, or missing', () => {
    expect(decodePacket(craftPacket([MESSAGE_TYPE_CODES.nack, 'one', 'extra']))).toMatchObject({ ok: false, error: { code: 'invalid-field', detail: "part 1 (nack): field 'seq' must be a uint32, got a string" } });
    expect(decodePacket(craftPacket([MESSAGE_TYPE_CODES.suspect, 1, 'node']))).toMatchObject({ ok: false, error: { code: 'malformed', detail: 'part 1 (suspect): expected at least 4 array elements, got 3' } });
    const broken = bytes(1, 0x93, MESSAGE_TYPE_CODES.nack, 7, 0xc1);
    expect(decodePacket(broken)).toMatchObject({ ok: false, error: { code: 'malformed', detail: /part 1 \(nack\).*is not msgpack/ } });
  });

  it('an update with extra fields, heard twice, decodes the same both times (the update cache)', () => {
    const alive = sampleMessages.find((m) => m.type === 'alive')!;
    const packet = craftPacket(withExtraFields(alive, ['x']), withExtraFields(alive, [[1, 2, 3]]));
    for (let i = 0; i < 3; i++) expect(plain(decoded(packet).messages)).toEqual(plain([asRead(alive, ['x']), asRead(alive, ['x'])]));
  });
});

describe('what a later version adds, anywhere in a packet (fast-check)', () => {
  const futureValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true }), fc.string(), fc.uint8Array({ maxLength: 40 }), fc.array(tie('value'), { maxLength: 4 })),
  })).value;

  it('leaves the messages this version knows exactly as they were written', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...sampleMessages), { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(8), fc.integer({ min: FUTURE_CODE, max: 200 }), fc.array(futureValue, { maxLength: 4 })), { maxLength: 4 }),
        fc.array(fc.array(futureValue, { maxLength: 3 }), { maxLength: 6 }),
        (messages, inserted, extras) => {
          const parts: unknown[] = messages.map((message, i) => withExtraFields(message, extras[i] ?? []));
          for (const [at, code, fields] of inserted) parts.splice(at % (parts.length + 1), 0, [code, ...fields]);
          const { messages: read, skipped } = decoded(craftPacket(...parts));
          expect(plain(read)).toEqual(plain(messages.map((message, i) => asRead(message, extras[i] ?? []))));
          expect(skipped).toBe(inserted.length);
        },
      ),
    );
  });
});

describe('the core with a member of a later version', () => {
  it('handles the rest of a packet and counts what it skipped', () => {
    const node = new LoneCore({});
    node.introduce('b');
    const ping = { type: 'ping', seq: 9, target: 'me', sourceName: 'b', sourceAddress: 'b:1' } as const;
    const effects = node.receive('b:1', craftPacket([FUTURE_CODE, 'news'], withExtraFields(ping, ['later'])));
    expect(effects.map((e) => e.type)).toContain('send-packet');
    const ack = effects.find((e) => e.type === 'send-packet') as { bytes: Uint8Array };
    expect(decoded(ack.bytes).messages[0]).toMatchObject({ type: 'ack', seq: 9 });
    expect(node.core.counters.unknownMessages).toBe(1);
    expect(node.core.counters.decodeErrors).toBe(0);
    expect(effects.some((e) => e.type === 'decode-error')).toBe(false);
  });

  it('answers a stream request of a type it does not know with an error, and counts it', () => {
    const node = new LoneCore({});
    const effects = node.core.receiveStream(4, 'b:1', craftPacket([FUTURE_CODE, 'a request']), 0);
    expect(effects.map((e) => e.type)).toEqual(['stream-reply']);
    const reply = decoded((effects[0] as { bytes: Uint8Array }).bytes).messages[0];
    expect(reply).toEqual({ type: 'error', message: 'unknown request type' });
    expect(node.core.counters.unknownMessages).toBe(1);
    expect(node.core.counters.decodeErrors).toBe(0);
  });
});
