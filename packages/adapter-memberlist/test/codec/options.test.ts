import { describe, expect, it } from 'vitest';
import { CODEC_DEFAULTS, memberlistCodec, type MemberlistCodecOptions } from '../../src/index.js';
import { alive, bytes } from './wire-bytes.js';

describe('memberlistCodec options', () => {
  it("defaults: Serf 0.9's Vsn, CRC on, compression off", () => {
    const codec = memberlistCodec();
    expect(codec.options).toEqual(CODEC_DEFAULTS);
    expect(codec.options.vsn).toEqual([1, 5, 2, 2, 5, 5]);
    expect(codec.name).toBe('memberlist');
    expect(codec.maxPartsPerPacket).toBe(255);
    // The largest control packet: ping + suspect at 128-byte names and an IPv6 source, or an alive with 512 bytes of meta.
    expect(codec.minPacketBytes).toBe(721);
    expect(memberlistCodec({ crc: false }).minPacketBytes).toBe(716);
  });

  it('invalid options fail at construction, listing every problem', () => {
    const bad = { vsn: [0, 5, 7, 2, 4, 5], crc: 'yes', maxPeerVersions: -1, maxInflatedPacketBytes: 10, colour: 'red' } as unknown as MemberlistCodecOptions;
    let message = '';
    try {
      memberlistCodec(bad);
    } catch (error) {
      expect(error).toBeInstanceOf(RangeError);
      message = (error as Error).message;
    }
    for (const problem of ['unknown option "colour"', 'protocol range 0..5 is wrong', 'pcur 7', 'dcur 5 is outside dmin..dmax 2..4', 'crc must be a boolean', 'maxPeerVersions', 'maxInflatedPacketBytes']) {
      expect(message).toContain(problem);
    }
    expect(() => memberlistCodec({ vsn: [1, 5, 2] } as unknown as MemberlistCodecOptions)).toThrow(/six integers/);
    expect(() => memberlistCodec(null as unknown as MemberlistCodecOptions)).toThrow(TypeError);
  });

  it('our own Vsn goes into our alives, and push-pulls are checked against it', () => {
    const codec = memberlistCodec({ vsn: [1, 5, 3, 2, 5, 4] });
    const encoded = codec.encodeMessage({ type: 'alive', incarnation: 1, node: 'me', address: '127.0.0.1:1', meta: new Uint8Array(0) });
    expect(Buffer.from(encoded.subarray(-6)).toString('hex')).toBe('010503020504');
  });

  it('each codec has its own counters and Vsn cache', () => {
    const a = memberlistCodec();
    const b = memberlistCodec();
    a.decodePacket(alive('x', bytes('010502020504')));
    a.decodePacket(alive('y', bytes('010502')));
    expect(a.counters.versionRefused).toBe(1);
    expect(b.counters.versionRefused).toBe(0);
    const relay = (codec: typeof a) =>
      Buffer.from(codec.encodeMessage({ type: 'alive', incarnation: 1, node: 'x', address: '127.0.0.1:1', meta: new Uint8Array(0) }).subarray(-6)).toString('hex');
    expect([relay(a), relay(b)]).toEqual(['010502020504', '010502020505']);
  });
});
