// Serf's ping payload (serf ping_delegate.go): [PingVersion 1] + msgpack coordinate.Coordinate in
// the gossip dialect. Golden bytes: the 150-byte ack Serf 0.9.4 sent a Node ping (captured live).
import fc from 'fast-check';
import { createRng, DEFAULT_VIVALDI_CONFIG, newCoordinate, VivaldiClient, type Coordinate } from '@swim/core';
import { Simulation, uniformLatency } from '@swim/transport-memory';
import { describe, expect, it } from 'vitest';
import { decodeSerfAckPayload, encodeSerfAckPayload, memberlistCodec, SERF_PING_VERSION } from '../../src/index.js';

const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));
const hex = (data: Uint8Array): string => Buffer.from(data).toString('hex');
const f64 = (hex16: string): number => Buffer.from(hex16, 'hex').readDoubleBE(0);

// The payload of the captured ack: version byte, then the map {Adjustment, Error, Height, Vec}.
const PAYLOAD =
  '01 84 aa41646a7573746d656e74 cbbf538d0474ac645e a54572726f72 cb3ff8000000000000 a6486569676874 cb3ee4f8b588e368f1' +
  ' a3566563 98 cb3f4cd402c91fb80f cb3f4db9aadf0e127a cbbf277b78e951912e cb3f57608af088f705 cb3f524faabdab390b cb3f50355f763722da cb3f3eb50b17fce054 cb3f56df4a8ca8846e';
const ACK = `0282a75061796c6f6164da0082${PAYLOAD}a55365714e6f07`;
const CAPTURED: Coordinate = {
  adjustment: f64('bf538d0474ac645e'),
  error: 1.5,
  height: 1e-5,
  vec: ['3f4cd402c91fb80f', '3f4db9aadf0e127a', 'bf277b78e951912e', '3f57608af088f705', '3f524faabdab390b', '3f50355f763722da', '3f3eb50b17fce054', '3f56df4a8ca8846e'].map(f64),
};

