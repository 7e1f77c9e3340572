/**
 * The Serf RPC request framing (src/serf-rpc/frame-scanner.ts, request-reader.ts): values split
 * anywhere come out whole and in order, and the bounds refuse before bytes are buffered.
 */
import { encode } from '@msgpack/msgpack';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameScanner } from '../src/serf-rpc/frame-scanner.js';
import { RequestReader } from '../src/serf-rpc/request-reader.js';

const LIMITS = { maxBytes: 64 * 1024, maxDepth: 8, maxQueued: 1000 };

function reader(limits = LIMITS) {
  const values: unknown[] = [];
  const refused: string[] = [];
  const partial: boolean[] = [];
  const r = new RequestReader(limits, { onValue: () => {}, onRefused: (reason) => refused.push(reason), onPartial: (p) => partial.push(p) });
  const drain = () => {
    for (let v = r.shift(); v !== undefined; v = r.shift()) values.push(v.value);
  };
  return { r, values, refused, partial, drain };
}

/** Serf-like request values: maps of strings, bytes, ints, bools, lists and string maps. */
const key = fc.string({ maxLength: 12 }).filter((k) => k !== '__proto__');
const requestValue = fc.dictionary(
  key,
  fc.oneof(
    fc.string({ maxLength: 300 }),
    fc.uint8Array({ maxLength: 300 }),
    fc.integer({ min: 0, max: 2 ** 32 }),
    fc.boolean(),
    fc.array(fc.string({ maxLength: 20 }), { maxLength: 20 }),
    fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), { maxKeys: 5 }),
    fc.constant(null),
  ),
  { maxKeys: 6 },
);

describe('Serf RPC framing', () => {
  it('yields every value whole and in order however the stream is cut', () => {
    fc.assert(
      fc.property(fc.array(requestValue, { minLength: 1, maxLength: 8 }), fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 30 }), (values, cuts) => {
        const bytes = Buffer.concat(values.map((v) => encode(v)));
        const { r, values: out, refused, drain } = reader();
        let at = 0;
        for (let i = 0; at < bytes.length; i++) {
          const size = cuts[i % cuts.length]!;
          r.push(bytes.subarray(at, at + size));
          at += size;
          drain();
        }
        expect(refused).toEqual([]);
        expect(out).toEqual(values);
      }),
    );
  });

  it('a value dripped one byte at a time completes only at its last byte', () => {
    const bytes = encode({ Command: 'members-filtered', Seq: 7 });
    const { r, values, drain } = reader();
    for (let i = 0; i < bytes.length; i++) {
      r.push(Buffer.from([bytes[i]!]));
      drain();
      expect(values).toHaveLength(i === bytes.length - 1 ? 1 : 0);
    }
    expect(values[0]).toEqual({ Command: 'members-filtered', Seq: 7 });
  });

  it('refuses a str32/bin32/array32/map32 header declaring more than the bound, from the header bytes alone', () => {
    for (const header of [
      [0xdb, 0xff, 0xff, 0xff, 0xff],
      [0xc6, 0x7f, 0xff, 0xff, 0xff],
      [0xdd, 0x00, 0x10, 0x00, 0x00],
      [0xdf, 0x00, 0x01, 0x00, 0x00],
      // Inside a map, after a small key: the bound counts the whole request.
      [0x81, 0xa1, 0x61, 0xda, 0xff, 0xff],
    ]) {
      const { r, refused } = reader();
      r.push(Buffer.from(header));
      expect(refused, header.map((b) => b.toString(16)).join(' ')).toEqual([`a request larger than ${LIMITS.maxBytes} bytes`]);
    }
  });

  it('refuses a value that grows past the bound element by element', () => {
    const { r, refused } = reader({ ...LIMITS, maxBytes: 1000 });
    // An array of 900 elements fits the header check (900 + 3 bytes); its elements do not.
    r.push(Buffer.from([0xdc, 0x03, 0x84]));
    for (let i = 0; i < 900 && refused.length === 0; i++) r.push(Buffer.from([0xa1, 0x78]));
    expect(refused).toEqual(['a request larger than 1000 bytes']);
  });

  it('refuses nesting deeper than the bound and msgpack types Serf never sends', () => {
    const deep = reader();
    deep.r.push(Buffer.alloc(20, 0x91));
    expect(deep.refused).toEqual(['a request nested deeper than 8']);
    const ext = reader();
    ext.r.push(Buffer.from([0xd4, 0x01, 0x00]));
    expect(ext.refused).toEqual(['msgpack type 0xd4 is not used by Serf\'s RPC']);
  });

  it('reports a value in progress, and none once it completed', () => {
    const { r, partial } = reader();
    const bytes = encode({ Command: 'stats', Seq: 1 });
    r.push(bytes.subarray(0, 3));
    r.push(bytes.subarray(3));
    expect(partial).toEqual([true, false]);
  });

  it('stops scanning at maxQueued values and resumes as they are taken', () => {
    const { r, values } = reader({ ...LIMITS, maxQueued: 2 });
    r.push(Buffer.concat([encode(1), encode(2), encode(3), encode(4), encode(5)]));
    expect(r.backlogged).toBe(true);
    for (let v = r.shift(); v !== undefined; v = r.shift()) values.push(v.value);
    expect(values).toEqual([1, 2, 3, 4, 5]);
  });

  it('the scanner alone: a complete value ends where its bytes end', () => {
    const scanner = new FrameScanner({ maxBytes: 100, maxDepth: 4 });
    const bytes = Buffer.concat([encode({ a: [1, { b: 'c' }], d: new Uint8Array(3) }), Buffer.from([0x01])]);
    expect(scanner.scan(bytes)).toEqual({ kind: 'complete', end: bytes.length - 1 });
  });
});
