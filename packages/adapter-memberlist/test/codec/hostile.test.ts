// Hostile and odd input: every refusal is counted and nothing throws; what memberlist (or Serf)
// would choke on never reaches the core.
import { describe, expect, it } from 'vitest';
import { lzwCompress } from '../../src/codec/lzw.js';
import { MAX_MESSAGES_PER_PACKET, MAX_NESTING, memberlistCodec } from '../../src/index.js';
import { alive, bytes, compound, compressed, concat, fixmap, ping, SERF_VSN_BYTES, str, struct, uint, withCrc } from './wire-bytes.js';

const PING_B = { type: 'ping', seq: 1, target: 'b', sourceName: '', sourceAddress: '' };

describe('LZW bombs', () => {
  it('a packet that would inflate past the cap is refused, counted, and costs at most the cap', () => {
    const codec = memberlistCodec({ maxInflatedPacketBytes: 64 * 1024 });
    // 400 kB of zeros LZW-compress to about a kilobyte: one datagram.
    const bomb = concat([9], struct([['Algo', uint(0)], ['Buf', str(lzwCompress(new Uint8Array(400_000)), 'str16')]]));
    expect(bomb.length).toBeLessThan(1400);
    const result = codec.decodePacket(bomb);
    expect(result).toMatchObject({ ok: false, error: { code: 'too-many' } });
    expect(codec.counters.inflateRefused).toBe(1);
    expect(codec.counters.compressedIn).toBe(0);
  });

  it('the inflate cap is shared by every compress message of a packet', () => {
    const codec = memberlistCodec({ maxInflatedPacketBytes: 64 * 1024 });
    // Each part inflates to 40 kB of user messages: the first fits the 64 KiB cap, the others do not.
    const big = compressed(concat([8], new Uint8Array(40_000)));
    const result = codec.decodePacket(compound([big, big, big]));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.messages).toHaveLength(1);
    expect(codec.counters.inflateRefused).toBe(2);
  });

  it('a stream may inflate more than a packet, up to its own cap', () => {
    const codec = memberlistCodec({ maxInflatedStreamBytes: 1024 * 1024 });
    const user = concat([8], struct([['UserMsgLen', uint(100_000)]]), new Uint8Array(100_000));
    const result = codec.decodeStream(compressed(user), {});
    expect(result).toMatchObject({ ok: true, messages: [{ type: 'user' }] });
    const tooBig = concat([8], struct([['UserMsgLen', uint(2_000_000)]]), new Uint8Array(2_000_000));
    expect(codec.decodeStream(compressed(tooBig), {})).toMatchObject({ ok: false, error: { code: 'too-many' } });
    expect(codec.counters.inflateRefused).toBe(1);
  });

  it('LZW without an end code, with a code past the table, or an unknown algorithm is refused', () => {
    const codec = memberlistCodec();
    const buf = lzwCompress(ping('b'));
    expect(codec.decodePacket(concat([9], struct([['Algo', uint(0)], ['Buf', str(buf.subarray(0, buf.length - 2))]])))).toMatchObject({ ok: false });
    // 9-bit code 300 right after the first literal: not yet defined.
    expect(codec.decodePacket(concat([9], struct([['Algo', uint(0)], ['Buf', str(bytes('00 58 02'))]])))).toMatchObject({ ok: false });
    expect(codec.decodePacket(concat([9], struct([['Algo', uint(1)], ['Buf', str(buf)]])))).toMatchObject({ ok: false, error: { code: 'invalid-field' } });
    expect(codec.counters.inflateRefused).toBe(3);
  });
});

