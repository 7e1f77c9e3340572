import { describe, expect, it } from 'vitest';
import {
  decodeFrame,
  encodePacket,
  encodeReply,
  encodeRequest,
  encodeResult,
  encodeStream,
  OP_PACKET,
  OP_REPLY,
  OP_REQUEST,
  OP_RESULT,
  OP_STREAM,
  parseHello,
  parseWelcome,
} from '../src/protocol/framing.js';

const bytes = (...values: number[]) => new Uint8Array(values);

describe('framing', () => {
  it('round-trips every frame', () => {
    expect(decodeFrame(encodePacket('10.0.0.1:7946', bytes(1, 2, 3)))).toEqual({ op: OP_PACKET, address: '10.0.0.1:7946', bytes: bytes(1, 2, 3) });
    expect(decodeFrame(encodePacket('[::1]:1', bytes()))).toEqual({ op: OP_PACKET, address: '[::1]:1', bytes: bytes() });
    expect(decodeFrame(encodeRequest(0xffff_fffe, 1500.2, true, 'h:1', bytes(9)))).toEqual({
      op: OP_REQUEST,
      id: 0xffff_fffe,
      timeoutMs: 1501,
      expectReply: true,
      address: 'h:1',
      bytes: bytes(9),
    });
    expect(decodeFrame(encodeRequest(1, 10, false, 'h:1', bytes()))).toMatchObject({ expectReply: false });
    expect(decodeFrame(encodeResult(7, { ok: true, bytes: undefined }))).toEqual({ op: OP_RESULT, id: 7, ok: true, bytes: undefined });
    expect(decodeFrame(encodeResult(7, { ok: true, bytes: bytes() }))).toEqual({ op: OP_RESULT, id: 7, ok: true, bytes: bytes() });
    expect(decodeFrame(encodeResult(7, { ok: false, reason: 'timeout ✓' }))).toEqual({ op: OP_RESULT, id: 7, ok: false, reason: 'timeout ✓' });
    expect(decodeFrame(encodeStream(3, 'from:2', bytes(4)))).toEqual({ op: OP_STREAM, id: 3, address: 'from:2', bytes: bytes(4) });
    expect(decodeFrame(encodeReply(3, undefined))).toEqual({ op: OP_REPLY, id: 3, bytes: undefined });
    expect(decodeFrame(encodeReply(3, bytes(5, 6)))).toEqual({ op: OP_REPLY, id: 3, bytes: bytes(5, 6) });
  });

  it('writes every byte of a frame: one cut from a pooled, dirty buffer at an offset decodes the same', () => {
    // Buffer.allocUnsafe hands out slices of a shared slab: a non-zero byteOffset, old bytes in it.
    const slab = new Uint8Array(4096).fill(0xaa);
    let used = 3;
    const pooled = (size: number): Uint8Array => {
      const out = slab.subarray(used, used + size);
      used += size + 5;
      return out;
    };
    const payload = bytes(1, 2, 3);
    const frames: Array<[Uint8Array, Uint8Array]> = [
      [encodePacket('10.0.0.1:7946', payload, pooled), encodePacket('10.0.0.1:7946', payload)],
      [encodeStream(0x0102_0304, 'h:1', payload, pooled), encodeStream(0x0102_0304, 'h:1', payload)],
      [encodeResult(0xffff_fffe, { ok: true, bytes: payload }, pooled), encodeResult(0xffff_fffe, { ok: true, bytes: payload })],
      [encodeResult(9, { ok: false, reason: 'nope' }, pooled), encodeResult(9, { ok: false, reason: 'nope' })],
    ];
    for (const [cut, fresh] of frames) {
      expect(cut.byteOffset).toBeGreaterThan(0);
      expect(cut).toEqual(fresh);
      expect(decodeFrame(cut)).toEqual(decodeFrame(fresh));
    }
    expect(decodeFrame(frames[1]![0])).toEqual({ op: OP_STREAM, id: 0x0102_0304, address: 'h:1', bytes: payload });
  });

  it('decodes non-ASCII addresses, and encodes the same address the same way every time', () => {
    const address = 'höst-ü.example:7946';
    expect(decodeFrame(encodePacket(address, bytes(1)))).toEqual({ op: OP_PACKET, address, bytes: bytes(1) });
    expect(decodeFrame(encodePacket(address, bytes(2)))).toEqual({ op: OP_PACKET, address, bytes: bytes(2) });
    // Past the cache's size: still right.
    for (let i = 0; i < 5_000; i++) expect((decodeFrame(encodePacket(`10.${i >> 8}.${i & 0xff}.1:${i}`, bytes())) as { address: string }).address).toBe(`10.${i >> 8}.${i & 0xff}.1:${i}`);
    expect(() => encodePacket('x'.repeat(256), bytes())).toThrow(RangeError);
    expect(() => encodePacket('x'.repeat(256), bytes())).toThrow(RangeError);
  });

  it('is compact: a packet costs 2 bytes plus the address', () => {
    expect(encodePacket('127.0.0.1:7946', new Uint8Array(100)).length).toBe(2 + 14 + 100);
  });

  it('describes malformed frames instead of throwing', () => {
    for (const [frame, why] of [
      [bytes(), /empty/],
      [bytes(0x7f), /unknown op/],
      [bytes(OP_PACKET), /truncated/],
      [bytes(OP_PACKET, 5, 65), /truncated/],
      [bytes(OP_PACKET, 2, 0xff, 0xfe), /UTF-8/],
      [bytes(OP_REQUEST, 0, 0, 0, 1), /truncated/],
      [bytes(OP_REQUEST, 0, 0, 0, 1, 0, 0, 0, 1, 2, 0), /flags/],
      [bytes(OP_RESULT, 0, 0, 0, 1, 9), /status/],
      [bytes(OP_RESULT, 0, 0, 0, 1, 0, 1), /empty result/],
      [bytes(OP_REPLY, 0, 0, 0, 1, 0, 1), /empty reply/],
      [bytes(OP_REPLY, 0, 0, 0, 1, 2), /flag/],
      [bytes(OP_STREAM, 0, 0), /truncated/],
    ] as const) {
      const decoded = decodeFrame(frame);
      expect(typeof decoded, String(frame)).toBe('string');
      expect(decoded).toMatch(why);
    }
    expect(() => encodePacket('x'.repeat(256), bytes())).toThrow(RangeError);
  });

  it('parses hello and welcome, rejecting bad ones', () => {
    expect(parseHello('{"op":"hello","v":1,"name":"a","token":"t"}')).toEqual({ op: 'hello', v: 1, name: 'a', token: 't' });
    expect(parseHello('nope')).toMatch(/JSON/);
    expect(parseHello('null')).toMatch(/object/);
    expect(parseHello('{"op":"hello","v":1,"name":""}')).toMatch(/name/);
    expect(parseHello(`{"op":"hello","v":1,"name":"${'é'.repeat(128)}"}`)).toMatch(/name/);
    expect(parseHello('{"op":"hello","v":1,"name":"a","token":5}')).toMatch(/token/);
    expect(parseHello('{"op":"hello","v":1,"name":"a","resume":{}}')).toMatch(/resume/);
    expect(parseWelcome('{"op":"welcome","v":1,"address":"h:1","maxPacketBytes":1400,"resume":"r","resumed":false}')).toEqual({
      op: 'welcome',
      v: 1,
      address: 'h:1',
      maxPacketBytes: 1400,
      resume: 'r',
      resumed: false,
    });
    expect(parseWelcome('{"op":"welcome","v":1,"address":"h:1","maxPacketBytes":0,"resume":"r"}')).toMatch(/maxPacketBytes/);
  });

  it('carries the move fields, optional both ways so that old clients and old gateways still interoperate', () => {
    const oldHello = '{"op":"hello","v":1,"name":"a","resume":"r"}';
    expect(parseHello(oldHello)).toEqual({ op: 'hello', v: 1, name: 'a', resume: 'r' });
    expect(parseHello('{"op":"hello","v":1,"name":"a","credential":"c","from":"10.0.0.1:4000"}')).toEqual({
      op: 'hello',
      v: 1,
      name: 'a',
      credential: 'c',
      from: '10.0.0.1:4000',
    });
    expect(parseHello('{"op":"hello","v":1,"name":"a","credential":1}')).toMatch(/credential/);
    expect(parseHello('{"op":"hello","v":1,"name":"a","from":""}')).toMatch(/from/);
    expect(parseHello(`{"op":"hello","v":1,"name":"a","from":"${'x'.repeat(256)}"}`)).toMatch(/from/);
    // A welcome of a gateway from before credentials parses, without credential or moved.
    const oldWelcome = parseWelcome('{"op":"welcome","v":1,"address":"h:1","maxPacketBytes":1400,"resume":"r","resumed":true}');
    expect(oldWelcome).toEqual({ op: 'welcome', v: 1, address: 'h:1', maxPacketBytes: 1400, resume: 'r', resumed: true });
    expect(parseWelcome('{"op":"welcome","v":1,"address":"h:2","maxPacketBytes":1400,"resume":"r","resumed":false,"credential":"c","moved":true}')).toEqual({
      op: 'welcome',
      v: 1,
      address: 'h:2',
      maxPacketBytes: 1400,
      resume: 'r',
      resumed: false,
      credential: 'c',
      moved: true,
    });
    expect(parseWelcome('{"op":"welcome","v":1,"address":"h:2","maxPacketBytes":1400,"resume":"r","credential":"c","moved":false}')).not.toHaveProperty('moved');
    expect(parseWelcome('{"op":"welcome","v":1,"address":"h:2","maxPacketBytes":1400,"resume":"r","credential":7}')).toMatch(/credential/);
    expect(parseWelcome('{"op":"welcome","v":1,"address":"h:2","maxPacketBytes":1400,"resume":"r","moved":"yes"}')).toMatch(/moved/);
  });
});
