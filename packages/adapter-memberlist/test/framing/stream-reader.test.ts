// memberlist's stream framing: no length prefix, so the reader parses each message as it arrives.
// Whole, byte by byte or in random chunks, it finds the same frames; it refuses oversize frames
// early and malformed starts; it reserves what it buffers; a 1-byte trickle costs linear work.
import type { StreamFraming as UdpStreamFraming } from '@swim/transport-udp';
import fc from 'fast-check';
import type { Message } from '@swim/core';
import { describe, expect, it } from 'vitest';
import { MemberlistFrameReader, memberlistCodec, memberlistStreamFraming, type ByteBudget, type FrameReadResult } from '../../src/index.js';
import { bytes, concat, str, struct, uint } from '../codec/wire-bytes.js';

// The transport's contract, structurally: this assignment is the type check.
const asTransportFraming: UdpStreamFraming = memberlistStreamFraming;

class CountingBudget implements ByteBudget {
  held = 0;
  peak = 0;
  constructor(readonly limit = Infinity) {}
  reserve(n: number): boolean {
    if (this.held + n > this.limit) return false;
    this.held += n;
    this.peak = Math.max(this.peak, this.held);
    return true;
  }
  release(n: number): void {
    this.held -= n;
    expect(this.held).toBeGreaterThanOrEqual(0);
  }
}

const JOIN_F = bytes(
  '0683a44a6f696ec3a54e6f64657301ac5573657253746174654c656e0087a441646472a47f000001ab496e6361726e6174696f6e01' +
    'a44d657461a2ff80a44e616d65a47377696da4506f7274cdba56a5537461746500a356736ea6010502020505',
);

function pushPull(entries: number, userState: number, metaBytes = 20): Message {
  return {
    type: 'push-pull',
    join: false,
    members: Array.from({ length: entries }, (_, i) => ({
      name: `member-${i}`,
      address: `10.0.${i >> 8}.${i & 0xff}:7946`,
      meta: new Uint8Array(metaBytes).fill(i & 0xff),
      incarnation: i,
      state: 'alive' as const,
    })),
    userState: new Uint8Array(userState).fill(2),
  };
}

/** Every stream message shape we and Serf write, plain and compressed, and an encrypted blob. */
function sampleFrames(bigPayload = 70_000): Uint8Array[] {
  const frames: Uint8Array[] = [JOIN_F];
  for (const compress of [false, true]) {
    const codec = memberlistCodec({ compress });
    frames.push(
      codec.encodeStream(pushPull(3, 300)),
      codec.encodeStream(pushPull(0, 0)),
      codec.encodeStream({ type: 'user', from: 'a', payload: new Uint8Array(bigPayload).fill(9) }),
      codec.encodeStream({ type: 'user', from: 'a', payload: new Uint8Array(0) }),
      codec.encodeStream({ type: 'ping', seq: 7, target: 'b', sourceName: 'a', sourceAddress: '127.0.0.1:7946' }),
      codec.encodeStream({ type: 'ack', seq: 7, payload: new Uint8Array(0) }),
      codec.encodeStream({ type: 'error', message: 'Encryption is configured but remote state is not encrypted' }),
    );
  }
  frames.push(concat([10, 0, 0, 0, 0x20], new Uint8Array(0x20).fill(1)), concat([11], struct([['SeqNo', uint(3)]])));
  return frames;
}

function readAll(chunks: readonly Uint8Array[], max = 1 << 20, budget = new CountingBudget()): { result: Uint8Array[] | string; budget: CountingBudget; reader: MemberlistFrameReader } {
  const reader = new MemberlistFrameReader(max, budget);
  const frames: Uint8Array[] = [];
  for (const chunk of chunks) {
    const result: FrameReadResult = reader.push(chunk);
    if (typeof result === 'string') return { result, budget, reader };
    frames.push(...result);
  }
  return { result: frames, budget, reader };
}

const hex = (data: Uint8Array) => Buffer.from(data).toString('hex');

