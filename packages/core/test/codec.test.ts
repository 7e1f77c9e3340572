import { describe, expect, it } from 'vitest';
import {
  assemblePacket,
  decodePacket,
  encodedSize,
  encodeMessage,
  encodePacket,
  MAX_MESSAGES_PER_PACKET,
  MESSAGE_TYPE_CODES,
  PACKET_HEADER_BYTES,
  PROTOCOL_VERSION,
  type DecodeErrorCode,
  type DecodeResult,
} from '../src/codec/codec.js';
import type { Message, PushPullEntry } from '../src/codec/messages.js';
import { MEMBER_STATES } from '../src/members/member.js';
import {
  boundaryMessages,
  bytes,
  concat,
  craftPacket,
  MAX_UINT32,
  plain,
  pushPullMembers,
  referencePackr,
  referenceUnpackr,
  sampleMessages,
} from './codec-samples.js';

function roundTrip(messages: Message[]): Message[] {
  const result = decodePacket(encodePacket(messages));
  if (!result.ok) throw new Error(`decode failed: ${result.error.code}: ${result.error.detail}`);
  return result.messages;
}

function expectError(result: DecodeResult, code: DecodeErrorCode, detail?: string | RegExp): void {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.code).toBe(code);
  if (typeof detail === 'string') expect(result.error.detail).toBe(detail);
  else if (detail) expect(result.error.detail).toMatch(detail);
}

describe('round trip', () => {
  it.each(sampleMessages.map((message) => [message.type, message] as const))('%s', (_type, message) => {
    expect(plain(roundTrip([message]))).toEqual(plain([message]));
  });

  it.each(boundaryMessages.map((message) => [message.type, message] as const))(
    '%s with empty byte fields, shortest strings and maximal numbers',
    (_type, message) => {
      expect(plain(roundTrip([message]))).toEqual(plain([message]));
    },
  );

  it('decodes byte fields as plain Uint8Arrays', () => {
    const [ack] = roundTrip([{ type: 'ack', seq: 1, payload: bytes(1, 2) }]);
    expect(ack?.type === 'ack' && ack.payload.constructor).toBe(Uint8Array);
  });

  it('keeps a compound packet of every message type in order', () => {
    const messages = [...sampleMessages, ...boundaryMessages, ...sampleMessages];
    expect(plain(roundTrip(messages))).toEqual(plain(messages));
  });

  it('carries push-pull with no members, many members and all four states', () => {
    const many: PushPullEntry[] = Array.from({ length: 5000 }, (_, i) => ({
      name: `member-${i}`,
      address: `10.${i >> 8}.${i & 255}.1:7946`,
      meta: i % 3 === 0 ? bytes() : bytes(i & 255, i >> 8),
      incarnation: (i * 2654435761) >>> 0,
      state: MEMBER_STATES[i % MEMBER_STATES.length]!,
    }));
    const messages: Message[] = [
      { type: 'push-pull', join: false, members: [], userState: bytes() },
      { type: 'push-pull', join: true, members: pushPullMembers, userState: bytes(1) },
      { type: 'push-pull', join: false, members: many, userState: new Uint8Array(70_000).fill(5) },
    ];
    const decoded = roundTrip(messages);
    expect(plain(decoded)).toEqual(plain(messages));
    const states = decoded[1]?.type === 'push-pull' ? decoded[1].members.map((member) => member.state) : [];
    expect(states).toEqual(['alive', 'suspect', 'dead', 'left']);
  });

  it('carries the largest names, texts, versions and byte fields the wire allows', () => {
    const name128 = 'é'.repeat(64); // 128 UTF-8 bytes
    const emoji = '😀'.repeat(32); // 128 UTF-8 bytes, surrogate pairs
    const address255 = 'a'.repeat(255);
    const key512 = 'é'.repeat(256); // 512 UTF-8 bytes
    const messages: Message[] = [
      { type: 'suspect', incarnation: MAX_UINT32, node: name128, from: emoji },
      { type: 'alive', incarnation: MAX_UINT32, node: emoji, address: address255, meta: bytes() },
      { type: 'broadcast', key: key512, origin: name128, version: 1, payload: bytes() },
      { type: 'error', message: '€'.repeat(4096) }, // 12288 bytes: str 16
      { type: 'broadcast', key: 'k', origin: 'o', version: 2 ** 32, payload: new Uint8Array(300).fill(1) },
      { type: 'broadcast', key: 'k', origin: 'o', version: 2 ** 40 + 7, payload: new Uint8Array(70_000).fill(2) },
      { type: 'user', from: 'x'.repeat(128), payload: new Uint8Array(256).fill(3) },
    ];
    expect(plain(roundTrip(messages))).toEqual(plain(messages));
  });
});