describe('nesting', () => {
  const nest = (levels: number): Uint8Array => {
    let message = ping('b');
    for (let i = 0; i < levels; i++) message = i % 2 === 0 ? compressed(message) : compound([message]);
    return message;
  };

  it(`compound and compress nest up to ${MAX_NESTING} levels; deeper is skipped and counted`, () => {
    const codec = memberlistCodec();
    expect(codec.decodePacket(withCrc(nest(MAX_NESTING)))).toEqual({ ok: true, messages: [PING_B] });
    expect(codec.decodePacket(nest(MAX_NESTING + 1))).toMatchObject({ ok: false, error: { code: 'malformed' } });
    expect(codec.counters.tooDeep).toBe(1);
  });

  it('a thousand levels cost nothing more', () => {
    const codec = memberlistCodec();
    let message = ping('b');
    for (let i = 0; i < 1000; i++) message = compound([message]);
    expect(codec.decodePacket(message).ok).toBe(false);
    expect(codec.counters.tooDeep).toBe(1);
  });

  it(`more than ${MAX_MESSAGES_PER_PACKET} messages in one packet drop it`, () => {
    const user = Uint8Array.of(8);
    const inner = compound(Array.from({ length: 255 }, () => user));
    const codec = memberlistCodec();
    expect(codec.decodePacket(compound([inner, inner, inner, inner]))).toMatchObject({ ok: true });
    expect(codec.decodePacket(compound([inner, inner, inner, inner, inner]))).toMatchObject({ ok: false, error: { code: 'too-many' } });
  });
});

describe('compounds that lie', () => {
  it('a count beyond the length table fails the compound', () => {
    const codec = memberlistCodec();
    expect(codec.decodePacket(concat([7, 255, 0, 3], ping('b')))).toMatchObject({ ok: false, error: { code: 'malformed' } });
    expect(codec.counters.malformedParts).toBe(1);
  });

  it('lengths past the end: the complete leading parts are kept, the rest counted as truncated', () => {
    const codec = memberlistCodec();
    const part = ping('b');
    const packet = compound([part, part], [part.length, part.length, 500, 500]);
    expect(codec.decodePacket(packet)).toEqual({ ok: true, messages: [PING_B, PING_B] });
    expect(codec.counters.truncatedParts).toBe(2);
  });

  it('an unknown part, an empty part and a nested CRC are skipped; the others kept (memberlist handleCompound)', () => {
    const codec = memberlistCodec();
    const packet = compound([ping('b'), Uint8Array.of(99, 1, 2), new Uint8Array(0), withCrc(ping('b')), Uint8Array.of(6, 0x80), ping('b')]);
    expect(codec.decodePacket(packet)).toEqual({ ok: true, messages: [PING_B, PING_B] });
    expect(codec.counters.unknownParts).toBe(3);
    expect(codec.counters.malformedParts).toBe(1);
  });

  it('a compound of zero parts holds no message', () => {
    expect(memberlistCodec().decodePacket(Uint8Array.of(7, 0))).toMatchObject({ ok: false, error: { code: 'empty' } });
  });
});

