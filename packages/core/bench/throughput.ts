/**
 * Core throughput: packets per second that one SwimCore takes through decode + handle + encode,
 * for a ping carrying 6 piggybacked membership updates, with 128 members known.
 *
 * Run: pnpm bench core                          (from the repository root)
 *      pnpm --filter @swim/core run bench
 *      cd packages/core && npx tsx bench/throughput.ts
 *
 * Each call is `core.receivePacket(from, bytes, now)`: it decodes the compound packet, applies the
 * six updates to the member table (every one changes state: see `UpdateStream`), answers the ping
 * and returns the effects, the ack among them encoded as a packet with as much queued gossip as
 * fits in 1400 bytes. Then the codec benchmark (bench/codec.ts) runs as a child process.
 *
 * `--only applied|known|lone` runs one case and skips the codec benchmark (for a profiler:
 * `node --cpu-prof --import tsx bench/throughput.ts --only applied`).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { decodePacket, encodePacket, SwimCore, type Effect, type Message } from '../src/index.js';
import { consumeSink, measureOpsPerSecond } from './measure.js';

const { values: flags } = parseArgs({ options: { only: { type: 'string' } } });
const ONLY = flags.only;
if (ONLY !== undefined && !['applied', 'known', 'lone'].includes(ONLY)) throw new Error(`--only takes applied, known or lone; got ${ONLY}`);
const runs = (name: string) => ONLY === undefined || ONLY === name;

const TARGET = 200_000;
/** Updates the receiver already knows: the issue asks to keep at least this. */
const KNOWN_TARGET = 750_000;
const MIN_MS = 2_000;
const MEMBERS = 128;
const UPDATES = 6;

const SELF = 'member-000';
const nameOf = (i: number) => `member-${String(i).padStart(3, '0')}`;
const addressOf = (i: number) => `10.0.${i >> 8}.${i & 0xff}:7946`;
const EMPTY = new Uint8Array(0);

/** Time stays put while measuring: no probe or suspicion deadline fires, only packet handling is timed. */
const NOW = 1_000;