describe('encoding', () => {
  it('starts every packet with the version byte', () => {
    expect(PROTOCOL_VERSION).toBe(1);
    expect(PACKET_HEADER_BYTES).toBe(1);
    expect(encodePacket([sampleMessages[0]!])[0]).toBe(PROTOCOL_VERSION);
    expect(assemblePacket([encodeMessage(sampleMessages[0]!)])[0]).toBe(PROTOCOL_VERSION);
  });

  it('writes each message as a msgpack array led by its type code', () => {
    for (const message of sampleMessages) {
      const [code] = referenceUnpackr.unpack(encodeMessage(message)) as unknown[];
      expect(code).toBe(MESSAGE_TYPE_CODES[message.type]);
    }
    expect(Array.from(encodeMessage({ type: 'nack', seq: 5 }))).toEqual([0x92, 0x08, 0x05]);
  });

  it('reports encodedSize equal to the encoded length', () => {
    for (const message of [...sampleMessages, ...boundaryMessages]) {
      expect(encodedSize(message)).toBe(encodeMessage(message).length);
    }
  });

  it('makes encodePacket byte for byte assemblePacket of the encoded parts', () => {
    const messages = [...sampleMessages, ...boundaryMessages];
    const packet = encodePacket(messages);
    expect(Array.from(packet)).toEqual(Array.from(assemblePacket(messages.map(encodeMessage))));
    const sizes = messages.reduce((sum, message) => sum + encodedSize(message), 0);
    expect(packet.length).toBe(PACKET_HEADER_BYTES + sizes);
  });

  it('never changes an earlier result when encoding more', () => {
    const part = encodeMessage(sampleMessages[5]!);
    const packet = encodePacket(sampleMessages);
    const partCopy = Array.from(part);
    const packetCopy = Array.from(packet);
    // More than one pool slab's worth of later encodes, and a large one that outgrows a slab.
    for (let i = 0; i < 500; i++) encodePacket(sampleMessages);
    encodePacket([{ type: 'user', from: 'a', payload: new Uint8Array(100_000).fill(0xaa) }]);
    for (let i = 0; i < 500; i++) encodedSize(sampleMessages[7]!);
    expect(Array.from(part)).toEqual(partCopy);
    expect(Array.from(packet)).toEqual(packetCopy);
  });

  it('recovers when a packet buffer was transferred (detached) despite the warning', () => {
    const packet = encodePacket(sampleMessages);
    structuredClone(packet, { transfer: [packet.buffer as ArrayBuffer] });
    expect(packet.length).toBe(0);
    expect(plain(roundTrip(sampleMessages))).toEqual(plain(sampleMessages));
  });

  it('gives encodeMessage results a buffer of their own', () => {
    const part = encodeMessage(sampleMessages[1]!);
    expect(part.byteOffset).toBe(0);
    expect(part.buffer.byteLength).toBe(part.length);
  });

  it('writes standard msgpack that a reference decoder reads', () => {
    const values = referenceUnpackr.unpackMultiple(encodePacket(sampleMessages).subarray(1)) as unknown[];
    expect(plain(values)).toEqual([
      [0, 1, 'node-b', 'node-a', '10.0.0.1:7946'],
      [1, 2, 'node-c', '10.0.0.3:7946', true, 'node-a', '10.0.0.1:7946'],
      [2, 3, [1, 2, 3]],
      [8, 4],
      [3, 5, 'node-c', 'node-a'],
      [4, 6, 'node-d', '10.0.0.4:7946', [0xde, 0xad]],
      [5, 7, 'node-e', 'node-e'],
      [6, true, pushPullMembers.map((m) => [m.name, m.address, Array.from(m.meta), m.incarnation, MEMBER_STATES.indexOf(m.state)]), [9, 9]],
      [7, 'config', 'node-a', 8, [42]],
      [9, 'node-a', [7, 7, 7]],
      [10, 'push-pull refused: wrong cluster'],
    ]);
  });

  it('refuses messages the decoder would reject', () => {
    const alive = sampleMessages[5] as Extract<Message, { type: 'alive' }>;
    expect(() => encodeMessage({ ...alive, incarnation: -1 })).toThrow(RangeError);
    expect(() => encodeMessage({ ...alive, incarnation: 2 ** 32 })).toThrow(/incarnation' must be a uint32, got 4294967296/);
    expect(() => encodeMessage({ ...alive, incarnation: 1.5 })).toThrow(RangeError);
    expect(() => encodeMessage({ ...alive, node: 'x'.repeat(129) })).toThrow(/at most 128 UTF-8 bytes/);
    expect(() => encodeMessage({ ...alive, node: 'é'.repeat(65) })).toThrow(/at most 128 UTF-8 bytes/);
    expect(() => encodeMessage({ ...alive, address: 'x'.repeat(256) })).toThrow(/at most 255 UTF-8 bytes/);
    expect(() => encodeMessage({ ...alive, node: '' })).toThrow(/'node' must not be empty/);
    expect(() => encodeMessage({ ...alive, node: 'a\ud800b' })).toThrow(/lone surrogate/);
    expect(() => encodeMessage({ ...alive, node: 'a\udc00' })).toThrow(/lone surrogate/);
    expect(() => encodeMessage({ ...alive, meta: [1, 2] as unknown as Uint8Array })).toThrow(TypeError);
    expect(() => encodeMessage({ type: 'error', message: 'x'.repeat(4097) })).toThrow(/at most 4096 characters/);
    expect(() =>
      encodeMessage({ type: 'broadcast', key: 'k', origin: 'o', version: 2 ** 53, payload: bytes() }),
    ).toThrow(/non-negative safe integer/);
    expect(() =>
      encodeMessage({
        type: 'push-pull',
        join: false,
        members: [{ ...pushPullMembers[0]!, state: 'gone' as never }],
        userState: bytes(),
      }),
    ).toThrow(/members.state/);
    expect(() => encodeMessage({ type: 'bogus' } as unknown as Message)).toThrow(/unknown type/);
  });

  it('leaves the encoder usable after a refused message', () => {
    expect(() => encodePacket([sampleMessages[0]!, { type: 'nack', seq: -1 }])).toThrow(RangeError);
    expect(plain(roundTrip(sampleMessages))).toEqual(plain(sampleMessages));
  });
});

describe('decoding errors', () => {
  const ping = sampleMessages[0]!;

  it('empty: no bytes, or a version byte alone', () => {
    expectError(decodePacket(new Uint8Array(0)), 'empty');
    expectError(decodePacket(bytes(PROTOCOL_VERSION)), 'empty');
  });

  it('version: a first byte outside the protocol versions this codec speaks (1-2)', () => {
    const packet = encodePacket([ping]);
    for (const version of [0, 3, 0x92, 0xff]) {
      const wrong = Uint8Array.from(packet);
      wrong[0] = version;
      expectError(decodePacket(wrong), 'version', `protocol version ${version} is not supported: this member speaks 1-2`);
    }
  });

  it('version: every version of the range decodes, and says which it was', () => {
    const v1 = decodePacket(encodePacket([ping]));
    const v2 = decodePacket(encodePacket([ping], 2));
    expect(v1).toEqual({ ok: true, messages: [ping] });
    expect(v2).toEqual({ ok: true, messages: [ping], version: 2 });
    expect(() => encodePacket([ping], 3)).toThrow('cannot write protocol version 3: this codec speaks 1-2');
  });

  it('malformed: truncated packets', () => {
    const packet = encodePacket([ping, sampleMessages[5]!]);
    expectError(decodePacket(packet.subarray(0, packet.length - 1)), 'malformed', /^part 2 \(alive\): truncated/);
    expectError(decodePacket(bytes(1, 0x92, 0x08, 0xce, 0x00)), 'malformed', "part 1 (nack): truncated in 'seq'");
    expectError(decodePacket(bytes(1, 0x95, 0x00, 0x01)), 'malformed', "part 1: truncated in 'message array'");
    // An array32 header claiming four billion elements, with nothing behind it.
    expectError(decodePacket(bytes(1, 0xdd, 0xff, 0xff, 0xff, 0xff)), 'malformed', /truncated/);
  });

  it('malformed: trailing garbage after the last message', () => {
    const packet = encodePacket([ping]);
    expectError(decodePacket(concat(packet, bytes(0xc1))), 'malformed', /^part 2: a message must be a msgpack array/);
    expectError(decodePacket(concat(packet, bytes(0x94))), 'malformed', /^part 2/);
  });

  it('malformed: a part that is not an array, too few elements, a non-integer type code', () => {
    expectError(decodePacket(craftPacket('ping')), 'malformed', 'part 1: a message must be a msgpack array, got a string');
    expectError(decodePacket(craftPacket({ 0: 0 })), 'malformed', /got a map/);
    expectError(decodePacket(craftPacket([])), 'malformed', 'part 1: a message array with no type code');
    expectError(decodePacket(craftPacket([0, 1, 'a', 'b'])), 'malformed', 'part 1 (ping): expected at least 5 array elements, got 4');
    // More elements than a type has are a later version's fields (forward-compat.test.ts).
    expectError(decodePacket(craftPacket(['ping', 1])), 'malformed', /type code must be an integer/);
    expectError(decodePacket(craftPacket([0.5, 1])), 'malformed', /type code must be an integer/);
  });

  it('unknown-type: a negative type code, which no version defines (unknown non-negative ones are skipped: forward-compat.test.ts)', () => {
    expectError(decodePacket(craftPacket([-1])), 'unknown-type', 'part 1: unknown message type code -1');
    expectError(decodePacket(craftPacket([8, 1], [-7, 'x'])), 'unknown-type', 'part 2: unknown message type code -7');
  });

  it('invalid-field: integers out of range', () => {
    expectError(
      decodePacket(craftPacket([0, 1, 'a', 'b', 'c'], [4, -1, 'node', 'addr', bytes()])),
      'invalid-field',
      "part 2 (alive): field 'incarnation' must be a uint32, got -1",
    );
    expectError(decodePacket(craftPacket([8, 2 ** 32])), 'invalid-field', "part 1 (nack): field 'seq' must be a uint32, got 4294967296");
    expectError(decodePacket(craftPacket([8, 1.5])), 'invalid-field', "part 1 (nack): field 'seq' must be a uint32, got 1.5");
    expectError(
      decodePacket(craftPacket([7, 'k', 'o', 2 ** 53, bytes()])),
      'invalid-field',
      "part 1 (broadcast): field 'version' must be a non-negative safe integer, got 9007199254740992",
    );
    expectError(
      decodePacket(craftPacket([6, false, [['n', 'a', bytes(), 1, 4]], bytes()])),
      'invalid-field',
      "part 1 (push-pull): members[0]: field 'state' must be a member state 0..3, got 4",
    );
  });

  it('invalid-field: fields of the wrong msgpack type', () => {
    expectError(decodePacket(craftPacket([8, '1'])), 'invalid-field', "part 1 (nack): field 'seq' must be a uint32, got a string");
    expectError(decodePacket(craftPacket([3, 1, 42, 'a'])), 'invalid-field', "part 1 (suspect): field 'node' must be a string, got an integer");
    expectError(decodePacket(craftPacket([2, 1, 'bytes'])), 'invalid-field', "part 1 (ack): field 'payload' must be a byte array (bin), got a string");
    expectError(decodePacket(craftPacket([2, 1, [1, 2]])), 'invalid-field', /got an array/);
    expectError(
      decodePacket(craftPacket([1, 1, 't', 'a', 1, 's', 'a'])),
      'invalid-field',
      "part 1 (ping-req): field 'nack' must be a boolean, got an integer",
    );
    expectError(decodePacket(craftPacket([6, true, 'x', bytes()])), 'invalid-field', "part 1 (push-pull): field 'members' must be an array, got a string");
    expectError(
      decodePacket(craftPacket([6, true, [['n', 'a', bytes(), 1]], bytes()])),
      'invalid-field',
      'part 1 (push-pull): members[0]: an entry must have at least 5 elements, got 4',
    );
    expectError(decodePacket(craftPacket([3, 1, null, 'a'])), 'invalid-field', /got nil/);
  });

  it('invalid-field: strings over their bound or not UTF-8', () => {
    expectError(
      decodePacket(craftPacket([3, 1, 'x'.repeat(129), 'a'])),
      'invalid-field',
      "part 1 (suspect): field 'node' must be at most 128 UTF-8 bytes, got 129",
    );
    expectError(
      decodePacket(craftPacket([10, 'x'.repeat(4097)])),
      'invalid-field',
      "part 1 (error): field 'message' must be at most 4096 characters, got 4097",
    );
    // 0xa2 = fixstr of 2 bytes: an overlong '/', a surrogate, a cut sequence, a stray continuation.
    for (const utf8 of [[0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x80]]) {
      const packet = bytes(1, 0x94, 0x03, 0x01, 0xa0 | utf8.length, ...utf8, 0xa1, 0x61);
      expectError(decodePacket(packet), 'invalid-field', "part 1 (suspect): field 'node' is not well-formed UTF-8");
    }
  });

  it('too-many: more than MAX_MESSAGES_PER_PACKET messages', () => {
    const nacks = (count: number): Message[] => Array.from({ length: count }, (_, seq) => ({ type: 'nack', seq }));
    expect(MAX_MESSAGES_PER_PACKET).toBe(1024);
    const full = decodePacket(encodePacket(nacks(MAX_MESSAGES_PER_PACKET)));
    expect(full.ok && full.messages.length).toBe(MAX_MESSAGES_PER_PACKET);
    expectError(decodePacket(encodePacket(nacks(MAX_MESSAGES_PER_PACKET + 1))), 'too-many', 'more than 1024 messages');
  });

  it('rejects the whole packet when one part is bad', () => {
    const good = encodePacket(sampleMessages);
    const result = decodePacket(concat(good, craftPacket([8, -5]).subarray(1)));
    expectError(result, 'invalid-field', `part ${sampleMessages.length + 1} (nack): field 'seq' must be a uint32, got -5`);
  });

  it('never throws on input that is not a Uint8Array', () => {
    for (const input of [null, undefined, 'packet', [1, 0x91, 0x08], {}]) {
      expectError(decodePacket(input as unknown as Uint8Array), 'malformed', 'input is not a Uint8Array');
    }
  });
});

describe('decoding what other encoders write', () => {
  it('accepts any integer width, signed encodings and integral floats', () => {
    // nack seq 5 as uint8, uint16, uint32, uint64, int8, int16, int32, int64, float32, float64
    const encodings = [
      [0xcc, 5],
      [0xcd, 0, 5],
      [0xce, 0, 0, 0, 5],
      [0xcf, 0, 0, 0, 0, 0, 0, 0, 5],
      [0xd0, 5],
      [0xd1, 0, 5],
      [0xd2, 0, 0, 0, 5],
      [0xd3, 0, 0, 0, 0, 0, 0, 0, 5],
      [0xca, 0x40, 0xa0, 0, 0],
      [0xcb, 0x40, 0x14, 0, 0, 0, 0, 0, 0],
    ];
    for (const seq of encodings) {
      const result = decodePacket(bytes(1, 0x92, 0x08, ...seq));
      expect(result.ok && result.messages).toEqual([{ type: 'nack', seq: 5 }]);
    }
  });

  it('accepts non-minimal string, bin and array headers', () => {
    // suspect [3, 1, 'a', 'b'] with array16, str8 and str16 headers
    const packet = bytes(1, 0xdc, 0, 4, 0x03, 0x01, 0xd9, 1, 0x61, 0xda, 0, 1, 0x62);
    const result = decodePacket(packet);
    expect(result.ok && result.messages).toEqual([{ type: 'suspect', incarnation: 1, node: 'a', from: 'b' }]);
    const ack = decodePacket(bytes(1, 0x93, 0x02, 0x01, 0xc6, 0, 0, 0, 2, 9, 8));
    expect(ack.ok && plain(ack.messages)).toEqual([{ type: 'ack', seq: 1, payload: [9, 8] }]);
  });

  it('decodes what a reference msgpack encoder writes, large versions included', () => {
    const packet = craftPacket(
      [4, 6, 'node-d', '10.0.0.4:7946', bytes(1)],
      [7, 'k', 'o', 2 ** 40, bytes()], // msgpackr writes this version as a float64
      [6, true, [['n', 'a', bytes(), 3, 2]], bytes()],
    );
    const result = decodePacket(packet);
    expect(result.ok && plain(result.messages)).toEqual([
      { type: 'alive', incarnation: 6, node: 'node-d', address: '10.0.0.4:7946', meta: [1] },
      { type: 'broadcast', key: 'k', origin: 'o', version: 2 ** 40, payload: [] },
      { type: 'push-pull', join: true, members: [{ name: 'n', address: 'a', meta: [], incarnation: 3, state: 'dead' }], userState: [] },
    ]);
  });
});

describe('hostile input', () => {
  it('ignores msgpackr record and structured-clone extensions', () => {
    // fixext1 0x72 is msgpackr's record definition; ext 0x69/0x70 its structured clone; 0x62 bundled strings.
    const extensions = [
      [0xd4, 0x72, 0x00],
      [0xd5, 0x72, 0x00, 0x00],
      [0xd6, 0x69, 0, 0, 0, 1],
      [0xd6, 0x70, 0, 0, 0, 1],
      [0xd6, 0x62, 0, 0, 0, 9],
      [0xc7, 0x01, 0x65, 0x00],
    ];
    for (const extension of extensions) {
      expectError(decodePacket(bytes(1, ...extension)), 'malformed', /got an extension/);
      expectError(decodePacket(bytes(1, 0x94, 0x03, 0x01, ...extension, 0xa0)), 'invalid-field', /got an extension/);
    }
  });

  it('never builds objects from map keys, so __proto__ cannot leak', () => {
    const packet = craftPacket([3, 1, { __proto__: { polluted: true }, constructor: 1 }, 'a']);
    expectError(decodePacket(packet), 'invalid-field', /got a map/);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('copies byte fields and strings out of the input buffer', () => {
    const transportBuffer = Buffer.from(encodePacket([sampleMessages[5]!, sampleMessages[2]!]));
    const result = decodePacket(transportBuffer);
    if (!result.ok) throw new Error(result.error.detail);
    // The transport reuses its buffer for the next datagram.
    transportBuffer.fill(0x41, 1);
    expect(plain(result.messages)).toEqual(plain([sampleMessages[5], sampleMessages[2]]));
    // Decoding from the reused buffer again gives the new content, not a stale cached string.
    const other: Message = { type: 'suspect', incarnation: 1, node: 'node-x', from: 'node-y' };
    const next = encodePacket([other]);
    transportBuffer.set(next, 0);
    const again = decodePacket(transportBuffer.subarray(0, next.length));
    expect(again.ok && again.messages).toEqual([other]);
  });

  it('keeps no reference into a reused Node Buffer', () => {
    // A transport reading every datagram into the same Buffer: Buffer#slice is a view, not a copy.
    const datagram = Buffer.alloc(64);
    for (let i = 0; i < 3000; i++) {
      const sent: Message = { type: 'suspect', incarnation: i, node: `name-${1000 + i}`, from: 'x' };
      const packet = encodePacket([sent]);
      datagram.set(packet);
      const result = decodePacket(datagram.subarray(0, packet.length));
      expect(result.ok && result.messages).toEqual([sent]);
    }
  });

  it('is deterministic: the string cache never changes a result', () => {
    const names = Array.from({ length: 3000 }, (_, i) => `n${i}`);
    const messages: Message[] = names.map((node, i) => ({ type: 'dead', incarnation: i, node, from: names[(i * 7) % names.length]! }));
    for (let round = 0; round < 3; round++) {
      const result = decodePacket(encodePacket(messages.slice(round * 1000, round * 1000 + 1000)));
      expect(result.ok && result.messages).toEqual(messages.slice(round * 1000, round * 1000 + 1000));
    }
  });

  it('reads a standard msgpack value of every kind as an error, not an exception', () => {
    const values: unknown[] = [null, true, 1.5, -1, 2 ** 60, 'x', bytes(1), [], {}, new Map([[1, 2]]), new Date(0), new Set([1])];
    for (const value of values) {
      const result = decodePacket(concat(bytes(1), Uint8Array.from(referencePackr.pack(value))));
      expect(result.ok).toBe(false);
    }
  });
});
