import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_VIVALDI_CONFIG, decodeRangePayload, decodeSwimAckPayload, encodeSwimAckPayload, newCoordinate, type Coordinate } from '../src/index.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const fromHex = (text: string) => Uint8Array.from(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const RANGE = { min: 1, max: 2 };
const fresh = newCoordinate(DEFAULT_VIVALDI_CONFIG);

describe("@swim's direct ack payload: [min, max, [vec..., error, adjustment, height]] (docs/compatibility.md)", () => {
  it('writes a fresh coordinate as these bytes: float64s, Height 1e-5 as Serf writes it', () => {
    const zero = 'cb0000000000000000';
    expect(hex(encodeSwimAckPayload({ protocol: RANGE, coordinate: fresh }))).toBe(
      `930102 9b ${zero.repeat(8)} cb3ff8000000000000 ${zero} cb3ee4f8b588e368f1`.replace(/\s+/g, ''),
    );
    expect(encodeSwimAckPayload({ protocol: RANGE, coordinate: fresh })).toHaveLength(3 + 1 + 11 * 9);
  });

  it('without a coordinate is the range alone, as before coordinates', () => {
    expect(hex(encodeSwimAckPayload({ protocol: RANGE }))).toBe('920102');
    expect(decodeSwimAckPayload(fromHex('920102'))).toEqual({ protocol: RANGE });
  });

  it("a member before coordinates reads its range from it: decodeRangePayload reads the first two elements", () => {
    expect(decodeRangePayload(encodeSwimAckPayload({ protocol: { min: 1, max: 200 }, coordinate: fresh }))).toEqual({ min: 1, max: 200 });
  });

  it('reads back every coordinate it writes, NaN and infinities included (judging them is the client\'s job)', () => {
    const number = fc.oneof(fc.double(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0));
    fc.assert(
      fc.property(fc.array(number, { minLength: 1, maxLength: 64 }), number, number, number, fc.integer({ min: 1, max: 255 }), (vec, error, adjustment, height, max) => {
        const coordinate: Coordinate = { vec, error, adjustment, height };
        const protocol = { min: 1, max };
        const decoded = decodeSwimAckPayload(encodeSwimAckPayload({ protocol, coordinate }));
        expect(decoded).toEqual({ protocol, coordinate });
        expect(Object.isFrozen(decoded.coordinate)).toBe(true);
      }),
    );
  });

  it('is forward compatible: elements a later version appends are ignored, float32s and array16 are read', () => {
    const payload = encodeSwimAckPayload({ protocol: RANGE, coordinate: fresh });
    const appended = Uint8Array.from([0x94, ...payload.subarray(1), 0xa1, 0x78]);
    expect(decodeSwimAckPayload(appended)).toEqual({ protocol: RANGE, coordinate: fresh });
    // [1, 2, [0.5 (float32) x 1, error 1, adjustment 0, height 0.25]] with an array16 header.
    const wide = fromHex('930102 dc0004 ca3f000000 cb3ff0000000000000 ca00000000 ca3e800000');
    expect(decodeSwimAckPayload(wide)).toEqual({ protocol: RANGE, coordinate: { vec: [0.5], error: 1, adjustment: 0, height: 0.25 } });
  });

  it.each([
    ['a truncated coordinate', encodeSwimAckPayload({ protocol: RANGE, coordinate: fresh }).subarray(0, 60)],
    ['a third element that is no array', fromHex('930102a3616263')],
    ['an array of strings', fromHex('930102 94 a161 a162 a163 a164')],
    ['fewer than four numbers: no vec', fromHex('930102 93 cb3ff0000000000000 cb3ff0000000000000 cb3ff0000000000000')],
    ['more than 64 dimensions', Uint8Array.from([0x93, 1, 2, 0xdc, 0, 68, ...new Array<number>(68).fill(0).flatMap(() => [0xca, 0, 0, 0, 0])])],
    ['a third element missing its bytes', fromHex('930102')],
  ])('%s: the range is read, the coordinate flagged unreadable', (_name, payload) => {
    expect(decodeSwimAckPayload(payload)).toEqual({ protocol: RANGE, unreadableCoordinate: true });
  });

  it('never throws, whatever the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const decoded = decodeSwimAckPayload(bytes);
        expect(decoded.protocol).toEqual(decodeRangePayload(bytes));
      }),
    );
  });

  it('an empty payload (0.1.0) says nothing', () => {
    expect(decodeSwimAckPayload(new Uint8Array(0))).toEqual({});
  });
});
