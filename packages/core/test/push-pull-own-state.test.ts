import { describe, expect, it } from 'vitest';
import { swimCodec, SwimCore, type Effect, type PreloadedMember, type SwimConfig, type WireCodec } from '../src/index.js';

/**
 * A periodic push-pull whose state is byte for byte the receiver's own is answered without
 * decoding or merging it (anti-entropy/state-digest.ts); any difference takes the ordinary path.
 */
function countingCodec(): { codec: WireCodec; decodes: () => number; encodes: () => number } {
  let decodes = 0;
  let encodes = 0;
  const codec: WireCodec = {
    ...swimCodec,
    decodeStream: (bytes, limits) => (decodes++, swimCodec.decodeStream(bytes, limits)),
    encodeStream: (message) => (encodes++, swimCodec.encodeStream(message)),
  };
  return { codec, decodes: () => decodes, encodes: () => encodes };
}

const CONFIG: Partial<SwimConfig> = { pushPullIntervalMs: 30_000 };
const LIMITS = { maxPushPullEntries: 1_000 };

interface Node {
  readonly core: SwimCore;
  readonly decodes: () => number;
  readonly encodes: () => number;
  readonly log: Effect[];
}

function node(name: string, seed: number): Node {
  const { codec, decodes, encodes } = countingCodec();
  return { core: new SwimCore({ name, address: `${name}:1`, config: CONFIG, seed, now: 0, codec }), decodes, encodes, log: [] };
}

/** `others` members nobody can reach, preloaded into every node of `nodes` beside the nodes themselves. */
function preloadAll(nodes: readonly Node[], others: number): void {
  const list: PreloadedMember[] = [
    ...nodes.map((n) => ({ name: n.core.name, address: `${n.core.name}:1`, incarnation: n.core.incarnation })),
    ...Array.from({ length: others }, (_, i) => ({ name: `m${i}`, address: `m${i}:1`, incarnation: i % 4 })),
  ];
  for (const n of nodes) n.log.push(...n.core.preload(list, 0));
}

/**
 * Nodes wired to each other, every packet and stream delivered at once, run on one clock: a
 * quiet cluster of two where every probe is answered, so nothing is ever suspected.
 */
class Net {
  now = 0;
  readonly #byAddress = new Map<string, Node>();
  readonly #streamIds = new Map<Node, number>();
  /** Push-pull exchanges seen: the initiator's request bytes and the answer. */
  readonly exchanges: Array<{ from: string; request: Uint8Array; reply: Uint8Array | undefined }> = [];

  constructor(readonly nodes: readonly Node[]) {
    for (const n of nodes) this.#byAddress.set(`${n.core.name}:1`, n);
  }

  run(until: number): void {
    for (;;) {
      let next: { node: Node; at: number } | undefined;
      for (const n of this.nodes) {
        const at = n.core.nextDeadline();
        if (at !== undefined && at <= until && (next === undefined || at < next.at)) next = { node: n, at };
      }
      if (next === undefined) break;
      this.now = Math.max(this.now, next.at);
      this.#deliver(next.node, next.node.core.tick(this.now));
    }
    this.now = until;
  }

  #deliver(from: Node, effects: readonly Effect[]): void {
    from.log.push(...effects);
    const address = `${from.core.name}:1`;
    for (const effect of effects) {
      if (effect.type === 'send-packet') {
        const to = this.#byAddress.get(effect.to);
        if (to !== undefined) this.#deliver(to, to.core.receivePacket(address, effect.bytes, this.now));
      } else if (effect.type === 'stream-request') {
        const to = this.#byAddress.get(effect.to);
        if (to === undefined) {
          this.#deliver(from, from.core.step({ type: 'stream-failed', requestId: effect.requestId, reason: 'unreachable' }, this.now));
          continue;
        }
        const streamId = (this.#streamIds.get(to) ?? 0) + 1;
        this.#streamIds.set(to, streamId);
        const answer = to.core.receiveStream(streamId, address, effect.bytes, this.now);
        const reply = answer.find((e) => e.type === 'stream-reply' && e.streamId === streamId);
        const bytes = reply?.type === 'stream-reply' ? reply.bytes : undefined;
        if (effect.purpose === 'push-pull') this.exchanges.push({ from: from.core.name, request: effect.bytes, reply: bytes });
        this.#deliver(to, answer);
        this.#deliver(
          from,
          from.core.step(bytes === undefined ? { type: 'stream-failed', requestId: effect.requestId, reason: 'closed' } : { type: 'stream-response', requestId: effect.requestId, bytes }, this.now),
        );
      }
    }
  }
}

/** A third party's push-pull naming nobody new: `n` answers with its own state (and keeps its digest). */
function ownState(n: Node, now: number): Uint8Array {
  const request = swimCodec.encodeStream({ type: 'push-pull', join: false, members: [], userState: new Uint8Array(0) });
  const reply = n.core.receiveStream(1_000_000 + now, 'x:1', request, now).find((e) => e.type === 'stream-reply');
  if (reply?.type !== 'stream-reply' || reply.bytes === undefined) throw new Error(`${n.core.name} did not answer`);
  return reply.bytes;
}

