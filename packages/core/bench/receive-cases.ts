/**
 * The receive-path workloads of the core benchmark (throughput.ts, ab.ts): a core that knows 128
 * members and the packets it is fed. Each takes the core package as a module, so ab.ts can run
 * two builds of it side by side.
 */
import type * as Swim from '../src/index.js';
import type { Message, SwimCore } from '../src/index.js';

/** What the workloads use of the core package (one checkout's src/index.ts). */
export type SwimModule = Pick<typeof Swim, 'SwimCore' | 'encodePacket'>;

export const MEMBERS = 128;
export const UPDATES = 6;

export const SELF = 'member-000';
export const nameOf = (i: number) => `member-${String(i).padStart(3, '0')}`;
export const addressOf = (i: number) => `10.0.${i >> 8}.${i & 0xff}:7946`;
const EMPTY = new Uint8Array(0);

/** Time stays put while measuring: no probe or suspicion deadline fires, only packet handling is timed. */
export const NOW = 1_000;

/** A core named SELF that knows MEMBERS members (itself included), learnt by joining a seed that knows them. */
export function buildCore(swim: SwimModule): SwimCore {
  const core = new swim.SwimCore({ name: SELF, address: addressOf(0), seed: 1, now: 0 });
  const request = core.join([addressOf(1)], 1, 0).find((e) => e.type === 'stream-request');
  if (request?.type !== 'stream-request') throw new Error('the join opened no stream');
  const members = Array.from({ length: MEMBERS - 1 }, (_, k) => ({ name: nameOf(k + 1), address: addressOf(k + 1), meta: EMPTY, incarnation: UpdateStream.BASE - 1, state: 'alive' as const }));
  core.step({ type: 'stream-response', requestId: request.requestId, bytes: swim.encodePacket([{ type: 'push-pull', join: true, members, userState: EMPTY }]) }, 0);
  // Let the join gossip drain so the measurement starts from a steady queue.
  core.tick(NOW);
  const known = core.members().length;
  if (known !== MEMBERS) throw new Error(`the core knows ${known} members, expected ${MEMBERS}`);
  return core;
}

/**
 * Ping + 6 updates, where every update really changes a member's state. Members 1..126 are split
 * into 21 groups of 6; each group has two packet templates, X (alive, suspect, alive, ...) and Y
 * (suspect, alive, suspect, ...). On its k-th use a group gets X when k is even, Y when odd, with
 * alive at incarnation base + k and suspect at base + k - 1. So every member alternates between
 * "suspect at the incarnation it is alive at" (suspect beats alive at equal incarnation: the core
 * starts a suspicion) and "alive at a higher incarnation" (clears it): all 6 updates are applied,
 * gossiped onwards and change state on every packet.
 *
 * The templates are encoded once with uint32 incarnations; each packet then only has its 6
 * incarnations written into the bytes, as a NIC would hand over new bytes, so the encoding of the
 * input is not part of the measured work.
 */
export class UpdateStream {
  readonly #groups: Array<{ readonly templates: [Template, Template]; uses: number }> = [];
  #next = 0;
  /** Large enough that every incarnation is a msgpack uint32 (0xce + 4 bytes), so offsets are fixed. */
  static readonly BASE = 0x0100_0000;

  constructor(
    swim: SwimModule,
    readonly pinger: number,
  ) {
    const others = Array.from({ length: MEMBERS - 1 }, (_, i) => i + 1).filter((i) => i !== pinger);
    for (let g = 0; g + UPDATES <= others.length; g += UPDATES) {
      const members = others.slice(g, g + UPDATES);
      this.#groups.push({ templates: [makeTemplate(swim, members, pinger, 0), makeTemplate(swim, members, pinger, 1)], uses: 0 });
    }
  }

  get groups(): number {
    return this.#groups.length;
  }

  /** The next packet's bytes (the same buffer a template owns, rewritten in place). */
  next(): Uint8Array {
    const group = this.#groups[this.#next]!;
    this.#next = this.#next + 1 === this.#groups.length ? 0 : this.#next + 1;
    const k = group.uses++;
    const template = group.templates[k & 1]!;
    const { bytes, slots } = template;
    for (let s = 0; s < slots.length; s++) {
      const slot = slots[s]!;
      // Initially every member is alive at BASE - 1; the first suspect is at BASE - 1, the first alive at
      // BASE: each step is one incarnation, as a member's own refutations are (a larger jump is dropped as forged).
      const value = slot.alive ? UpdateStream.BASE + k : UpdateStream.BASE + k - 1;
      writeUint32(bytes, slot.offset, value);
    }
    return bytes;
  }
}

interface Template {
  readonly bytes: Uint8Array;
  /** Where each update's incarnation (the 4 bytes after 0xce) sits, and whether it is an alive. */
  readonly slots: ReadonlyArray<{ readonly offset: number; readonly alive: boolean }>;
}

function makeTemplate(swim: SwimModule, members: readonly number[], pinger: number, parity: 0 | 1): Template {
  // Distinct placeholder incarnations, found again in the bytes to learn their offsets.
  const marker = (s: number) => 0x7a5a_0000 + (parity << 8) + s;
  const messages: Message[] = [
    { type: 'ping', seq: 4242, target: SELF, sourceName: nameOf(pinger), sourceAddress: addressOf(pinger) },
  ];
  members.forEach((m, s) => {
    const alive = (s + parity) % 2 === 0;
    messages.push(
      alive
        ? { type: 'alive', incarnation: marker(s), node: nameOf(m), address: addressOf(m), meta: EMPTY }
        : { type: 'suspect', incarnation: marker(s), node: nameOf(m), from: nameOf(pinger) },
    );
  });
  const bytes = swim.encodePacket(messages);
  const slots = members.map((_, s) => {
    const offset = findUint32(bytes, marker(s));
    return { offset, alive: (s + parity) % 2 === 0 };
  });
  return { bytes, slots };
}

function findUint32(bytes: Uint8Array, value: number): number {
  for (let i = 0; i + 5 <= bytes.length; i++) {
    if (bytes[i] === 0xce && readUint32(bytes, i + 1) === value) return i + 1;
  }
  throw new Error(`incarnation ${value} is not encoded as a msgpack uint32 in the template`);
}

function readUint32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

function writeUint32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >>> 24;
  bytes[at + 1] = (value >>> 16) & 0xff;
  bytes[at + 2] = (value >>> 8) & 0xff;
  bytes[at + 3] = value & 0xff;
}

/**
 * Ping + 6 updates the receiver already knows after the first pass, as most gossip in a stable
 * cluster: the alive updates are ignored and the suspects only re-confirm.
 */
export function knownPacket(swim: SwimModule, pinger: number): Uint8Array {
  const members = Array.from({ length: UPDATES }, (_, s) => 2 + s);
  return swim.encodePacket([
    { type: 'ping', seq: 4242, target: SELF, sourceName: nameOf(pinger), sourceAddress: addressOf(pinger) },
    ...members.map((m, s): Message =>
      s % 2 === 0
        ? { type: 'alive', incarnation: 1, node: nameOf(m), address: addressOf(m), meta: EMPTY }
        : { type: 'suspect', incarnation: 1, node: nameOf(m), from: nameOf(pinger) },
    ),
  ]);
}

/** A lone ping (no gossip in; the ack carries whatever the queue still holds). */
export function lonePing(swim: SwimModule, pinger: number): Uint8Array {
  return swim.encodePacket([{ type: 'ping', seq: 7, target: SELF, sourceName: nameOf(pinger), sourceAddress: addressOf(pinger) }]);
}
