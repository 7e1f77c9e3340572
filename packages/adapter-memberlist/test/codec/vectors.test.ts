// Byte vectors captured from Serf 0.9.4 (memberlist 0.2.2) on loopback, and the ones a Node peer
// sent that Serf accepted: every one decodes to the expected message, and what we encode for that
// message is the captured bytes, byte for byte (go-msgpack's layout, Go's LZW, the CRC).
import type { Message } from '@swim/core';
import { describe, expect, it } from 'vitest';
import { compressMessage, inflateMessage } from '../../src/codec/compress.js';
import { crc32, lzwCompress, lzwDecompress, memberlistCodec } from '../../src/index.js';

const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));
const hex = (data: Uint8Array): string => Buffer.from(data).toString('hex');
const ascii = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));

function decodeOne(data: Uint8Array, codec = memberlistCodec()): Message[] {
  const result = codec.decodePacket(data);
  if (!result.ok) throw new Error(`decode failed: ${result.error.code}: ${result.error.detail}`);
  return result.messages;
}

// real-peers: direct UDP ping a -> b (59 bytes, no CRC, not compressed)
const PING = '0085a44e6f6465a162a55365714e6f01aa536f7572636541646472a47f000001aa536f757263654e6f6465a161aa536f75726365506f7274cd1f0a';
// memberlist-wire 12.A: ping b -> a
const PING_A = '0085a44e6f6465a161a55365714e6f02aa536f7572636541646472a47f000001aa536f757263654e6f6465a162aa536f75726365506f7274cdbb4b';
// real-peers: the ack to PING, with Serf's coordinate as payload (150 bytes)
const ACK =
  '0282a75061796c6f6164da00820184aa41646a7573746d656e74cb3ee32cb241847a66a54572726f72cb3ff6e89e9bb36ad9a6486569676874cb3ee4f8b588e368f1a356656398cb3f00370193fe5085cbbed565fea7fde131cbbeffe11af5822552cbbecd79a9213634c1cbbef6fb0da05fc663cb3edb6c5ad1ab9172cb3ef066b93766c9b7cb3edb70b9ed487bc7a55365714e6f01';
// real-peers: a compressed ack (113 bytes): lzw(ack{SeqNo 1, Payload: initial coordinate})
const COMPRESSED_ACK =
  '0982a4416c676f00a3427566da00620005083a05254c1e366fc290d10640500042aa82905153670e9d3665dcd05906a0a3c78ea58ac891f346ceb21ff83e763485a44c9a336836fa2087af16a27168e28db252660c268e2a3b020d3a5465d18f473d26151a9469d35253cac471f2264040';
// real-peers: suspect c from a, with a CRC (34 bytes)
const SUSPECT_CRC = '0c55ff57b20383a446726f6da161ab496e6361726e6174696f6e01a44e6f6465a163';
// memberlist-wire 12.C: compound[ping, suspect] without CRC (94 bytes)
const COMPOUND_C =
  '0702003b001d0085a44e6f6465a162a55365714e6f0eaa536f7572636541646472a47f000001aa536f757263654e6f6465a161aa536f75726365506f7274cdbb4a0383a446726f6da161ab496e6361726e6174696f6e01a44e6f6465a163';
// memberlist-wire 12.B: Serf leave intent, gossiped with a CRC (29 bytes), then dead from self
const LEAVE_INTENT_B = '0cfe63071c' + '0800' + '83a54c54696d6502a44e6f6465a162a55072756e65c2';
const DEAD_SELF_B = '0cc887355e' + '0583a446726f6da162ab496e6361726e6174696f6e01a44e6f6465a162';
// memberlist-wire 12.F: a minimal join Serf 0.9.4 accepted (97 bytes, plaintext, uncompressed)
const JOIN_F =
  '0683a44a6f696ec3a54e6f64657301ac5573657253746174654c656e0087a441646472a47f000001ab496e6361726e6174696f6e01' +
  'a44d657461a2ff80a44e616d65a47377696da4506f7274cdba56a5537461746500a356736ea6010502020505';