describe('versions: an alive memberlist would ignore (or Serf crash on) never reaches the core', () => {
  const cases: [string, Uint8Array | undefined][] = [
    ['a 3-byte Vsn (Serf 0.9 panics on it)', bytes('010502')],
    ['no Vsn', undefined],
    ['pmin 0', bytes('000502020505')],
    ['pmax 0', bytes('010002020505')],
    ['pmin > pmax', bytes('030202020505')],
    ['7 bytes', bytes('01050202050500')],
  ];

  it.each(cases)('%s: refused alone, skipped in a compound, counted', (_name, vsn) => {
    const codec = memberlistCodec();
    expect(codec.decodePacket(withCrc(alive('x', vsn)))).toMatchObject({ ok: false, error: { code: 'version' } });
    expect(codec.decodePacket(compound([alive('x', vsn), ping('b')]))).toEqual({ ok: true, messages: [PING_B] });
    expect(codec.counters.versionRefused).toBe(2);
    // Never learnt: when we relay x, it carries our own Vsn.
    const relayed = codec.encodeMessage({ type: 'alive', incarnation: 1, node: 'x', address: '127.0.0.1:7946', meta: new Uint8Array(0) });
    expect(Buffer.from(relayed).includes(Buffer.from('a3' + '56736e' + 'a6' + '010502020505', 'hex'))).toBe(true);
  });

  it("a peer's valid Vsn is learnt and written back when we relay its alive or entry", () => {
    const codec = memberlistCodec();
    const theirs = bytes('010502020504');
    expect(codec.decodePacket(alive('x', theirs))).toMatchObject({ ok: true });
    const relayed = codec.encodeMessage({ type: 'alive', incarnation: 2, node: 'x', address: '127.0.0.1:7946', meta: new Uint8Array(0) });
    expect(Buffer.from(relayed).subarray(-6)).toEqual(Buffer.from(theirs));
    const stream = codec.encodeStream({
      type: 'push-pull',
      join: false,
      members: [{ name: 'x', address: '127.0.0.1:7946', meta: new Uint8Array(0), incarnation: 2, state: 'alive' }],
      userState: new Uint8Array(0),
    });
    expect(Buffer.from(stream).subarray(-6)).toEqual(Buffer.from(theirs));
  });

  it('the Vsn cache is bounded: the oldest name is forgotten', () => {
    const codec = memberlistCodec({ maxPeerVersions: 2 });
    for (const node of ['x', 'y', 'z']) codec.decodePacket(alive(node, bytes('010502020504')));
    const vsnOf = (node: string) =>
      Buffer.from(codec.encodeMessage({ type: 'alive', incarnation: 1, node, address: '127.0.0.1:1', meta: new Uint8Array(0) }).subarray(-6)).toString('hex');
    expect([vsnOf('x'), vsnOf('y'), vsnOf('z')]).toEqual(['010502020505', '010502020504', '010502020504']);
  });
});

describe('push-pull: memberlist verifyProtocol', () => {
  const entry = (name: string, state: number, vsn: Uint8Array | undefined): Uint8Array => {
    const entries: [string, Uint8Array][] = [
      ['Addr', str(Uint8Array.of(127, 0, 0, 1))],
      ['Incarnation', uint(1)],
      ['Meta', Uint8Array.of(0xc0)],
      ['Name', str(name)],
      ['Port', uint(7946)],
      ['State', uint(state)],
    ];
    if (vsn !== undefined) entries.push(['Vsn', str(vsn)]);
    return struct(entries);
  };
  const pushPull = (...entries: Uint8Array[]): Uint8Array =>
    concat([6], struct([['Join', Uint8Array.of(0xc2)], ['Nodes', uint(entries.length)], ['UserStateLen', uint(0)]]), ...entries);

  it('compatible entries pass; an alive entry with pmin 0 passes the check but is dropped (memberlist aliveNode)', () => {
    const codec = memberlistCodec();
    const result = codec.decodeStream(pushPull(entry('s1', 0, SERF_VSN_BYTES), entry('s2', 2, SERF_VSN_BYTES), entry('bad', 0, bytes('000502020505'))), {});
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.messages[0]).toMatchObject({ members: [{ name: 's1', state: 'alive' }, { name: 's2', state: 'dead' }] });
    expect(codec.counters.versionRefused).toBe(1);
  });

  it.each([
    ['delegate max 4 (below our dcur 5)', [entry('s2', 0, bytes('010502020404'))]],
    ['plain memberlist delegate versions 0/0/0', [entry('m', 0, bytes('010502000000'))]],
    ['no Vsn on an alive entry', [entry('m', 0, undefined)]],
    ['no Vsn on a dead entry (checked as version 0)', [entry('m', 2, undefined)]],
    ['a 3-byte Vsn (memberlist 0.2 panics on it)', [entry('m', 2, bytes('010502'))]],
    ['pmin 3 (above our pcur 2)', [entry('m', 0, bytes('030503020505'))]],
  ])('%s: the whole push-pull is refused and counted', (_name, entries) => {
    const codec = memberlistCodec();
    expect(codec.decodeStream(pushPull(...entries), {})).toMatchObject({ ok: false, error: { code: 'invalid-field' } });
    expect(codec.counters.pushPullsIncompatible).toBe(1);
  });

  it('maxPushPullEntries is honoured from the header, before any entry is read', () => {
    const codec = memberlistCodec();
    const header = concat([6], struct([['Join', Uint8Array.of(0xc2)], ['Nodes', uint(3)], ['UserStateLen', uint(0)]]), new Uint8Array(100));
    expect(codec.decodeStream(header, { maxPushPullEntries: 2 })).toMatchObject({ ok: false, error: { code: 'too-many' } });
  });
});

