// The codec knows the member it serves: the core attaches it at construction, peers cannot
// change the Vsn we advertise about ourselves, and one codec cannot serve two members.
import { SwimCore, type Effect } from '@swim/core';
import { describe, expect, it } from 'vitest';
import { memberlistCodec } from '../../src/index.js';
import { alive, bytes, compound, concat, hex, SERF_VSN_BYTES, str, struct, uint, withCrc } from './wire-bytes.js';

const ME = '127.0.0.1:7946';
const PEER = '127.0.0.1:7947';
const OURS = '010502020505';
const FORGED = bytes('010503020504');

function core(name: string, codec: ReturnType<typeof memberlistCodec>): SwimCore {
  return new SwimCore({ name, address: ME, now: 0, seed: 1, codec });
}

/** The Vsn written after the member `name` (under `key`, Node or Name) in encoded bytes: Vsn is the struct's last key. */
function vsnAfter(encoded: Uint8Array, key: 'Node' | 'Name', name: string): string {
  const text = hex(encoded);
  const at = text.indexOf(hex(concat(str(key), str(name))));
  expect(at).toBeGreaterThanOrEqual(0);
  const vsnKey = hex(concat(str('Vsn'), [0xa6]));
  const vsnAt = text.indexOf(vsnKey, at);
  expect(vsnAt).toBeGreaterThan(at);
  return text.slice(vsnAt + vsnKey.length, vsnAt + vsnKey.length + 12);
}

function pushPull(...entries: [name: string, port: number, vsn: Uint8Array][]): Uint8Array {
  const entry = ([name, port, vsn]: [string, number, Uint8Array]) =>
    struct([
      ['Addr', str(Uint8Array.of(127, 0, 0, 1))],
      ['Incarnation', uint(1)],
      ['Meta', Uint8Array.of(0xc0)],
      ['Name', str(name)],
      ['Port', uint(port)],
      ['State', uint(0)],
      ['Vsn', str(vsn)],
    ]);
  return concat([6], struct([['Join', Uint8Array.of(0xc2)], ['Nodes', uint(entries.length)], ['UserStateLen', uint(0)]]), ...entries.map(entry));
}

describe('memberlistCodec.attach: the codec knows its member', () => {
  it('a peer gossiping our name with another Vsn does not change the Vsn we advertise', () => {
    const codec = memberlistCodec();
    const member = core('me', codec);
    // The peer's own alive, an alive about us with a forged Vsn, and a third member's alive with its own Vsn.
    const packet = withCrc(compound([alive('peer', SERF_VSN_BYTES, [127, 0, 0, 1], 7947), alive('me', FORGED), alive('x', bytes('010502020504'), [127, 0, 0, 1], 7948)]));
    member.receivePacket(PEER, packet, 1);
    expect(codec.counters.versionRefused).toBe(0);

    // Our alive, as the core encodes it when it refutes or updates its meta.
    const ownAlive = codec.encodeMessage({ type: 'alive', incarnation: 2, node: 'me', address: ME, meta: new Uint8Array(0) });
    expect(vsnAfter(ownAlive, 'Node', 'me')).toBe(OURS);
    // Others' Vsn are still learned and relayed.
    const relayed = codec.encodeMessage({ type: 'alive', incarnation: 1, node: 'x', address: '127.0.0.1:7948', meta: new Uint8Array(0) });
    expect(vsnAfter(relayed, 'Node', 'x')).toBe('010502020504');

    // A push-pull naming us with the forged Vsn: our reply's own entry still carries ours.
    const effects: Effect[] = member.receiveStream(1, PEER, pushPull(['peer', 7947, SERF_VSN_BYTES], ['me', 7946, FORGED]), 2);
    const reply = effects.find((effect) => effect.type === 'stream-reply');
    expect(reply?.type === 'stream-reply' && reply.bytes !== undefined).toBe(true);
    if (reply?.type === 'stream-reply' && reply.bytes !== undefined) expect(vsnAfter(reply.bytes, 'Name', 'me')).toBe(OURS);
    expect(vsnAfter(codec.encodeMessage({ type: 'alive', incarnation: 3, node: 'me', address: ME, meta: new Uint8Array(0) }), 'Node', 'me')).toBe(OURS);
  });

  it('one codec shared by two members: the second core refuses it at construction', () => {
    const codec = memberlistCodec();
    core('a', codec);
    expect(() => core('b', codec)).toThrow(/already serves member "a".*its own memberlistCodec\(\)/);
    expect(() => codec.attach({ name: 'a' })).toThrow(Error);
    // A core whose options are refused does not take the codec.
    const fresh = memberlistCodec();
    expect(() => new SwimCore({ name: '', address: ME, now: 0, seed: 1, codec: fresh })).toThrow(/name/);
    expect(() => core('c', fresh)).not.toThrow();
  });
});