// real-peers: compressed push-pull stream, b joining a (212 bytes; 681 inflated)
const JOIN_STREAM_COMPRESSED =
  '0982a4416c676f00a3427566da00c5000d0c22a5e44d1a37c34a397943a6cc9c00acaacc2923670a9d3074ca3029e3a69980248748052143460ea93f0000045895c4cd983072dc604cf3c64d00524dca5c14f50f10292761da9409258614943772e834fbb0a094458c65008cb232c78da9000504082890d590aa227638d26142258dd000a6c08a9dc34d00006070e3ca9d4bb7aeddbb78f3eaddcbb7afdfbf80030b1e4cb8b0e1c388132b5eccb8b1df5264cd9659b9d10c9d9c6dc4509c034955943a14f3443ecbea299d3a73463b0c44144040';
// memberlist-wire 10: 32 x 'a' as a whole compress message
const LZW_32A = '0982a4416c676f00a3427566ac00c3081c48b0a0c183040302';
// memberlist-wire 11: CRC-wrapped ping{SeqNo: 1, Node: "b"}
const CRC_PING = '0c04c039bb0082a44e6f6465a162a55365714e6f01';

describe('captured packets decode', () => {
  it('a direct ping (real-peers run 1)', () => {
    expect(decodeOne(bytes(PING))).toEqual([{ type: 'ping', seq: 1, target: 'b', sourceName: 'a', sourceAddress: '127.0.0.1:7946' }]);
  });

  it('a direct ping (capture A)', () => {
    expect(decodeOne(bytes(PING_A))).toEqual([{ type: 'ping', seq: 2, target: 'a', sourceName: 'b', sourceAddress: '127.0.0.1:47947' }]);
  });

  it("an ack carrying Serf's coordinate: the payload is kept as it is", () => {
    const [ack] = decodeOne(bytes(ACK));
    expect(ack).toMatchObject({ type: 'ack', seq: 1 });
    const payload = (ack as { payload: Uint8Array }).payload;
    expect(payload.length).toBe(0x82);
    expect(hex(payload.subarray(0, 2))).toBe('0184');
  });

  it('a compressed ack inflates to an ack (counted in compressedIn)', () => {
    const codec = memberlistCodec();
    const [ack] = decodeOne(bytes(COMPRESSED_ACK), codec);
    expect(ack).toMatchObject({ type: 'ack', seq: 1 });
    expect((ack as { payload: Uint8Array }).payload[0]).toBe(1);
    expect(codec.counters.compressedIn).toBe(1);
  });

  it('a suspect with a CRC', () => {
    expect(decodeOne(bytes(SUSPECT_CRC))).toEqual([{ type: 'suspect', incarnation: 1, node: 'c', from: 'a' }]);
  });

  it('compound C: a ping with a piggybacked suspicion', () => {
    expect(decodeOne(bytes(COMPOUND_C))).toEqual([
      { type: 'ping', seq: 14, target: 'b', sourceName: 'a', sourceAddress: '127.0.0.1:47946' },
      { type: 'suspect', incarnation: 1, node: 'c', from: 'a' },
    ]);
  });

  it("Serf's leave intent B is a user message with Serf's bytes, then the dead from self", () => {
    const codec = memberlistCodec();
    const [intent] = decodeOne(bytes(LEAVE_INTENT_B), codec);
    expect(intent).toEqual({ type: 'user', from: '', payload: bytes('0083a54c54696d6502a44e6f6465a162a55072756e65c2') });
    expect(codec.counters.userMessagesIn).toBe(1);
    expect(decodeOne(bytes(DEAD_SELF_B))).toEqual([{ type: 'dead', incarnation: 1, node: 'b', from: 'b' }]);
  });

  it('the CRC ping vector', () => {
    expect(decodeOne(bytes(CRC_PING))).toEqual([{ type: 'ping', seq: 1, target: 'b', sourceName: '', sourceAddress: '' }]);
  });
});

