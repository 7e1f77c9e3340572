// Queries on @swim's own wire (codec/query-codec.ts): round trips, forward compatibility (extra
// fields skipped, unknown filters kept as 'unknown'), the reserved key and marker, and hostile
// bytes (truncations, huge claimed lengths, too many filters) refused without throwing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeQueryBroadcast,
  decodeQueryMessage,
  encodeQueryBroadcast,
  encodeQueryRelayMessage,
  encodeQueryResponseMessage,
  isQueryBroadcastKey,
  isQueryMessage,
  MAX_QUERY_FILTERS,
  QUERY_MESSAGE_MARKER,
  queryBroadcastKey,
  type QueryRequest,
  type QueryResponse,
} from '../src/index.js';

const query: QueryRequest = {
  name: 'deploy',
  payload: new Uint8Array([1, 2, 3]),
  filters: [
    { kind: 'nodes', names: ['a', 'b'] },
    { kind: 'tag', tag: 'role', expr: '^web' },
  ],
  requestAck: true,
  noBroadcast: false,
  id: 0x7fff_fffe,
  ltime: 2 ** 40,
  timeoutMs: 3200,
  relayFactor: 2,
  sourceName: 'asker',
  sourceAddress: '10.0.0.1:7946',
};

/** msgpack by hand, for bytes our writer would never write. */
const str = (s: string) => [0xa0 | s.length, ...new TextEncoder().encode(s)];

describe('query broadcast', () => {
  it('round trips under its own key', () => {
    const key = queryBroadcastKey(query);
    expect(key).toBe(`swim:query:${2 ** 40}:${0x7fff_fffe}`);
    expect(isQueryBroadcastKey(key)).toBe(true);
    const decoded = decodeQueryBroadcast(key, encodeQueryBroadcast(query));
    expect(decoded).toEqual({ ok: true, value: query });
  });

  it('is refused under another key: one key never carries two queries', () => {
    const decoded = decodeQueryBroadcast('swim:query:1:2', encodeQueryBroadcast(query));
    expect(decoded.ok).toBe(false);
  });

  it('skips fields a later version appends, and reads a filter of an unknown type as unknown', () => {
    const bytes = encodeQueryBroadcast({ ...query, filters: [] });
    // Array of 10 -> 12 with two extra values; the empty filter list (0x90) becomes [[9, "x"]].
    const body = [...bytes];
    expect(body[0]).toBe(0x9a);
    body[0] = 0x9c;
    const filtersAt = body.indexOf(0x90, 1 + 1 + 'deploy'.length + 2 + 3);
    body.splice(filtersAt, 1, 0x91, 0x92, 0x09, ...str('x'));
    body.push(0xc3, ...str('later'));
    const decoded = decodeQueryBroadcast(queryBroadcastKey(query), new Uint8Array(body));
    expect(decoded).toEqual({ ok: true, value: { ...query, filters: [{ kind: 'unknown', type: 9 }] } });
  });

  it(`refuses more than ${MAX_QUERY_FILTERS} filters`, () => {
    const many = Array.from({ length: MAX_QUERY_FILTERS + 1 }, () => ({ kind: 'nodes' as const, names: ['a'] }));
    const decoded = decodeQueryBroadcast(queryBroadcastKey(query), encodeQueryBroadcast({ ...query, filters: many }));
    expect(decoded.ok).toBe(false);
  });

  it.each([
    ['a name over 512 bytes', { name: 'x'.repeat(513) }],
    ['a fractional timeout', { timeoutMs: 1.5 }],
    ['a relay factor over 255', { relayFactor: 256 }],
    ['an id over uint32', { id: 2 ** 32 }],
    ['a negative ltime', { ltime: -1 }],
    ['a lone surrogate', { sourceName: '\ud800' }],
  ])('does not encode %s', (_, change) => {
    expect(() => encodeQueryBroadcast({ ...query, ...change })).toThrow(RangeError);
  });

  it('refuses every truncation of a valid query, without throwing', () => {
    const bytes = encodeQueryBroadcast(query);
    for (let end = 0; end < bytes.length; end++) {
      expect(decodeQueryBroadcast(queryBroadcastKey(query), bytes.subarray(0, end)).ok).toBe(false);
    }
  });
});