/** A core named SELF that knows MEMBERS members (itself included), learnt by joining a seed that knows them. */
function buildCore(): SwimCore {
  const core = new SwimCore({ name: SELF, address: addressOf(0), seed: 1, now: 0 });
  const request = core.join([addressOf(1)], 1, 0).find((e) => e.type === 'stream-request');
  if (request?.type !== 'stream-request') throw new Error('the join opened no stream');
  const members = Array.from({ length: MEMBERS - 1 }, (_, k) => ({ name: nameOf(k + 1), address: addressOf(k + 1), meta: EMPTY, incarnation: UpdateStream.BASE - 1, state: 'alive' as const }));
  core.step({ type: 'stream-response', requestId: request.requestId, bytes: encodePacket([{ type: 'push-pull', join: true, members, userState: EMPTY }]) }, 0);
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
class UpdateStream {
  readonly #groups: Array<{ readonly templates: [Template, Template]; uses: number }> = [];
  #next = 0;
  /** Large enough that every incarnation is a msgpack uint32 (0xce + 4 bytes), so offsets are fixed. */
  static readonly BASE = 0x0100_0000;

  constructor(readonly pinger: number) {
    const others = Array.from({ length: MEMBERS - 1 }, (_, i) => i + 1).filter((i) => i !== pinger);
    for (let g = 0; g + UPDATES <= others.length; g += UPDATES) {
      const members = others.slice(g, g + UPDATES);
      this.#groups.push({ templates: [makeTemplate(members, pinger, 0), makeTemplate(members, pinger, 1)], uses: 0 });
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

function makeTemplate(members: readonly number[], pinger: number, parity: 0 | 1): Template {
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
  const bytes = encodePacket(messages);
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

function ackOf(effects: readonly Effect[]): { bytes: Uint8Array; messages: number } | undefined {
  for (const effect of effects) {
    if (effect.type !== 'send-packet') continue;
    const decoded = decodePacket(effect.bytes);
    if (decoded.ok && decoded.messages[0]?.type === 'ack') return { bytes: effect.bytes, messages: decoded.messages.length };
  }
  return undefined;
}

function format(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function report(label: string, measured: { readonly opsPerSecond: number; readonly opsPerCpuSecond: number }, target = TARGET): void {
  const { opsPerSecond, opsPerCpuSecond } = measured;
  console.log(
    `${label}: ${format(opsPerSecond)} msg/s (target ${format(target)}: ${(opsPerSecond / target).toFixed(2)}x); ${format(opsPerCpuSecond)} per CPU second`,
  );
}

// --- run ----------------------------------------------------------------------------------------------

console.log('@swim/core throughput benchmark');
console.log(`command: pnpm bench core  (= cd packages/core && npx tsx bench/throughput.ts)`);
console.log(`node ${process.version} (${process.platform}-${process.arch}), one thread; each figure over >= ${MIN_MS} ms after warm-up`);
console.log('');

const pinger = 1;
const core = buildCore();
const stream = new UpdateStream(pinger);
const from = addressOf(pinger);

// Check the work is what it claims before timing it: the packet decodes to a ping + 6 updates,
// the updates change state, and the core answers with an ack.
{
  const first = stream.next();
  const decoded = decodePacket(first);
  if (!decoded.ok || decoded.messages.length !== 1 + UPDATES) throw new Error('benchmark packet does not decode to a ping + 6 updates');
  const before = core.counters;
  const effects = core.receivePacket(from, first, NOW);
  const ack = ackOf(effects);
  if (ack === undefined) throw new Error('the core did not answer the ping with an ack');
  const events = effects.filter((e) => e.type === 'member').length;
  if (events !== UPDATES / 2) throw new Error(`expected ${UPDATES / 2} suspect events from the first packet, got ${events}`);
  console.log(
    `packet in: ${first.length} B (ping + ${UPDATES} alive/suspect, ${stream.groups} groups of members rotating); ` +
      `ack out: ${ack.bytes.length} B with ${ack.messages - 1} piggybacked updates`,
  );
  if (core.counters.messagesIn - before.messagesIn !== 1 + UPDATES) throw new Error('the core did not count 7 messages in');
}

if (runs('applied')) {
  const eventsBefore = { suspicions: 0, recoveries: 0 };
  const handled = measureOpsPerSecond(() => {
    const effects = core.receivePacket(from, stream.next(), NOW);
    return effects.length;
  }, MIN_MS);

  // After the run: every update was applied (each member's incarnation follows the stream).
  {
    const effects = core.receivePacket(from, stream.next(), NOW);
    for (const e of effects) {
      if (e.type === 'member' && e.event === 'suspect') eventsBefore.suspicions++;
      if (e.type === 'member' && e.event === 'alive') eventsBefore.recoveries++;
    }
    const expectedEvents = UPDATES;
    const seen = eventsBefore.suspicions + eventsBefore.recoveries;
    if (seen !== expectedEvents) throw new Error(`a late packet changed ${seen} members' state, expected ${expectedEvents}`);
    const max = Math.max(...core.members().map((m) => m.incarnation));
    console.log(
      `state changes are real: a late packet gave ${eventsBefore.suspicions} suspect + ${eventsBefore.recoveries} alive-again events; ` +
        `highest incarnation ${format(max - UpdateStream.BASE)} above base`,
    );
  }
  console.log('');
  report(`ping+${UPDATES} handled, every update applied (decode + handle + encode ack), ${MEMBERS} members`, handled);
}

// The same packet shape when the receiver already knows what the updates say, as for most gossip
// in a stable cluster (each update reaches every member several times): after the first pass the
// alive updates are ignored and the suspects only re-confirm. A fresh core, so no earlier queue.
if (runs('known')) {
  const known = buildCore();
  const members = Array.from({ length: UPDATES }, (_, s) => 2 + s);
  const packet = encodePacket([
    { type: 'ping', seq: 4242, target: SELF, sourceName: nameOf(pinger), sourceAddress: from },
    ...members.map((m, s): Message =>
      s % 2 === 0
        ? { type: 'alive', incarnation: 1, node: nameOf(m), address: addressOf(m), meta: EMPTY }
        : { type: 'suspect', incarnation: 1, node: nameOf(m), from: nameOf(pinger) },
    ),
  ]);
  const redundant = measureOpsPerSecond(() => known.receivePacket(from, packet, NOW).length, MIN_MS);
  if (ackOf(known.receivePacket(from, packet, NOW)) === undefined) throw new Error('no ack for the redundant packet');
  report(`ping+${UPDATES} handled, updates already known after the first pass`, redundant, KNOWN_TARGET);
}

// A lone ping (no gossip in; the ack carries whatever the queue still holds) for comparison.
if (runs('lone')) {
  const lonePing = encodePacket([{ type: 'ping', seq: 7, target: SELF, sourceName: nameOf(pinger), sourceAddress: from }]);
  const lone = measureOpsPerSecond(() => core.receivePacket(from, lonePing, NOW).length, MIN_MS);
  report('lone ping handled', lone);
}
void consumeSink();

// --- the codec benchmark ------------------------------------------------------------------------------

if (ONLY === undefined) {
  console.log('');
  console.log('codec (bench/codec.ts):');
  const codecScript = fileURLToPath(new URL('./codec.ts', import.meta.url));
  // Under tsx, execArgv carries its loader, so the child runs TypeScript the same way.
  const child = spawnSync(process.execPath, [...process.execArgv, codecScript], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.status === 0) {
    for (const line of child.stdout.trimEnd().split('\n')) console.log(`  ${line}`);
  } else {
    console.log(`  the codec benchmark failed (exit ${child.status ?? child.signal}); run it alone: cd packages/core && npx tsx bench/codec.ts`);
    if (child.stderr) console.log(child.stderr.trimEnd().split('\n').slice(0, 10).map((l) => `  | ${l}`).join('\n'));
    process.exitCode = 1;
  }
}