describe('labels, CRC, huge headers, truncation', () => {
  it('a label header (memberlist >= 0.3) is refused on packets and streams, and counted', () => {
    const codec = memberlistCodec();
    const labelled = concat([244, 4], new Uint8Array(Buffer.from('prod')), ping('b'));
    expect(codec.decodePacket(labelled)).toMatchObject({ ok: false, error: { code: 'unknown-type' } });
    expect(codec.decodeStream(labelled, {})).toMatchObject({ ok: false, error: { code: 'unknown-type' } });
    expect(codec.counters.labelled).toBe(2);
  });

  it('a CRC mismatch drops the packet; a CRC header of fewer than 5 bytes is just an unknown type', () => {
    const codec = memberlistCodec();
    const good = withCrc(ping('b'));
    const bad = good.slice();
    bad[2]! ^= 1;
    expect(codec.decodePacket(bad)).toMatchObject({ ok: false, error: { code: 'malformed' } });
    expect(codec.counters.crcFailures).toBe(1);
    expect(codec.decodePacket(Uint8Array.of(12, 0, 0))).toMatchObject({ ok: false, error: { code: 'unknown-type' } });
  });

  it('huge map, array and string headers fail at once, on the bytes left', () => {
    const codec = memberlistCodec();
    const huge = [
      concat([0, 0xdf, 0xff, 0xff, 0xff, 0xff], str('Node')),
      concat([0, 0x81], str('Node'), [0xdb, 0xff, 0xff, 0xff, 0xff], [0x61]),
      concat([0, 0x81], str('Extra'), [0xdd, 0xff, 0xff, 0xff, 0xff], [0x01]),
      concat([0, 0x81], str('Extra'), [0xdf, 0x7f, 0xff, 0xff, 0xff], [0x01]),
      concat([0, 0x81], str('Extra'), [0xc9, 0xff, 0xff, 0xff, 0xff, 0x01]),
    ];
    for (const packet of huge) expect(codec.decodePacket(packet)).toMatchObject({ ok: false, error: { code: 'malformed' } });
    const pushPull = concat([6], struct([['Join', Uint8Array.of(0xc3)], ['Nodes', uint(0x7fff_ffff)], ['UserStateLen', uint(0)]]));
    expect(codec.decodeStream(pushPull, {})).toMatchObject({ ok: false, error: { code: 'malformed' } });
    const user = concat([8], struct([['UserMsgLen', uint(0xffff_ffff)]]), [1, 2, 3]);
    expect(codec.decodeStream(user, {})).toMatchObject({ ok: false, error: { code: 'malformed' } });
  });

  it('a truncated stream never decodes, at any cut', () => {
    const codec = memberlistCodec({ compress: true });
    const stream = codec.encodeStream({
      type: 'push-pull',
      join: true,
      members: [{ name: 'swim', address: '127.0.0.1:47702', meta: bytes('ff80'), incarnation: 1, state: 'alive' }],
      userState: new Uint8Array(40).fill(7),
    });
    const plain = memberlistCodec().encodeStream({ type: 'user', from: 'a', payload: new Uint8Array(30).fill(1) });
    for (const whole of [stream, plain]) {
      for (let cut = 0; cut < whole.length; cut++) expect(codec.decodeStream(whole.subarray(0, cut), {}).ok, `cut at ${cut}`).toBe(false);
      expect(codec.decodeStream(whole, {}).ok).toBe(true);
      expect(codec.decodeStream(concat(whole, [0]), {}).ok, 'a byte too many').toBe(false);
    }
  });

  it('a stream message of a type streams do not carry is refused (memberlist handleConn)', () => {
    const codec = memberlistCodec();
    for (const type of [1, 3, 4, 5, 7, 10, 11, 12, 99]) expect(codec.decodeStream(Uint8Array.of(type, 0x80), {})).toMatchObject({ ok: false, error: { code: 'unknown-type' } });
    expect(codec.decodeStream(compressed(compressed(ping('b'))), {})).toMatchObject({ ok: false, error: { code: 'unknown-type' } });
    expect(codec.decodeStream(compressed(new Uint8Array(0)), {})).toMatchObject({ ok: false, error: { code: 'empty' } });
  });

  it('names that are not UTF-8, too long, or empty where a member is named: the part is skipped', () => {
    const codec = memberlistCodec();
    const suspect = (node: Uint8Array, from = str('a')) => concat([3], struct([['From', from], ['Incarnation', uint(1)], ['Node', node]]));
    expect(codec.decodePacket(suspect(str(Uint8Array.of(0xff, 0xfe))))).toMatchObject({ ok: false, error: { code: 'invalid-field' } });
    expect(codec.decodePacket(suspect(str('n'.repeat(129), 'str8')))).toMatchObject({ ok: false, error: { code: 'invalid-field' } });
    expect(codec.decodePacket(suspect(str('')))).toMatchObject({ ok: false, error: { code: 'invalid-field' } });
    expect(codec.decodePacket(suspect(str('c'), str('')))).toMatchObject({ ok: false, error: { code: 'invalid-field' } });
    expect(codec.counters.malformedParts).toBe(4);
  });

  it('addresses that are not 4 or 16 bytes, or come without a port, are refused', () => {
    const codec = memberlistCodec();
    expect(codec.decodePacket(alive('x', SERF_VSN_BYTES, [1, 2, 3]))).toMatchObject({ ok: false, error: { code: 'invalid-field' } });
    expect(codec.decodePacket(alive('x', SERF_VSN_BYTES, [1, 2, 3, 4], 0))).toMatchObject({ ok: false, error: { code: 'invalid-field' } });
  });
});