describe('memberlistStreamFraming', () => {
  it('writes a message as it is and names itself', () => {
    const message = JOIN_F;
    expect(asTransportFraming.frame(message)).toBe(message);
    expect(memberlistStreamFraming.name).toBe('memberlist');
    expect(memberlistStreamFraming.reader(100, new CountingBudget())).toBeInstanceOf(MemberlistFrameReader);
  });

  it('each sample frame comes out whole: pushed at once, byte by byte, and with the next one in the same chunk', () => {
    const frames = sampleFrames();
    for (const frame of frames) {
      expect(readAll([frame]).result, hex(frame.subarray(0, 8))).toEqual([frame]);
      const trickled = readAll(Array.from(frame, (b) => Uint8Array.of(b)));
      expect(trickled.result).toEqual([frame]);
      expect(trickled.budget.held, 'everything given back').toBe(0);
    }
    expect(readAll([concat(...frames)]).result).toEqual(frames);
  });

  it('random chunking of a run of frames gives the same frames', () => {
    const frames = sampleFrames(3000);
    const all = concat(...frames);
    const expected = frames.map(hex);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 200 }), (sizes) => {
        const chunks: Uint8Array[] = [];
        let at = 0;
        for (let i = 0; at < all.length; i++) {
          const size = sizes[i % sizes.length]!;
          chunks.push(all.subarray(at, at + size));
          at += size;
        }
        const { result, budget } = readAll(chunks);
        expect(typeof result === 'string' ? result : result.map(hex)).toEqual(expected);
        expect(budget.held).toBe(0);
      }),
      { numRuns: 100 },
    );
  });

  it('frames found are exactly the stream messages the codec wrote, and decode', () => {
    const codec = memberlistCodec();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 3000 }), fc.boolean(), fc.integer({ min: 1, max: 97 }), (entries, userState, compress, chunk) => {
        const frame = memberlistCodec({ compress }).encodeStream(pushPull(entries, userState));
        const chunks = Array.from({ length: Math.ceil(frame.length / chunk) }, (_, i) => frame.subarray(i * chunk, (i + 1) * chunk));
        const { result } = readAll(chunks);
        expect(result).toEqual([frame]);
        expect(codec.decodeStream(frame, {}).ok).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('reserves what it buffers and gives it back when the frame is handed out, or on discard', () => {
    const budget = new CountingBudget();
    const reader = new MemberlistFrameReader(1 << 20, budget);
    const frame = memberlistCodec().encodeStream(pushPull(5, 100));
    expect(reader.push(frame.subarray(0, 50))).toEqual([]);
    expect([reader.buffered, reader.reserved, budget.held]).toEqual([50, 50, 50]);
    expect(reader.push(frame.subarray(50))).toEqual([frame]);
    expect([reader.buffered, reader.reserved, budget.held]).toEqual([0, 0, 0]);
    expect(reader.push(frame.subarray(0, 70))).toEqual([]);
    reader.discard();
    expect([reader.buffered, budget.held]).toEqual([0, 0]);
  });

  it("a budget that refuses makes it 'over-budget', for good", () => {
    const frame = memberlistCodec().encodeStream(pushPull(5, 1000));
    const budget = new CountingBudget(600);
    const reader = new MemberlistFrameReader(1 << 20, budget);
    expect(reader.push(frame.subarray(0, 500))).toEqual([]);
    expect(reader.push(frame.subarray(500))).toBe('over-budget');
    expect(budget.held).toBe(0);
    expect(reader.push(Uint8Array.of(0))).toBe('over-budget');
  });
});

describe('refusals', () => {
  it('a frame larger than maxFrameBytes is refused, and frames up to it pass', () => {
    const frame = memberlistCodec().encodeStream(pushPull(10, 500));
    expect(readAll([frame], frame.length).result).toEqual([frame]);
    expect(readAll(Array.from(frame, (b) => Uint8Array.of(b)), frame.length - 1).result).toBe('oversize');
  });

  it('announced lengths past maxFrameBytes are refused as soon as they are read, before the bytes come', () => {
    const max = 10_000;
    const cases: [string, Uint8Array][] = [
      ['an encrypted blob', Uint8Array.of(10, 0, 1, 0, 0)],
      ['a push-pull user state', concat([6], struct([['Join', Uint8Array.of(0xc2)], ['Nodes', uint(0)], ['UserStateLen', uint(20_000)]]))],
      ['a push-pull of many entries', concat([6], struct([['Join', Uint8Array.of(0xc2)], ['Nodes', uint(20_000)], ['UserStateLen', uint(0)]]))],
      ['a user message', concat([8], struct([['UserMsgLen', uint(0xffff_ffff)]]))],
      ['a compressed buffer', concat([9, 0x82], str('Algo'), [0], str('Buf'), [0xdb, 0, 1, 0, 0])],
      ['a map of 2^31 entries', Uint8Array.of(0, 0xdf, 0x7f, 0xff, 0xff, 0xff)],
      ['an array of 2^32-1 values in a key', concat([2, 0x81], str('X'), [0xdd, 0xff, 0xff, 0xff, 0xff])],
    ];
    for (const [what, start] of cases) {
      const budget = new CountingBudget();
      expect(readAll([start], max, budget).result, what).toBe('oversize');
      expect(budget.held, what).toBe(0);
    }
  });

  it("a stream that starts with no message type we read is 'malformed' (a label header among them)", () => {
    for (const first of [1, 3, 4, 5, 7, 12, 99, 244]) expect(readAll([Uint8Array.of(first, 0, 0)]).result, `type ${first}`).toBe('malformed');
    expect(readAll([Uint8Array.of(0, 0xc1)]).result, 'the reserved byte').toBe('malformed');
    expect(readAll([concat([6], [0x93, 1, 2, 3])]).result, 'a header that is no map').toBe('malformed');
    expect(readAll([concat([8, 0x81], str('UserMsgLen'), [0xff])]).result, 'a negative length').toBe('malformed');
  });
});

describe('a trickle costs linear work', () => {
  it('a 1-byte-per-chunk push-pull of ~200 kB takes a few parse steps per byte, as many as in big chunks', () => {
    const frame = memberlistCodec().encodeStream(pushPull(2000, 50_000, 40));
    expect(frame.length).toBeGreaterThan(200_000);
    const whole = readAll([frame]);
    const trickled = readAll(Array.from(frame, (b) => Uint8Array.of(b)));
    expect(trickled.result).toEqual([frame]);
    // A re-parse of the buffer per chunk would take ~frame.length² / 2 = 2e10 steps.
    expect(trickled.reader.parseSteps).toBeLessThanOrEqual(3 * frame.length);
    expect(whole.reader.parseSteps).toBeLessThanOrEqual(trickled.reader.parseSteps);
    expect(trickled.budget.peak).toBeLessThanOrEqual(frame.length);
  });
});