/** a and b, preloaded with each other, wired. */
function pair(): { a: Node; b: Node; net: Net } {
  const a = node('a', 1);
  const b = node('b', 2);
  preloadAll([a, b], 0);
  return { a, b, net: new Net([a, b]) };
}

const memberEvents = (n: Node) => n.log.filter((e) => e.type === 'member');

describe('a push-pull carrying the receiver’s own state', () => {
  it('members holding the same entries send the same bytes, in name order, whatever their probe order', () => {
    const a = node('a', 1);
    const b = node('b', 2);
    preloadAll([a, b], 40);
    expect(a.core.members().map((m) => m.name)).not.toEqual(b.core.members().map((m) => m.name));
    // A third party's push-pull naming only a member both hold: each answers with its own state.
    const request = swimCodec.encodeStream({ type: 'push-pull', join: false, members: [{ name: 'm0', address: 'm0:1', meta: new Uint8Array(0), incarnation: 0, state: 'alive' }], userState: new Uint8Array(0) });
    const answer = (n: Node) => {
      const reply = n.core.receiveStream(1, 'x:1', request, 0).find((e) => e.type === 'stream-reply');
      return reply?.type === 'stream-reply' ? reply.bytes! : new Uint8Array(0);
    };
    const fromA = answer(a);
    expect(Buffer.from(fromA).equals(Buffer.from(answer(b)))).toBe(true);
    const decoded = swimCodec.decodeStream(fromA, LIMITS);
    expect(decoded.ok && decoded.messages[0]!.type === 'push-pull' ? decoded.messages[0]!.members.map((m) => m.name) : []).toEqual(
      ['a', 'b', ...Array.from({ length: 40 }, (_, i) => `m${i}`)].sort(),
    );
  });

  it('is answered without a decode or a merge once both have encoded their state, and still counted', () => {
    const { a, b, net } = pair();
    const eventsBefore = [memberEvents(a).length, memberEvents(b).length];
    net.run(600_000);
    expect(net.exchanges.length).toBeGreaterThanOrEqual(10);
    for (const { request, reply } of net.exchanges) expect(Buffer.from(reply!).equals(Buffer.from(request))).toBe(true);
    // None decoded, the first included: a receiver without a digest takes it from its answer's encoding.
    expect(a.decodes() + b.decodes()).toBe(0);
    expect(a.core.counters.pushPulls + b.core.counters.pushPulls).toBe(2 * net.exchanges.length);
    expect([memberEvents(a).length, memberEvents(b).length]).toEqual(eventsBefore);
    expect(a.core.member('b')!.state).toBe('alive');
  });

  it('is answered with a copy of the request, not a new encoding: one state encoded per exchange', () => {
    const { a, b, net } = pair();
    // A user state keeps these states out of the process's shared states (shared-states.ts), so
    // every encoding counts here.
    for (const n of [a, b]) n.core.step({ type: 'set-user-state', state: new Uint8Array([7]) }, 0);
    net.run(100_000);
    const before = { exchanges: net.exchanges.length, encodes: a.encodes() + b.encodes() };
    net.run(900_000);
    const exchanges = net.exchanges.length - before.exchanges;
    expect(exchanges).toBeGreaterThanOrEqual(10);
    // Each initiator encodes its request; no answer is encoded.
    expect(a.encodes() + b.encodes() - before.encodes).toBe(exchanges);
    for (const { request, reply } of net.exchanges.slice(before.exchanges)) {
      expect(reply).not.toBe(request);
      expect(Buffer.from(reply!).equals(Buffer.from(request))).toBe(true);
    }
  });

  it('any change takes the ordinary path: a state with one newer incarnation is decoded and merged', () => {
    const { a, b, net } = pair();
    net.run(600_000);
    const state = swimCodec.decodeStream(ownState(a, net.now), LIMITS);
    if (!state.ok || state.messages[0]!.type !== 'push-pull') throw new Error('undecodable state');
    const pushPull = state.messages[0]!;
    // a's own entry one incarnation newer, as a after a refutation b has not heard of.
    const newer = { ...pushPull, members: pushPull.members.map((m) => (m.name === 'a' ? { ...m, incarnation: m.incarnation + 1 } : m)) };
    const decodes = b.decodes();
    b.core.receiveStream(7, 'a:1', swimCodec.encodeStream(newer), net.now);
    expect(b.decodes()).toBe(decodes + 1);
    expect(b.core.member('a')!.incarnation).toBe(a.core.incarnation + 1);
  });

  it('a state with a suspect entry is decoded and merged even when it is ours: the peer’s suspicion confirms ours', () => {
    const { a, b, net } = pair();
    net.run(600_000);
    const accuse = swimCodec.encodePacket([{ type: 'suspect', incarnation: a.core.incarnation, node: 'a', from: 'z' }]);
    // b holds a suspect; so does a copy of b's state sent back to it.
    b.core.receivePacket('z:1', accuse, net.now);
    expect(b.core.member('a')!.state).toBe('suspect');
    const own = ownState(b, net.now);
    const decodes = b.decodes();
    b.core.receiveStream(8, 'c:1', own, net.now);
    expect(b.decodes()).toBe(decodes + 1);
  });

  it('delivers the user state of a skipped merge, which is the receiver’s own', () => {
    const { a, b, net } = pair();
    a.core.step({ type: 'set-user-state', state: new Uint8Array([1, 2, 3]) }, 0);
    b.core.step({ type: 'set-user-state', state: new Uint8Array([1, 2, 3]) }, 0);
    net.run(600_000);
    expect(a.decodes() + b.decodes()).toBe(0);
    const delivered = [...a.log, ...b.log].filter((e) => e.type === 'user-state');
    expect(delivered.length).toBe(2 * net.exchanges.length);
    for (const effect of delivered) expect(effect).toMatchObject({ type: 'user-state', join: false, state: new Uint8Array([1, 2, 3]) });
  });

  it('a forged state of the same length is decoded, not taken for ours', () => {
    const { b, net } = pair();
    net.run(600_000);
    const own = net.exchanges.at(-1)!.reply!;
    const decodes = b.decodes();
    const forged = own.slice();
    forged[forged.length - 2] = forged[forged.length - 2]! ^ 1;
    b.core.receiveStream(99, 'x:1', forged, net.now);
    expect(b.decodes()).toBe(decodes + 1);
  });

  it('a request that comes before the receiver took its digest is answered without a decode, from one encoding', () => {
    const a = node('a', 1);
    const b = node('b', 2);
    preloadAll([a, b], 30);
    // a's periodic state, before b has ever encoded its own (no digest yet).
    const fromA = ownState(a, 0);
    const before = { decodes: b.decodes(), encodes: b.encodes() };
    const answer = b.core.receiveStream(5, 'a:1', fromA, 0).find((e) => e.type === 'stream-reply');
    expect(b.decodes()).toBe(before.decodes);
    expect(b.encodes()).toBe(before.encodes + 1);
    expect(answer?.type === 'stream-reply' && Buffer.from(answer.bytes!).equals(Buffer.from(fromA))).toBe(true);
    expect(b.core.counters.pushPulls).toBe(1);
  });

  it('after a change both sides hold, the next request is answered without a decode (the digest is stale, not wrong)', () => {
    const { a, b, net } = pair();
    net.run(600_000);
    // Both learn the same new member: both tables change, their states stay equal.
    const newcomer: PreloadedMember[] = [{ name: 'z', address: 'z:1', incarnation: 3 }];
    a.core.preload(newcomer, net.now);
    b.core.preload(newcomer, net.now);
    const fromA = ownState(a, net.now);
    const decodes = b.decodes();
    b.core.receiveStream(6, 'a:1', fromA, net.now);
    expect(b.decodes()).toBe(decodes);
  });

  it('a request that differs is decoded and merged, and answered from the one encoding made to compare it', () => {
    const { a, b, net } = pair();
    net.run(600_000);
    a.core.preload([{ name: 'y', address: 'y:1', incarnation: 0 }], net.now);
    const fromA = ownState(a, net.now);
    b.core.preload([{ name: 'x', address: 'x:1', incarnation: 0 }], net.now);
    const before = { decodes: b.decodes(), encodes: b.encodes() };
    const answer = b.core.receiveStream(9, 'a:1', fromA, net.now).find((e) => e.type === 'stream-reply');
    expect(b.decodes()).toBe(before.decodes + 1);
    expect(b.encodes()).toBe(before.encodes + 1);
    const decoded = answer?.type === 'stream-reply' ? swimCodec.decodeStream(answer.bytes!, LIMITS) : undefined;
    const names = decoded?.ok && decoded.messages[0]!.type === 'push-pull' ? decoded.messages[0]!.members.map((m) => m.name) : [];
    expect(names).toContain('x');
    expect(names).not.toContain('y');
    b.core.tick(net.now + 1_000);
    expect(b.core.member('y')?.state).toBe('alive');
  });

  it('a small stream (a fallback ping) does not make the receiver encode its state', () => {
    const a = node('a', 1);
    preloadAll([a], 50);
    const encodes = a.encodes();
    const ping = swimCodec.encodeStream({ type: 'ping', seq: 1, target: 'a', sourceName: 'x', sourceAddress: 'x:1' });
    const answer = a.core.receiveStream(3, 'x:1', ping, 0).find((e) => e.type === 'stream-reply');
    expect(answer?.type === 'stream-reply' && answer.bytes !== undefined).toBe(true);
    // The ack is the one encoding: no state encoded to compare a ping with.
    expect(a.encodes()).toBe(encodes + 1);
  });
});
