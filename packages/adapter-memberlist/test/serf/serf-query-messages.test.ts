import fc from 'fast-check';
import type { QueryRequest } from '@swim/core';
import { describe, expect, it } from 'vitest';
import {
  decodeSerfFilter,
  decodeSerfQuery,
  decodeSerfQueryResponse,
  decodeSerfRelay,
  encodeSerfFilter,
  encodeSerfQuery,
  encodeSerfQueryResponse,
  encodeSerfRelay,
} from '../../src/serf/serf-query-messages.js';
import { serfQueryWire } from '../../src/serf/serf-query-wire.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const text = (value: string) => new TextEncoder().encode(value);

// serf-protocol §3.12 A: `serf query greet ping-payload` from agent "a" (127.0.0.1:23090), after memberlist's [8].
const capturedQuery =
  '048ba441646472a47f000001a746696c74657273c0a5466c61677301a24944ce6a0158dfa54c54696d6501a44e616d65a56772656574a75061796c6f6164ac70696e672d7061796c6f6164a4506f7274cd5a32ab52656c6179466163746f7200aa536f757263654e6f6465a161a754696d656f7574cebebc2000';
// §3.12 B and C: b's ack and its response ("hello-from-b\n").
const capturedAck = '0585a5466c61677301a446726f6da162a24944ce6a0158dfa54c54696d6501a75061796c6f6164c0';
const capturedResponse = '0585a5466c61677300a446726f6da162a24944ce6a0158dfa54c54696d6501a75061796c6f6164ad68656c6c6f2d66726f6d2d620a';
// §3.12 D: b's ack relayed through c, to a at 127.0.0.1:23090.
const capturedRelay =
  '0982a8446573744164647283a24950a47f000001a4506f7274cd5a32a45a6f6e65a0a8446573744e616d65a1610585a5466c61677301a446726f6da162a24944ce5ac0f136a54c54696d6502a75061796c6f6164c0';

const greet: QueryRequest = {
  name: 'greet',
  payload: text('ping-payload'),
  filters: [],
  requestAck: true,
  noBroadcast: false,
  id: 1778473183,
  ltime: 1,
  timeoutMs: 3200,
  relayFactor: 0,
  sourceName: 'a',
  sourceAddress: '127.0.0.1:23090',
};

describe("Serf's query messages", () => {
  it('encodes the captured query byte for byte, and reads it back', () => {
    expect(hex(encodeSerfQuery(greet))).toBe(capturedQuery);
    expect(decodeSerfQuery(bytes(capturedQuery))).toEqual(greet);
  });

  it("encodes the captured ack and response byte for byte (an ack's payload is nil)", () => {
    const reply = { ltime: 1, id: 1778473183, from: 'b' };
    expect(hex(encodeSerfQueryResponse({ ...reply, ack: true, payload: new Uint8Array() }))).toBe(capturedAck);
    expect(hex(encodeSerfQueryResponse({ ...reply, ack: false, payload: text('hello-from-b\n') }))).toBe(capturedResponse);
    expect(decodeSerfQueryResponse(bytes(capturedResponse))).toEqual({ ...reply, ack: false, payload: text('hello-from-b\n') });
    expect(decodeSerfQueryResponse(bytes(capturedAck))).toEqual({ ...reply, ack: true, payload: new Uint8Array() });
  });

  it('encodes the captured filters (-node=b -node=c -tag role=web) and relay factor', () => {
    const filtered = { ...greet, filters: [{ kind: 'nodes', names: ['b', 'c'] }, { kind: 'tag', tag: 'role', expr: 'web' }] as const, relayFactor: 1, timeoutMs: 1500 };
    const encoded = hex(encodeSerfQuery(filtered));
    expect(encoded).toContain('a746696c7465727392a60092a162a163b40182a445787072a3776562a3546167a4726f6c65');
    expect(encoded).toContain('ab52656c6179466163746f7201');
    expect(encoded).toContain('a754696d656f7574ce59682f00');
    expect(decodeSerfQuery(encodeSerfQuery(filtered))).toEqual(filtered);
  });

  it('encodes the captured relay byte for byte and reads its header and inner response', () => {
    const inner = encodeSerfQueryResponse({ ltime: 2, id: 0x5ac0f136, from: 'b', ack: true, payload: new Uint8Array() });
    expect(hex(encodeSerfRelay(inner, { name: 'a', address: '127.0.0.1:23090' }))).toBe(capturedRelay);
    const relay = decodeSerfRelay(bytes(capturedRelay));
    expect(relay.destination).toEqual({ name: 'a', address: '127.0.0.1:23090' });
    expect(hex(relay.inner)).toBe(hex(inner));
  });

  it('carries IPv6 addresses as 16 raw bytes', () => {
    const v6 = { ...greet, sourceAddress: '[::1]:7946' };
    const encoded = encodeSerfQuery(v6);
    expect(hex(encoded)).toContain('a441646472b0' + '00'.repeat(15) + '01');
    expect(decodeSerfQuery(encoded).sourceAddress).toBe('[::1]:7946');
    const relay = encodeSerfRelay(encodeSerfQueryResponse({ ltime: 1, id: 1, from: 'x', ack: true, payload: new Uint8Array() }), { name: 'n', address: '[fe80::1]:1' });
    expect(decodeSerfRelay(relay).destination.address).toBe('[fe80::1]:1');
  });

  it('refuses what Serf cannot carry', () => {
    expect(() => encodeSerfQuery({ ...greet, sourceAddress: 'host.example:1' })).toThrow(RangeError);
    expect(() => encodeSerfQuery({ ...greet, relayFactor: 256 })).toThrow(RangeError);
    expect(() => encodeSerfFilter({ kind: 'unknown', type: 7 })).toThrow(RangeError);
  });

  it('filters: undecodable or unknown ones match nobody (kind unknown)', () => {
    expect(decodeSerfFilter(bytes('0092a162a163'))).toEqual({ kind: 'nodes', names: ['b', 'c'] });
    expect(decodeSerfFilter(bytes('0182a3546167a4726f6c65a445787072a3776562'))).toEqual({ kind: 'tag', tag: 'role', expr: 'web' });
    expect(decodeSerfFilter(bytes('0281'))).toEqual({ kind: 'unknown', type: 2 });
    expect(decodeSerfFilter(bytes('0095a162'))).toEqual({ kind: 'unknown', type: 0 });
    expect(decodeSerfFilter(new Uint8Array())).toEqual({ kind: 'unknown', type: -1 });
  });
});

