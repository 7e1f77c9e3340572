/**
 * Protocol version negotiation (docs/compatibility.md, codec/protocol-range.ts): the range each
 * member announces, where it travels, the version a member writes, and what a joiner hears when
 * it shares no version with a seed. The transport-level cases (today's codec beside a next
 * version, over memory and UDP) are in @swim/transport-conformance's protocol-negotiation suite.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodePacket,
  decodeRangePayload,
  describeRange,
  encodeMessage,
  encodePacket,
  encodeRangePayload,
  partAtVersion,
  rangesOverlap,
  SwimCore,
  swimCodec,
  type AliveMessage,
  type Effect,
  type Message,
  type PushPullMessage,
} from '../src/index.js';
import { bytes } from './codec-samples.js';
import { LoneCore } from './harness/lone-core.js';

const alive: AliveMessage = { type: 'alive', incarnation: 3, node: 'b', address: 'b:1', meta: bytes() };
const ping = (seq: number, sourceName = 'b'): Message => ({ type: 'ping', seq, target: 'me', sourceName, sourceAddress: '' });

/** The packets a core sent, as [to, version, messages]. */
function sent(effects: readonly Effect[]): Array<{ to: string; version: number; messages: Message[] }> {
  return effects.flatMap((effect) => {
    if (effect.type !== 'send-packet') return [];
    const decoded = decodePacket(effect.bytes);
    if (!decoded.ok) throw new Error(`the core sent an undecodable packet: ${decoded.error.detail}`);
    return [{ to: effect.to, version: effect.bytes[0]!, messages: decoded.messages }];
  });
}

/**
 * Run the core, answering its pings to `target` with a direct ack carrying `payload` (nothing else
 * is answered), until it holds for `target` the range `payload` announces.
 */
function probeAndAnswer(node: LoneCore, target: string, payload: Uint8Array): void {
  const announced = decodeRangePayload(payload);
  let answers = 0;
  const holds = (): boolean => answers > 0 && JSON.stringify(node.core.protocolOf(target)) === JSON.stringify(announced);
  for (let waited = 0; !holds() && waited < 30_000; waited += 50) {
    node.advance(node.now + 50, (effect, core) => {
      if (effect.type !== 'send-packet' || effect.to !== `${target}:1`) return;
      const decoded = decodePacket(effect.bytes);
      if (!decoded.ok || decoded.messages[0]?.type !== 'ping') return;
      answers++;
      core.receive(`${target}:1`, encodePacket([{ type: 'ack', seq: decoded.messages[0].seq, payload }]));
    });
  }
  if (!holds()) throw new Error(`${target}'s range is not ${JSON.stringify(announced)} after 30 s`);
  // Still live (alive, or suspect from earlier unanswered probes): its range counts.
  expect(['alive', 'suspect']).toContain(node.core.member(target)?.state);
}