describe('query messages (acks, responses, relays)', () => {
  const response: QueryResponse = { ltime: 7, id: 9, from: 'b', ack: false, payload: new Uint8Array([0xc1, 0, 255]) };

  it('round trip, behind the reserved marker', () => {
    const bytes = encodeQueryResponseMessage(response);
    expect(bytes[0]).toBe(QUERY_MESSAGE_MARKER);
    expect(isQueryMessage(bytes)).toBe(true);
    expect(decodeQueryMessage(bytes)).toEqual({ ok: true, value: { kind: 'response', response } });
    const relay = encodeQueryRelayMessage(bytes, { name: 'asker', address: '10.0.0.1:7946' });
    expect(decodeQueryMessage(relay)).toEqual({ ok: true, value: { kind: 'relay', destination: { name: 'asker', address: '10.0.0.1:7946' }, inner: bytes } });
  });

  it.each([
    ['empty', []],
    ['a marker alone', [0xc1]],
    ['an unknown tag', [0xc1, 3, 0x90]],
    ['a truncated response', [0xc1, 1, 0x95, 1, 2]],
    ['a bin claiming 4 GiB', [0xc1, 2, 0x93, ...str('a'), ...str('b'), 0xc6, 0xff, 0xff, 0xff, 0xff]],
    ['trailing bytes', [0xc1, 1, 0x95, 1, 2, ...str('b'), 0xc2, 0xc4, 0, 0]],
  ])('refuse %s', (_, body) => {
    expect(decodeQueryMessage(new Uint8Array(body)).ok).toBe(false);
  });

  it('is no message of the application: text and msgpack never start with the marker', () => {
    expect(isQueryMessage(new TextEncoder().encode('\u00c1hello'))).toBe(false);
    expect(isQueryMessage(new Uint8Array(0))).toBe(false);
  });
});

describe('query codec (property)', () => {
  const name = fc.string({ minLength: 1, maxLength: 40 });
  const filter = fc.oneof(
    fc.record({ kind: fc.constant('nodes' as const), names: fc.array(name, { maxLength: 5 }) }),
    fc.record({ kind: fc.constant('tag' as const), tag: name, expr: fc.string({ maxLength: 40 }) }),
  );
  const request = fc.record({
    name,
    payload: fc.uint8Array({ maxLength: 64 }),
    filters: fc.array(filter, { maxLength: 4 }),
    requestAck: fc.boolean(),
    noBroadcast: fc.boolean(),
    id: fc.nat({ max: 0xffff_ffff }),
    ltime: fc.maxSafeNat(),
    timeoutMs: fc.nat({ max: 0xffff_ffff }),
    relayFactor: fc.nat({ max: 255 }),
    sourceName: name,
    sourceAddress: name,
  });

  it('decode(encode(q)) is q, for every query the encoder takes', () => {
    fc.assert(
      fc.property(request, (q) => {
        let bytes: Uint8Array;
        try {
          bytes = encodeQueryBroadcast(q);
        } catch (error) {
          // Only lone surrogates are refused by these arbitraries.
          expect(error).toBeInstanceOf(RangeError);
          return;
        }
        expect(decodeQueryBroadcast(queryBroadcastKey(q), bytes)).toEqual({ ok: true, value: q });
      }),
    );
  });

  it('never throws on arbitrary bytes, under the marker or a query key', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (body) => {
        decodeQueryMessage(new Uint8Array([QUERY_MESSAGE_MARKER, ...body]));
        decodeQueryBroadcast('swim:query:1:1', body);
      }),
    );
  });
});
