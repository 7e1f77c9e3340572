import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodePacket, MAX_INCARNATION, type Message, type PushPullEntry } from '../src/index.js';
import { Cluster } from './harness/cluster.js';

// Issue 10: hostile packets and streams of every message type, valid and mutated, fed into live
// cores in the simulator. Properties: no core ever throws, and once the attack stops every
// healthy member holds every other healthy member alive again within a bound.

const SIZE = 5;
const NAMES = Array.from({ length: SIZE }, (_, i) => `n${i}`);
const addressOf = (name: string) => `${name}.sim:7946`;
const STRANGER = 'evil.sim:6666';
/** After the attack: refutations travel by gossip at once; a forged leave may wait for a push-pull (30 s). */
const RECOVERY_BOUND_MS = 120_000;

const name = fc.oneof(fc.constantFrom(...NAMES), fc.constantFrom('ghost', 'x'), fc.string({ minLength: 1, maxLength: 8 }));
const address = fc.oneof(fc.constantFrom(...NAMES.map(addressOf)), fc.constant(STRANGER), fc.string({ minLength: 1, maxLength: 16 }));
const incarnation = fc.oneof(
  fc.constantFrom(0, 1, 2, 3, MAX_INCARNATION - 1, MAX_INCARNATION, 65_536, 65_537),
  fc.constantFrom(MAX_INCARNATION - 1, MAX_INCARNATION),
  fc.nat({ max: MAX_INCARNATION }),
);
const seq = fc.nat({ max: MAX_INCARNATION });
const bytes = fc.uint8Array({ maxLength: 24 });
const entry: fc.Arbitrary<PushPullEntry> = fc.record({
  name,
  address,
  meta: bytes,
  incarnation,
  state: fc.constantFrom('alive', 'suspect', 'dead', 'left'),
});

const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ type: fc.constant('ping'), seq, target: name, sourceName: name, sourceAddress: fc.oneof(address, fc.constant('')) }),
  fc.record({
    type: fc.constant('ping-req'),
    seq,
    target: name,
    targetAddress: address,
    nack: fc.boolean(),
    sourceName: name,
    sourceAddress: fc.oneof(address, fc.constant('')),
  }),
  fc.record({ type: fc.constant('ack'), seq, payload: bytes }),
  fc.record({ type: fc.constant('nack'), seq }),
  fc.record({ type: fc.constant('suspect'), incarnation, node: name, from: name }),
  fc.record({ type: fc.constant('dead'), incarnation, node: name, from: name }),
  fc.record({ type: fc.constant('alive'), incarnation, node: name, address, meta: bytes }),
  fc.record({ type: fc.constant('broadcast'), key: name, origin: name, version: fc.nat(), payload: bytes }),
  fc.record({ type: fc.constant('user'), from: name, payload: bytes }),
  fc.record({ type: fc.constant('error'), message: fc.string({ maxLength: 20 }) }),
  fc.record({ type: fc.constant('push-pull'), join: fc.boolean(), members: fc.array(entry, { maxLength: 40 }), userState: bytes }),
) as fc.Arbitrary<Message>;

type Mutation = { kind: 'flip'; at: number; bit: number } | { kind: 'truncate'; at: number } | { kind: 'byte'; at: number; value: number };
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat({ max: 7 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('byte' as const), at: fc.nat(), value: fc.nat({ max: 255 }) }),
);

interface Attack {
  readonly victim: number;
  /** Member address to forge as the source, or the stranger. */
  readonly from: string;
  readonly channel: 'packet' | 'stream' | 'stream-response';
  readonly messages: Message[];
  readonly mutations: readonly Mutation[];
  readonly delayMs: number;
  /** Make every message name the victim itself (accusations it must answer, pings it must ack). */
  readonly aboutVictim: boolean;
}

const attack: fc.Arbitrary<Attack> = fc.record({
  victim: fc.nat({ max: SIZE - 1 }),
  from: fc.oneof(fc.constant(STRANGER), fc.constantFrom(...NAMES.map(addressOf))),
  channel: fc.constantFrom('packet', 'packet', 'packet', 'stream', 'stream-response'),
  messages: fc.array(message, { minLength: 1, maxLength: 4 }),
  mutations: fc.oneof(fc.constant<Mutation[]>([]), fc.constant<Mutation[]>([]), fc.array(mutation, { minLength: 1, maxLength: 3 })),
  delayMs: fc.nat({ max: 400 }),
  aboutVictim: fc.boolean(),
});

/** The same messages, each naming `victim` where a message names a member. */
function aimAt(messages: readonly Message[], victim: string): Message[] {
  return messages.map((m) => {
    switch (m.type) {
      case 'suspect':
      case 'dead':
      case 'alive':
        return { ...m, node: victim };
      case 'ping':
        return { ...m, target: victim };
      case 'push-pull':
        return { ...m, members: m.members.map((e) => ({ ...e, name: victim })) };
      default:
        return m;
    }
  });
}

/** Encode, or skip what even our encoder refuses (it is stricter than a forger). */
function forge(a: Attack): Uint8Array | undefined {
  let packet: Uint8Array;
  try {
    packet = encodePacket(a.aboutVictim ? aimAt(a.messages, NAMES[a.victim]!) : a.messages).slice();
  } catch {
    return undefined;
  }
  for (const m of a.mutations) {
    if (packet.length === 0) break;
    const at = m.at % packet.length;
    if (m.kind === 'truncate') packet = packet.slice(0, at);
    else if (m.kind === 'flip') packet[at]! ^= 1 << m.bit;
    else packet[at] = m.value;
  }
  return packet;
}

describe('hostile input into live cores (simulator)', () => {
  it('no core throws, and healthy members hold each other alive again after the attack', () => {
    fc.assert(
      fc.property(fc.nat({ max: 1_000_000 }), fc.array(attack, { minLength: 5, maxLength: 40 }), (seed, attacks) => {
        const cluster = new Cluster({ seed });
        for (const n of NAMES) cluster.add(n);
        for (const n of NAMES.slice(1)) cluster.join(n, ['n0']);
        cluster.runUntil(() => cluster.live().every((node) => node.core.members().length === SIZE), 30_000);
        let streamId = 1_000_000_000;
        for (const a of attacks) {
          cluster.run(a.delayMs);
          const bytes = forge(a);
          if (bytes === undefined) continue;
          const victim = NAMES[a.victim]!;
          cluster.perform(victim, (core, now) => {
            switch (a.channel) {
              case 'packet':
                return core.receivePacket(a.from, bytes, now);
              case 'stream':
                return core.receiveStream(streamId++, a.from, bytes, now);
              case 'stream-response':
                return core.step({ type: 'stream-response', requestId: (streamId++ % 64) + 1, bytes }, now);
            }
          });
        }
        const allAlive = () =>
          NAMES.every((observer) => NAMES.every((subject) => cluster.stateOf(observer, subject) === 'alive'));
        try {
          cluster.runUntil(allAlive, RECOVERY_BOUND_MS);
        } catch (error) {
          const view = NAMES.map((o) => `${o}: ${NAMES.map((s) => `${s}=${cluster.stateOf(o, s)}@${cluster.node(o).core.member(s)?.incarnation}`).join(' ')}`);
          throw new Error(`healthy members not all alive ${RECOVERY_BOUND_MS} ms after the attack (cluster seed ${seed}):\n${view.join('\n')}`, {
            cause: error,
          });
        }
        for (const node of cluster.live()) expect(node.core.counters.internalErrors).toBe(0);
      }),
      { numRuns: 150 },
    );
  });
});