describe('a protocol range on the wire', () => {
  it('travels in a direct ack payload and reads back, for every range (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 255 }), fc.integer({ min: 0, max: 254 }), (min, span) => {
        const range = { min, max: Math.min(255, min + span) };
        expect(decodeRangePayload(encodeRangePayload(range))).toEqual(range);
      }),
    );
  });

  it.each([
    ['empty (a member of 0.1.0)', []],
    ['not an array', [0x01]],
    ['one element', [0x91, 0x01]],
    ['zero', [0x92, 0x00, 0x01]],
    ['min above max', [0x92, 0x03, 0x02]],
    ['a string', [0x92, 0xa1, 0x31, 0x02]],
    ['truncated', [0x92, 0x01]],
  ])('a payload that is no range announces none: %s', (_case, payload) => {
    expect(decodeRangePayload(Uint8Array.from(payload))).toBeUndefined();
  });

  it('reads a payload with elements a later version appended', () => {
    expect(decodeRangePayload(Uint8Array.of(0x93, 0x01, 0x04, 0xa1, 0x78))).toEqual({ min: 1, max: 4 });
  });

  it.each([
    [{ min: 1, max: 2 }, { min: 2, max: 3 }, true],
    [{ min: 1, max: 2 }, { min: 3, max: 4 }, false],
    [{ min: 3, max: 3 }, { min: 1, max: 3 }, true],
    [{ min: 4, max: 9 }, { min: 1, max: 3 }, false],
  ])('overlap of %o and %o: %s', (a, b, overlap) => {
    expect(rangesOverlap(a, b)).toBe(overlap);
    expect(rangesOverlap(b, a)).toBe(overlap);
  });

  it('is named "1-2", or "3" for one version', () => {
    expect(describeRange({ min: 1, max: 2 })).toBe('1-2');
    expect(describeRange({ min: 3, max: 3 })).toBe('3');
  });

  it('rides an alive and a push-pull entry as two trailing fields, and round-trips', () => {
    const ranged: AliveMessage = { ...alive, protocol: { min: 1, max: 2 } };
    expect(encodeMessage(ranged).length).toBe(encodeMessage(alive).length + 2);
    const pushPull: PushPullMessage = {
      type: 'push-pull',
      join: false,
      members: [
        { name: 'a', address: 'a:1', meta: bytes(), incarnation: 1, state: 'alive', protocol: { min: 1, max: 200 } },
        { name: 'b', address: 'b:1', meta: bytes(), incarnation: 2, state: 'dead' },
      ],
      userState: bytes(),
    };
    expect(decodePacket(encodePacket([ranged, pushPull], 2))).toEqual({ ok: true, messages: [ranged, pushPull], version: 2 });
  });

  it('is taken off a queued alive when sent in version 1, where a member of 0.1.0 would drop the packet', () => {
    const part = swimCodec.encodeMessage({ ...alive, protocol: { min: 1, max: 2 } });
    expect(partAtVersion(part, 2)).toBe(part);
    expect(Array.from(partAtVersion(part, 1))).toEqual(Array.from(encodeMessage(alive)));
    const other = swimCodec.encodeMessage({ type: 'suspect', incarnation: 1, node: 'b', from: 'c' });
    expect(partAtVersion(other, 1)).toBe(other);
  });
});

describe('the version a member writes', () => {
  it('is its newest while alone; 1 once it holds a member that announced nothing; 2 once that member acks with its range', () => {
    const node = new LoneCore({});
    expect(node.core.protocolVersion).toBe(2);
    node.introduce('b');
    expect(node.core.protocolOf('b')).toBeUndefined();
    expect(node.core.protocolVersion).toBe(1);
    probeAndAnswer(node, 'b', encodeRangePayload({ min: 1, max: 2 }));
    expect(node.core.protocolOf('b')).toEqual({ min: 1, max: 2 });
    expect(node.core.protocolVersion).toBe(2);
    // An empty payload: the member at that address runs 0.1.0 now (a downgrade).
    probeAndAnswer(node, 'b', bytes());
    expect(node.core.protocolOf('b')).toBeUndefined();
    expect(node.core.protocolVersion).toBe(1);
  });

  it('goes back to version 1 while a member of 0.1.0 is alive, and up again once it is dead', () => {
    const node = new LoneCore({});
    node.introduce('b', 'c');
    probeAndAnswer(node, 'b', encodeRangePayload({ min: 1, max: 2 }));
    probeAndAnswer(node, 'c', encodeRangePayload({ min: 1, max: 2 }));
    expect(node.core.protocolVersion).toBe(2);
    node.receive('b:1', encodePacket([{ type: 'alive', incarnation: 1, node: 'old', address: 'old:1', meta: bytes() }]));
    expect(node.core.protocolVersion).toBe(1);
    node.receive('b:1', encodePacket([{ type: 'dead', incarnation: 1, node: 'old', from: 'b' }]));
    expect(node.core.member('old')?.state).toBe('dead');
    expect(node.core.protocolVersion).toBe(2);
  });

  it('writes packets in its version, an alive of its own with its range only from version 2', () => {
    const node = new LoneCore({});
    node.introduce('b');
    /** Packets over the next two seconds: all in `version`; our own alives among them. */
    const gossip = (version: number): AliveMessage[] => {
      const packets: Array<{ version: number; messages: Message[] }> = [];
      node.advance(node.now + 2_000, (effect) => {
        if (effect.type === 'send-packet') packets.push(...sent([effect]));
      });
      expect(packets.length).toBeGreaterThan(0);
      for (const packet of packets) expect(packet.version).toBe(version);
      const own = packets.flatMap((p) => p.messages).filter((m): m is AliveMessage => m.type === 'alive' && m.node === 'me');
      expect(own.length).toBeGreaterThan(0);
      return own;
    };
    node.core.updateMeta(bytes(1), node.now);
    expect(gossip(1).every((m) => m.protocol === undefined)).toBe(true);
    probeAndAnswer(node, 'b', encodeRangePayload({ min: 1, max: 2 }));
    node.core.updateMeta(bytes(2), node.now);
    expect(gossip(2).every((m) => m.protocol?.min === 1 && m.protocol.max === 2)).toBe(true);
  });

  it('answers a packet in no later version than the packet was written in (a member it has not heard of yet)', () => {
    const node = new LoneCore({});
    expect(node.core.protocolVersion).toBe(2);
    const answers = sent(node.receive('stranger:1', encodePacket([ping(5, 'stranger')], 1)));
    expect(answers.map((a) => a.version)).toEqual([1]);
    expect(answers[0]!.messages[0]).toMatchObject({ type: 'ack', seq: 5 });
    expect(sent(node.receive('stranger:1', encodePacket([ping(6, 'stranger')], 2))).map((a) => a.version)).toEqual([2]);
  });

  it('learns a range from gossip, and never takes one about itself', () => {
    const node = new LoneCore({});
    node.introduce('b');
    node.receive('b:1', encodePacket([{ ...alive, incarnation: 1, protocol: { min: 1, max: 7 } }], 2));
    expect(node.core.protocolOf('b')).toEqual({ min: 1, max: 7 });
    node.receive('b:1', encodePacket([{ type: 'alive', incarnation: 1, node: 'me', address: 'me:1', meta: bytes(), protocol: { min: 5, max: 9 } }], 2));
    expect(node.core.protocolOf('me')).toEqual({ min: 1, max: 2 });
  });
});

