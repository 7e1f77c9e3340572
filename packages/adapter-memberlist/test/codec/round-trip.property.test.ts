// The algebra of the codec, by property: any message the core may send round-trips through
// packets (alone, in compounds, compressed or not, with or without CRC) and streams; the size
// bound the core packs by holds; no byte string makes decoding throw.
import { SocketAddress } from 'node:net';
import fc from 'fast-check';
import type { Message, PushPullEntry } from '@swim/core';
import { describe, expect, it } from 'vitest';
import { formatIpPort, lzwCompress, lzwDecompress, memberlistCodec, parseIpPort } from '../../src/index.js';

const utf8Length = (text: string) => Buffer.byteLength(text, 'utf8');
/** Valid UTF-16 (no lone surrogates) of at most 128 UTF-8 bytes: a member name. */
const name = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((text) => utf8Length(text) <= 128 && !/[\ud800-\udfff]/.test(text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')));
const optionalName = fc.oneof(fc.constant(''), name);
const ipv4 = fc.uint8Array({ minLength: 4, maxLength: 4 });
const ipv6 = fc.uint8Array({ minLength: 16, maxLength: 16 });
const port = fc.integer({ min: 1, max: 65535 });
const address = fc.tuple(fc.oneof(ipv4, ipv6), port).map(([ip, p]) => formatIpPort(ip, p)!);
const uint32 = fc.integer({ min: 0, max: 0xffff_ffff });
const payload = fc.uint8Array({ maxLength: 300 });
const meta = fc.uint8Array({ maxLength: 512 });

/** Messages a packet carries, as the core builds them. */
const packetMessage: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ type: fc.constant('ping' as const), seq: uint32, target: optionalName, sourceName: name, sourceAddress: address }),
  fc.record({ type: fc.constant('ping' as const), seq: uint32, target: optionalName, sourceName: fc.constant(''), sourceAddress: fc.constant('') }),
  fc.record({
    type: fc.constant('ping-req' as const),
    seq: uint32,
    target: name,
    targetAddress: address,
    nack: fc.boolean(),
    sourceName: name,
    sourceAddress: address,
  }),
  fc.record({ type: fc.constant('ack' as const), seq: uint32, payload }),
  fc.record({ type: fc.constant('nack' as const), seq: uint32 }),
  fc.record({ type: fc.constantFrom('suspect' as const, 'dead' as const), incarnation: uint32, node: name, from: name }),
  fc.record({ type: fc.constant('alive' as const), incarnation: uint32, node: name, address, meta }),
  fc.record({ type: fc.constant('user' as const), from: name, payload }),
  fc.record({ type: fc.constant('broadcast' as const), key: fc.string(), origin: name, version: fc.nat(), payload }),
);

const entry: fc.Arbitrary<PushPullEntry> = fc.record({
  name,
  address,
  meta,
  incarnation: uint32,
  state: fc.constantFrom('alive' as const, 'suspect' as const, 'dead' as const, 'left' as const),
});

/** Messages a stream carries. */
const streamMessage: fc.Arbitrary<Message> = fc.oneof(
  fc.record({
    type: fc.constant('push-pull' as const),
    join: fc.boolean(),
    members: fc.array(entry, { maxLength: 20 }),
    userState: fc.uint8Array({ maxLength: 2000 }),
  }),
  fc.record({ type: fc.constant('user' as const), from: name, payload: fc.uint8Array({ maxLength: 2000 }) }),
  fc.record({ type: fc.constant('ping' as const), seq: uint32, target: optionalName, sourceName: name, sourceAddress: address }),
  fc.record({ type: fc.constant('ack' as const), seq: uint32, payload }),
  fc.record({ type: fc.constant('error' as const), message: fc.string({ maxLength: 200 }).filter((text) => !/[\ud800-\udfff]/.test(text)) }),
);

/**
 * What the other side sees. memberlist user messages carry only bytes (a broadcast's key, origin
 * and version and a user message's sender stay local). Addresses come back in their canonical text.
 */
function asReceived(message: Message): Message {
  switch (message.type) {
    case 'user':
    case 'broadcast':
      return { type: 'user', from: '', payload: message.payload };
    default:
      return message;
  }
}

const codecOptions = fc.record({ crc: fc.boolean(), compress: fc.boolean() });