describe("what Go's decoder accepts, we accept", () => {
  it('str8 and bin for bytes and strings, keys in any order, unknown keys with nested values, signed and wide integers', () => {
    const codec = memberlistCodec();
    const packet = concat(
      [0],
      fixmap(6),
      str('SourcePort'),
      [0xd1, 0x1f, 0x0a], // int16 7946
      str('Extra'),
      concat([0x92, 0x81], str('k'), [0xc0, 0xcb], new Uint8Array(8)),
      str('SourceAddr'),
      str(Uint8Array.of(0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 'bin8'),
      str('SeqNo'),
      [0xd3, 0, 0, 0, 0, 0, 0, 0, 9], // int64 9
      str('Node'),
      str('b', 'str8'),
      str('SourceNode'),
      str('a', 'str16'),
    );
    expect(codec.decodePacket(packet)).toEqual({ ok: true, messages: [{ type: 'ping', seq: 9, target: 'b', sourceName: 'a', sourceAddress: '[2001:db8::1]:7946' }] });
  });

  it('nil Payload and Meta are empty; a missing key is its zero value', () => {
    const codec = memberlistCodec();
    const ack = concat([2], struct([['Payload', Uint8Array.of(0xc0)], ['SeqNo', uint(34)]]));
    expect(codec.decodePacket(ack)).toEqual({ ok: true, messages: [{ type: 'ack', seq: 34, payload: new Uint8Array(0) }] });
    expect(codec.decodePacket(concat([11], fixmap(0)))).toEqual({ ok: true, messages: [{ type: 'nack', seq: 0 }] });
  });

  it('an IPv4-mapped IPv6 address reads as IPv4, as Node shows it', () => {
    const mapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1];
    expect(memberlistCodec().decodePacket(alive('x', SERF_VSN_BYTES, mapped))).toMatchObject({ ok: true, messages: [{ address: '10.0.0.1:7946' }] });
  });

  it('negative numbers where Go has unsigned types are refused', () => {
    const ack = concat([2], struct([['SeqNo', Uint8Array.of(0xff)]]));
    expect(memberlistCodec().decodePacket(ack)).toMatchObject({ ok: false, error: { code: 'invalid-field' } });
  });
});