describe('a join across versions', () => {
  function joinRequests(effects: readonly Effect[]): Array<{ requestId: number; version: number; state: PushPullMessage }> {
    return effects.flatMap((effect) => {
      if (effect.type !== 'stream-request') return [];
      const decoded = swimCodec.decodeStream(effect.bytes, {});
      if (!decoded.ok) throw new Error(decoded.error.detail);
      return [{ requestId: effect.requestId, version: effect.bytes[0]!, state: decoded.messages[0] as PushPullMessage }];
    });
  }

  it('asks in its newest version with its range, and again one older when a member of 0.1.0 refuses that version', () => {
    const core = new SwimCore({ name: 'me', address: 'me:1', seed: 1, now: 0 });
    const [first] = joinRequests(core.join(['old:1'], 1, 0));
    expect(first!.version).toBe(2);
    expect(first!.state.members[0]).toMatchObject({ name: 'me', protocol: { min: 1, max: 2 } });
    // 0.1.0's answer, word for word.
    const refusal = encodePacket([{ type: 'error', message: 'bad request: protocol version 2 is not supported, expected 1' }], 1);
    const [second] = joinRequests(core.step({ type: 'stream-response', requestId: first!.requestId, bytes: refusal }, 1));
    expect(second!.version).toBe(1);
    expect(second!.state.members[0]!.protocol).toBeUndefined();
    const reply = encodePacket([{ type: 'push-pull', join: true, members: [{ name: 'old', address: 'old:1', meta: bytes(), incarnation: 1, state: 'alive' }], userState: bytes() }], 1);
    const effects = core.step({ type: 'stream-response', requestId: second!.requestId, bytes: reply }, 2);
    expect(effects.find((e) => e.type === 'join-finished')).toMatchObject({ contacted: ['old:1'], failed: [] });
    expect(core.protocolVersion).toBe(1);
  });

  it('does not retry in an older version for another error', () => {
    const core = new SwimCore({ name: 'me', address: 'me:1', seed: 1, now: 0 });
    const [first] = joinRequests(core.join(['busy:1'], 1, 0));
    const busy = encodePacket([{ type: 'error', message: 'too many pending push-pull requests' }], 2);
    const effects = core.step({ type: 'stream-response', requestId: first!.requestId, bytes: busy }, 1);
    expect(joinRequests(effects)).toEqual([]);
    expect(effects.find((e) => e.type === 'join-finished')).toMatchObject({ contacted: [], failed: [{ address: 'busy:1', reason: 'remote error: too many pending push-pull requests' }] });
  });

  it('a seed refuses a joiner announcing versions the cluster does not share, naming both ranges, and merges nothing', () => {
    const seed = new LoneCore({}, 1, 'seed');
    const request = encodePacket([{ type: 'push-pull', join: true, members: [{ name: 'future', address: 'future:1', meta: bytes(), incarnation: 1, state: 'alive', protocol: { min: 3, max: 4 } }], userState: bytes() }], 2);
    const effects = seed.core.receiveStream(1, 'future:1', request, 0);
    const reply = effects.find((e) => e.type === 'stream-reply') as { bytes: Uint8Array };
    const decoded = swimCodec.decodeStream(reply.bytes, {});
    expect(decoded).toMatchObject({ ok: true, messages: [{ type: 'error', message: 'future speaks protocol versions 3-4, which do not overlap this cluster\'s 1-2' }] });
    expect(seed.core.member('future')).toBeUndefined();
  });

  it('a request in a version the seed does not speak gets an error the requester reads, in the request\'s version byte', () => {
    const seed = new LoneCore({}, 1, 'seed');
    const v2 = encodePacket([{ type: 'push-pull', join: true, members: [], userState: bytes() }], 2);
    const v9 = Uint8Array.from(v2);
    v9[0] = 9;
    const effects = seed.core.receiveStream(1, 'future:1', v9, 0);
    const reply = (effects.find((e) => e.type === 'stream-reply') as { bytes: Uint8Array }).bytes;
    expect(reply[0]).toBe(9);
    expect(swimCodec.decodeStream(reply, {})).toMatchObject({
      ok: true,
      version: 9,
      messages: [{ type: 'error', message: 'bad request: protocol version 9 is not supported: this member speaks 1-2' }],
    });
    // Anything but a lone error in a version we do not speak is still refused.
    expect(swimCodec.decodeStream(v9, {})).toMatchObject({ ok: false, error: { code: 'version' } });
  });

  it.each([0, 9])('a lone error sent as a request in version %i is refused, not answered in that version (found by hostile-fuzz)', (version) => {
    const seed = new LoneCore({}, 1, 'seed');
    const request = encodePacket([{ type: 'error', message: '' }], 1);
    request[0] = version;
    const effects = seed.core.receiveStream(1, 'evil:1', request, 0);
    const reply = (effects.find((e) => e.type === 'stream-reply') as { bytes: Uint8Array }).bytes;
    expect(reply[0]).toBe(version);
    expect(seed.core.counters.decodeErrors).toBe(1);
    expect(seed.core.counters.internalErrors).toBe(0);
  });

  it('the joiner refuses a cluster whose members announce no version it speaks', () => {
    const core = new SwimCore({ name: 'me', address: 'me:1', seed: 1, now: 0 });
    const [first] = joinRequests(core.join(['seed:1'], 1, 0));
    // A seed of the future that did not check (it should have): its members speak 3-4 only... written in 2 for us to read.
    const reply = encodePacket([{ type: 'push-pull', join: true, members: [{ name: 'seed', address: 'seed:1', meta: bytes(), incarnation: 1, state: 'alive', protocol: { min: 3, max: 4 } }], userState: bytes() }], 2);
    const effects = core.step({ type: 'stream-response', requestId: first!.requestId, bytes: reply }, 1);
    expect(effects.find((e) => e.type === 'join-finished')).toMatchObject({
      contacted: [],
      failed: [{ address: 'seed:1', reason: 'protocol versions do not overlap: the cluster at seed:1 speaks 3-4, this member 1-2' }],
    });
    expect(core.member('seed')).toBeUndefined();
  });
});