describe('serfQueryWire.read', () => {
  it('tells queries, responses and relays apart; other Serf messages and keyed broadcasts are not query traffic', () => {
    expect(serfQueryWire.read(bytes(capturedQuery), undefined)).toMatchObject({ kind: 'query', query: greet });
    expect(serfQueryWire.read(bytes(capturedAck), undefined)).toMatchObject({ kind: 'response', response: { from: 'b', ack: true } });
    expect(serfQueryWire.read(bytes(capturedRelay), undefined)).toMatchObject({ kind: 'relay', destination: { name: 'a', address: '127.0.0.1:23090' } });
    expect(serfQueryWire.read(bytes('0081a54c54696d6501'), undefined)).toBeUndefined();
    // memberlist carries no broadcast key: the bytes alone decide.
    expect(serfQueryWire.read(bytes(capturedQuery), 'some-key')).toMatchObject({ kind: 'query' });
    expect(serfQueryWire.tagsOf!(new Uint8Array())).toEqual({ role: '' });
    expect(serfQueryWire.coreForwardsQueries).toBe(false);
    expect(serfQueryWire.queryKey(greet)).not.toBe(serfQueryWire.queryKey({ ...greet, id: greet.id + 1 }));
  });

  it('malformed, huge or forged traffic is malformed, never thrown', () => {
    // A query whose address is no IP.
    const badAddr = hex(encodeSerfQuery(greet)).replace('a441646472a47f000001', 'a441646472a37f0000');
    expect(serfQueryWire.read(bytes(badAddr), undefined)).toMatchObject({ kind: 'malformed' });
    // A truncated query.
    expect(serfQueryWire.read(bytes(capturedQuery.slice(0, 60)), undefined)).toMatchObject({ kind: 'malformed' });
    // A huge one: over a UDP datagram.
    const huge = encodeSerfQuery({ ...greet, payload: new Uint8Array(70_000) });
    expect(serfQueryWire.read(huge, undefined)).toMatchObject({ kind: 'malformed' });
    // A relay whose inner message is not a query response (a forged user event to bounce).
    const forged = new Uint8Array([...bytes(capturedRelay).subarray(0, 45), 0x03, 0x80]);
    expect(serfQueryWire.read(forged, undefined)).toMatchObject({ kind: 'malformed' });
    // A relay to port 0.
    expect(serfQueryWire.read(bytes(capturedRelay.replace('a4506f7274cd5a32', 'a4506f727400')), undefined)).toMatchObject({ kind: 'malformed' });
    fc.assert(
      fc.property(fc.constantFrom(4, 5, 9), fc.uint8Array({ maxLength: 200 }), (type, rest) => {
        const traffic = serfQueryWire.read(new Uint8Array([type, ...rest]), undefined);
        expect(traffic).toBeDefined();
      }),
    );
  });
});