describe('we encode the captured bytes', () => {
  const plain = memberlistCodec({ crc: false });
  const withCrc = memberlistCodec({ crc: true });

  it('pings, with and without source, CRC as asked', () => {
    expect(hex(plain.encodePacket(decodeOne(bytes(PING))))).toBe(PING);
    expect(hex(plain.encodePacket(decodeOne(bytes(PING_A))))).toBe(PING_A);
    expect(hex(withCrc.encodePacket([{ type: 'ping', seq: 1, target: 'b', sourceName: '', sourceAddress: '' }]))).toBe(CRC_PING);
  });

  it("an ack with Serf's coordinate (payload as str16)", () => {
    expect(hex(plain.encodePacket(decodeOne(bytes(ACK))))).toBe(ACK);
  });

  it('a compressed ack: the same LZW bytes Go wrote (compression used since smaller)', () => {
    const [ack] = decodeOne(bytes(COMPRESSED_ACK));
    const codec = memberlistCodec({ crc: false, compress: true });
    expect(hex(codec.encodePacket([ack!]))).toBe(COMPRESSED_ACK);
    expect(codec.counters.compressedOut).toBe(1);
  });

  it('suspect with CRC, compound C, leave intent B and dead from self', () => {
    expect(hex(withCrc.encodePacket(decodeOne(bytes(SUSPECT_CRC))))).toBe(SUSPECT_CRC);
    expect(hex(plain.encodePacket(decodeOne(bytes(COMPOUND_C))))).toBe(COMPOUND_C);
    expect(hex(withCrc.encodePacket([{ type: 'user', from: 'b', payload: bytes('0083a54c54696d6502a44e6f6465a162a55072756e65c2') }]))).toBe(LEAVE_INTENT_B);
    expect(hex(withCrc.encodePacket(decodeOne(bytes(DEAD_SELF_B))))).toBe(DEAD_SELF_B);
  });

  it('join F, byte for byte on encode, and back', () => {
    const join: Message = {
      type: 'push-pull',
      join: true,
      members: [{ name: 'swim', address: '127.0.0.1:47702', meta: bytes('ff80'), incarnation: 1, state: 'alive' }],
      userState: new Uint8Array(0),
    };
    const codec = memberlistCodec();
    expect(hex(codec.encodeStream(join))).toBe(JOIN_F);
    expect(codec.decodeStream(bytes(JOIN_F), {})).toEqual({ ok: true, messages: [join] });
  });

  it("the compressed push-pull from Serf: decoded, and re-encoded to Go's exact bytes", () => {
    const codec = memberlistCodec({ compress: true });
    const result = codec.decodeStream(bytes(JOIN_STREAM_COMPRESSED), {});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [pushPull] = result.messages;
    expect(pushPull).toMatchObject({
      type: 'push-pull',
      join: true,
      members: [{ name: 'b', address: '127.0.0.1:7947', meta: bytes('ff80'), incarnation: 1, state: 'alive' }],
    });
    const userState = (pushPull as { userState: Uint8Array }).userState;
    expect(userState.length).toBe(585);
    expect(userState[0]).toBe(2);
    expect(hex(codec.encodeStream(pushPull!))).toBe(JOIN_STREAM_COMPRESSED);
  });
});

describe('LZW and CRC vectors', () => {
  it("32 x 'a' <-> Go's bytes, as the whole compress message", () => {
    const input = ascii('a'.repeat(32));
    expect(hex(compressMessage(input))).toBe(LZW_32A);
    expect(hex(inflateMessage(bytes(LZW_32A), 1, LZW_32A.length / 2, 1024, true))).toBe(hex(input));
    expect(lzwDecompress(lzwCompress(input), 1024)).toEqual({ ok: true, bytes: input });
  });

  it('CRC-32 (IEEE) of the CRC ping vector', () => {
    const packet = bytes(CRC_PING);
    expect(crc32(packet, 5).toString(16).padStart(8, '0')).toBe(CRC_PING.slice(2, 10));
    expect(crc32(ascii('123456789'))).toBe(0xcbf43926);
  });
});