describe("Serf's coordinate in ack payloads (serf-protocol §5.2)", () => {
  it('writes the captured coordinate as Serf did, byte for byte, and the ack around it', () => {
    expect(CAPTURED.adjustment).toBe(-0.001193289138148999);
    expect(hex(encodeSerfAckPayload({ coordinate: CAPTURED }))).toBe(PAYLOAD.replace(/\s+/g, ''));
    expect(encodeSerfAckPayload({ coordinate: CAPTURED })).toHaveLength(130);
    const codec = memberlistCodec({ crc: false });
    expect(hex(codec.encodePacket([{ type: 'ack', seq: 7, payload: encodeSerfAckPayload({ coordinate: CAPTURED }) }]))).toBe(ACK.replace(/\s+/g, ''));
  });

  it('reads the captured payload, from the captured ack', () => {
    const decoded = memberlistCodec().decodePacket(bytes(ACK));
    if (!decoded.ok) throw new Error(decoded.error.detail);
    const ack = decoded.messages[0];
    if (ack?.type !== 'ack') throw new Error('no ack');
    expect(decodeSerfAckPayload(ack.payload)).toEqual({ coordinate: CAPTURED });
    // The Vivaldi client takes it, as Serf's would.
    expect(new VivaldiClient({ rng: createRng(1) }).update('a', CAPTURED, 0.001).kind).toBe('updated');
  });

  it('a fresh coordinate: Vec all 0.0 written as float64, Error 1.5, Height 1e-5', () => {
    const payload = encodeSerfAckPayload({ coordinate: newCoordinate(DEFAULT_VIVALDI_CONFIG) });
    expect(hex(payload)).toContain(`a3566563 98 ${'cb0000000000000000'.repeat(8)}`.replace(/\s+/g, ''));
    expect(hex(payload)).toContain('a6486569676874cb3ee4f8b588e368f1');
  });

  it('no coordinate, no payload (memberlist carries no protocol range)', () => {
    expect(encodeSerfAckPayload({})).toHaveLength(0);
    expect(encodeSerfAckPayload({ protocol: { min: 1, max: 2 } })).toHaveLength(0);
    expect(decodeSerfAckPayload(new Uint8Array(0))).toEqual({});
  });

  it('reads any coordinate it writes, as go-msgpack would', () => {
    const number = fc.oneof(fc.double(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY));
    fc.assert(
      fc.property(fc.array(number, { maxLength: 64 }), number, number, number, (vec, error, adjustment, height) => {
        const coordinate = { vec, error, adjustment, height };
        expect(decodeSerfAckPayload(encodeSerfAckPayload({ coordinate }))).toEqual({ coordinate });
      }),
    );
  });

  it('is tolerant as go-msgpack: keys in any order, unknown keys, float32 and integers, str8 keys, a missing key left 0', () => {
    // {Vec: [0.5 (float32), 1 (int)], Extra: "x", Height: 0 (int), d9-keyed Error 0.25}; no Adjustment.
    const payload = bytes('01 84 a3566563 92 ca3f000000 01 a54578747261 a178 a6486569676874 00 d905 4572726f72 cb3fd0000000000000');
    expect(decodeSerfAckPayload(payload)).toEqual({ coordinate: { vec: [0.5, 1], error: 0.25, adjustment: 0, height: 0 } });
  });

  it.each([
    ['version 2 (Serf: "Unsupported ping version")', '02 80'],
    ['version 0', '00'],
    ['truncated msgpack (Serf: "Failed to decode coordinate from ping")', PAYLOAD.replace(/\s+/g, '').slice(0, 100)],
    ['not a map', '01 a3616263'],
    ['a string for a float', '01 81 a5 4572726f72 a3616263'],
    ['more than 64 dimensions', `01 81 a3566563 dc0041 ${'00'.repeat(65)}`],
    ['a lying array length', '01 81 a3566563 dcffff 00'],
  ])('%s: unreadable, never thrown', (_name, payload) => {
    expect(decodeSerfAckPayload(bytes(payload))).toEqual({ unreadableCoordinate: true });
  });

  it('values the Vivaldi client refuses are read as they are (NaN, another dimensionality: Serf IsValid, IsCompatibleWith)', () => {
    const nan = encodeSerfAckPayload({ coordinate: { ...CAPTURED, vec: [Number.NaN, ...CAPTURED.vec.slice(1)] } });
    const read = decodeSerfAckPayload(nan).coordinate!;
    expect(Number.isNaN(read.vec[0])).toBe(true);
    const client = new VivaldiClient({ rng: createRng(1) });
    expect(client.update('a', read, 0.001)).toEqual({ kind: 'rejected', reason: 'invalid-coordinate' });
    const four = decodeSerfAckPayload(encodeSerfAckPayload({ coordinate: { ...CAPTURED, vec: CAPTURED.vec.slice(0, 4) } })).coordinate!;
    expect(client.update('a', four, 0.001)).toEqual({ kind: 'rejected', reason: 'incompatible-dimensions' });
    // A missing Vec has no dimensions.
    const noVec = decodeSerfAckPayload(bytes('01 81 a5 4572726f72 cb3fd0000000000000')).coordinate!;
    expect(client.update('a', noVec, 0.001)).toEqual({ kind: 'rejected', reason: 'incompatible-dimensions' });
  });

  it('never throws, whatever follows the version byte', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (rest) => {
        const decoded = decodeSerfAckPayload(Uint8Array.of(SERF_PING_VERSION, ...rest));
        expect(decoded.coordinate !== undefined || decoded.unreadableCoordinate === true).toBe(true);
      }),
    );
  });
});

describe('coordinates on the memberlist wire (simulator)', () => {
  it('members exchange Serf-format coordinates in their acks and estimate the simulated RTT (seed 3)', () => {
    const seed = 3;
    // One-way 4-6 ms: RTTs of 8-12 ms, 10 on average.
    const sim = new Simulation({ seed, addresses: 'ip', latency: uniformLatency(4, 6), codec: () => memberlistCodec() });
    sim.startCluster(5);
    sim.runFor(60_000);
    for (const member of sim.members()) {
      expect(member.counters.coordinatesRejected, `${member.name} (seed ${seed})`).toBe(0);
      expect(member.counters.coordinateUpdates, `${member.name} (seed ${seed})`).toBeGreaterThan(30);
      for (const other of sim.members()) {
        if (other === member) continue;
        const estimate = member.estimateRtt(other.name);
        expect(estimate, `${member.name} -> ${other.name} (seed ${seed})`).toBeGreaterThan(8);
        expect(estimate, `${member.name} -> ${other.name} (seed ${seed})`).toBeLessThan(12);
      }
    }
  });
});
