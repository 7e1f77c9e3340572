import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeTags, encodeTags } from '../../src/serf/tags.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const ascii = (text: string) => Buffer.from(text, 'latin1').toString('hex');

describe('encodeTags: Serf encodeTags, as go-msgpack 0.5 writes it', () => {
  it('no tags is ff 80', () => {
    expect(hex(encodeTags({}))).toBe('ff80');
  });

  it('keys sorted, fixstr keys and values (what Serf showed as {"dc":"lo","role":"swim"})', () => {
    expect(hex(encodeTags({ role: 'swim', dc: 'lo' }))).toBe(`ff82a2${ascii('dc')}a2${ascii('lo')}a4${ascii('role')}a4${ascii('swim')}`);
  });

  it('str16 above 31 bytes (never str8, which Go does not write), str32 above 65535', () => {
    expect(hex(encodeTags({ k: 'x'.repeat(31) })).slice(0, 10)).toBe(`ff81a1${ascii('k')}bf`);
    expect(hex(encodeTags({ k: 'x'.repeat(32) })).slice(0, 14)).toBe(`ff81a1${ascii('k')}da0020`);
    expect(hex(encodeTags({ k: 'x'.repeat(0x10000) })).slice(0, 18)).toBe(`ff81a1${ascii('k')}db00010000`);
  });

  it('map16 above 15 entries', () => {
    const tags = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${String(i).padStart(2, '0')}`, '']));
    expect(hex(encodeTags(tags)).slice(0, 8)).toBe('ffde0010');
    expect(decodeTags(encodeTags(tags))).toEqual(tags);
  });

  it('sorts keys by their UTF-8 bytes, not by JavaScript string order', () => {
    // UTF-16 puts U+1F600 (a surrogate pair, D83D…) before U+E000; UTF-8 (F0… against EE…) puts it after.
    const tags = { '\u{1f600}': '1', '\ue000': '2', é: '3', a: '4', B: '5' };
    const encoded = encodeTags(tags);
    expect(hex(encoded)).toBe(
      'ff85' + ['a142', 'a161', 'a2c3a9', 'a3ee8080', 'a4f09f9880'].map((key, i) => `${key}a1${(0x35 - i).toString(16)}`).join(''),
    );
  });

  it('writes UTF-8 as TextEncoder does, a lone surrogate as U+FFFD', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.nat(0xffff).map((unit) => String.fromCharCode(unit)), maxLength: 40 }), (value) => {
        const encoded = encodeTags({ k: value });
        const expected = new TextEncoder().encode(value);
        expect(hex(encoded.subarray(encoded.length - expected.length))).toBe(hex(expected));
      }),
    );
  });
});

describe('decodeTags: Serf decodeTags, total', () => {
  it('reads back what encodeTags wrote', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(fc.dictionary(text, text, { maxKeys: 20 }), (tags) => {
        expect(decodeTags(encodeTags(tags))).toEqual(tags);
      }),
    );
  });

  it('legacy mode: empty meta, or a first byte other than ff, is the tag role', () => {
    expect(decodeTags(new Uint8Array(0))).toEqual({ role: '' });
    expect(decodeTags(new TextEncoder().encode('web'))).toEqual({ role: 'web' });
    // What the swim CLI sent before tags: Serf showed it as {"role":"{\"role\":\"swim\"}"}.
    expect(decodeTags(new TextEncoder().encode('{"role":"swim"}'))).toEqual({ role: '{"role":"swim"}' });
  });

  it('legacy mode decodes UTF-8 as TextDecoder does (each ill-formed sequence one U+FFFD)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (raw) => {
        const meta = raw.length > 0 && raw[0] === 0xff ? Uint8Array.from([0xfe, ...raw.subarray(1)]) : raw;
        expect(decodeTags(meta)).toEqual({ role: new TextDecoder().decode(meta) });
      }),
      { numRuns: 2000 },
    );
    expect(decodeTags(bytes('e180 41 f4908080 eda080 c0af'))).toEqual({ role: '\ufffdA\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd' });
  });

  it('ff alone, ff c1, or a non-string value: empty tags (Serf: Failed to decode tags)', () => {
    expect(decodeTags(bytes('ff'))).toEqual({});
    expect(decodeTags(bytes('ffc1'))).toEqual({});
    expect(decodeTags(bytes(`ff81a1${ascii('a')}01`))).toEqual({});
  });

  it('a map that breaks off keeps the entries read before', () => {
    const two = `ff83a1${ascii('a')}a1${ascii('1')}a1${ascii('b')}a1${ascii('2')}`;
    expect(decodeTags(bytes(`${two}a1${ascii('c')}07`))).toEqual({ a: '1', b: '2' });
    expect(decodeTags(bytes(`${two}a1${ascii('c')}a5${ascii('ab')}`))).toEqual({ a: '1', b: '2' });
    expect(decodeTags(bytes(two))).toEqual({ a: '1', b: '2' });
    expect(decodeTags(bytes(`ffdf ffffffff a1${ascii('a')}a1${ascii('1')}`))).toEqual({ a: '1' });
  });

  it('reads what other msgpack writers send: str8, bin, map16, keys in any order, nil values; ignores bytes after the map', () => {
    expect(decodeTags(bytes(`ff82 d904${ascii('role')} c404${ascii('swim')} c5 0002${ascii('dc')} c6 00000002${ascii('lo')}`))).toEqual({ role: 'swim', dc: 'lo' });
    expect(decodeTags(bytes(`ffde0001 a1${ascii('z')} c0 93 01 02 03`))).toEqual({ z: '' });
    expect(decodeTags(bytes('ffc0'))).toEqual({});
  });

  it('a repeated key keeps its last value; __proto__ is an ordinary tag', () => {
    expect(decodeTags(bytes(`ff82a1${ascii('a')}a1${ascii('1')}a1${ascii('a')}a1${ascii('2')}`))).toEqual({ a: '2' });
    const tags = decodeTags(encodeTags(JSON.parse('{"__proto__":"x","role":"web"}') as Record<string, string>));
    expect(Object.keys(tags)).toEqual(['__proto__', 'role']);
    expect(Object.getPrototypeOf(tags)).toBe(Object.prototype);
  });

  it('never throws on any meta starting with ff, and returns only strings', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (raw) => {
        const tags = decodeTags(Uint8Array.from([0xff, ...raw]));
        for (const value of Object.values(tags)) expect(typeof value).toBe('string');
      }),
      { numRuns: 2000 },
    );
  });
});