/**
 * `value` with every byte array as its hex text (tagged, so bytes never equal a string field):
 * expect's toEqual walks a Uint8Array as an object, key by index, which made the packet test
 * spend two thirds of its time listing keys (30 s on a loaded 2-core host). Equal exactly when
 * the bytes are.
 */
function comparable(value: unknown): unknown {
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex') };
  if (Array.isArray(value)) return value.map(comparable);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, comparable(field)]));
  return value;
}

describe('round trips', () => {
  it('any packet of 1..255 messages decodes to what was sent, in order; it fits the bound the core packs by', () => {
    fc.assert(
      fc.property(codecOptions, fc.array(packetMessage, { minLength: 1, maxLength: 255 }), (options, messages) => {
        const sender = memberlistCodec(options);
        const receiver = memberlistCodec();
        const parts = messages.map((message) => sender.encodeMessage(message));
        const packet = sender.assemblePacket(parts);
        expect(packet.length).toBeLessThanOrEqual(parts.reduce((sum, part) => sum + part.length + sender.partOverheadBytes, sender.packetOverheadBytes));
        expect(comparable(sender.encodePacket(messages))).toEqual(comparable(packet));
        parts.forEach((part, i) => expect(sender.encodedSize(messages[i]!)).toBe(part.length));
        expect(comparable(receiver.decodePacket(packet))).toEqual(comparable({ ok: true, messages: messages.map(asReceived) }));
      }),
      { numRuns: 300 },
    );
  });

  it('any stream message decodes to what was sent, compressed or not', () => {
    fc.assert(
      fc.property(fc.boolean(), streamMessage, (compress, message) => {
        const stream = memberlistCodec({ compress }).encodeStream(message);
        expect(memberlistCodec().decodeStream(stream, {})).toEqual({ ok: true, messages: [asReceived(message)] });
      }),
      { numRuns: 300 },
    );
  });

  it('a packet or stream is a buffer of its own: later encodes never change it', () => {
    const codec = memberlistCodec({ compress: true });
    const ping: Message = { type: 'ping', seq: 1, target: 'b', sourceName: 'a', sourceAddress: '10.0.0.1:7946' };
    const part = codec.encodeMessage(ping);
    const packet = codec.assemblePacket([part]);
    const copy = packet.slice();
    for (let i = 0; i < 100; i++) codec.encodePacket([{ ...ping, seq: i }]);
    part.fill(0);
    expect(packet).toEqual(copy);
  });

  it('messages memberlist cannot carry throw a RangeError or TypeError', () => {
    const codec = memberlistCodec();
    const alive = (address: string): Message => ({ type: 'alive', incarnation: 1, node: 'n', address, meta: new Uint8Array(0) });
    for (const bad of ['node-1:7946', 'localhost:1', '1.2.3.4', '1.2.3.4:0', '[fe80::1%eth0]:1', '01.2.3.4:5']) {
      expect(() => codec.encodeMessage(alive(bad)), bad).toThrow(RangeError);
    }
    expect(() => codec.encodeMessage({ type: 'suspect', incarnation: -1, node: 'n', from: 'm' })).toThrow(RangeError);
    expect(() => codec.encodeMessage({ type: 'suspect', incarnation: 1, node: '\ud800', from: 'm' })).toThrow(RangeError);
    expect(() => codec.encodeMessage({ type: 'error', message: 'x' })).toThrow(TypeError);
    expect(() => codec.encodeStream({ type: 'nack', seq: 1 })).toThrow(TypeError);
    expect(() => codec.assemblePacket(Array.from({ length: 256 }, () => Uint8Array.of(8)))).toThrow(RangeError);
  });
});

describe('decoding never throws', () => {
  const codec = memberlistCodec();
  const decodeAll = (data: Uint8Array): void => {
    const packet = codec.decodePacket(data);
    const stream = codec.decodeStream(data, { maxPushPullEntries: 100 });
    expect(typeof packet.ok).toBe('boolean');
    expect(typeof stream.ok).toBe('boolean');
    if (stream.ok) expect(stream.messages).toHaveLength(1);
  };

  it('on any bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), decodeAll), { numRuns: 3000 });
  });

  it('on any bytes after a type byte, any wrapper', () => {
    fc.assert(
      fc.property(fc.constantFrom(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 244), fc.uint8Array({ maxLength: 300 }), (type, rest) =>
        decodeAll(Uint8Array.of(type, ...rest)),
      ),
      { numRuns: 3000 },
    );
  });

  it('on valid packets and streams with bytes flipped, cut or inserted', () => {
    const mutated = fc
      .tuple(fc.oneof(fc.array(packetMessage, { minLength: 1, maxLength: 8 }).map((m) => memberlistCodec({ compress: true }).encodePacket(m)), streamMessage.map((m) => memberlistCodec().encodeStream(m))), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('flip', 'cut', 'insert')), { minLength: 1, maxLength: 4 }))
      .map(([data, edits]) => {
        let out = Array.from(data);
        for (const [at, value, edit] of edits) {
          const i = at % Math.max(1, out.length);
          if (edit === 'flip') out[i] = value;
          else if (edit === 'cut') out = out.slice(0, i);
          else out.splice(i, 0, value);
        }
        return Uint8Array.from(out);
      });
    fc.assert(fc.property(mutated, decodeAll), { numRuns: 2000 });
  });
});

describe('addresses: the text Node prints', () => {
  it('IPv6 formats as libuv does (SocketAddress), IPv4-mapped as IPv4, and parses back', () => {
    fc.assert(
      fc.property(fc.oneof(ipv6, ipv6.map((ip) => ip.map((b, i) => (i < 12 && b & 1 ? 0 : b)))), port, (ip, p) => {
        const text = formatIpPort(ip, p)!;
        const mapped = ip.subarray(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff;
        const groups = Array.from({ length: 8 }, (_, i) => ((ip[2 * i]! << 8) | ip[2 * i + 1]!).toString(16)).join(':');
        const node = new SocketAddress({ address: groups, family: 'ipv6' }).address;
        expect(text).toBe(mapped ? `${ip.slice(12).join('.')}:${p}` : `[${node}]:${p}`);
        const parsed = parseIpPort(text);
        expect(typeof parsed).toBe('object');
        if (typeof parsed === 'object') expect(formatIpPort(parsed.ip, parsed.port)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('the codec refuses to advertise what is not an IP and port in that exact form', () => {
    const codec = memberlistCodec();
    expect(codec.addressProblem('127.0.0.1:7946')).toBeUndefined();
    expect(codec.addressProblem('[::1]:7946')).toBeUndefined();
    expect(codec.addressProblem('[::ffff:1.2.3.4]:7946')).toMatch(/1\.2\.3\.4:7946/);
    expect(codec.addressProblem('[2001:DB8::1]:7946')).toMatch(/\[2001:db8::1\]:7946/);
    expect(codec.addressProblem('node-1:7946')).toMatch(/IP/);
    expect(codec.addressProblem('1.2.3.4:70000')).toMatch(/port/);
  });
});

describe('LZW', () => {
  const inputs = fc.oneof(
    fc.uint8Array({ maxLength: 5000 }),
    fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 9000 })).map(([unit, n]) => Uint8Array.from({ length: unit.length * n }, (_, i) => unit[i % unit.length]!)),
    fc.uint8Array({ maxLength: 20_000 }).map((values) => values.map((v) => [0, 1, 2, 255][v & 3]!)),
  );

  it('round-trips random and repetitive inputs, through table resets', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const result = lzwDecompress(lzwCompress(input), input.length + 1);
        // Buffer.equals: a deep toEqual over tens of kilobytes is slow.
        expect(result.ok && Buffer.from(result.bytes).equals(Buffer.from(input))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('round-trips 70 kB of random bytes (several table resets)', () => {
    const input = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 2654435761) >>> 24);
    const result = lzwDecompress(lzwCompress(input), 70_000);
    expect(result.ok && Buffer.from(result.bytes).equals(Buffer.from(input))).toBe(true);
    expect(lzwDecompress(lzwCompress(input), 69_999)).toEqual({ ok: false, reason: 'too-large' });
  });

  it('never throws on any input, and stays within the cap', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.integer({ min: 1, max: 100_000 }), (input, cap) => {
        const result = lzwDecompress(input, cap);
        if (result.ok) expect(result.bytes.length).toBeLessThanOrEqual(cap);
      }),
      { numRuns: 2000 },
    );
  });
});
