/**
 * The receive path of a simulated join storm's common case, for two builds of the core in one
 * process: many cores (one simulated process holds them all), each knowing every member, are
 * handed packets of alive updates they already hold, at random. Each packet lands in a cold
 * table, as in a storm, where ~11 of 12 alives a member receives it knows already. Interleaved
 * bursts of each build (ab.ts's method), msg (updates) per CPU second, median and best.
 *
 * Run: cd packages/core && npx tsx bench/known-at-scale.ts --a <core package dir> --b <core package dir>
 *      [--cores 1000] [--members 1000] [--updates 40] [--bursts 16] [--burst-ms 300]
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Message, SwimCore } from '../src/index.js';
import type { SwimModule } from './receive-cases.js';
import { interleavedBursts, printRates, type Build } from './interleaved.js';

const { values: flags } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    cores: { type: 'string', default: '1000' },
    members: { type: 'string', default: '1000' },
    updates: { type: 'string', default: '40' },
    bursts: { type: 'string', default: '16' },
    'burst-ms': { type: 'string', default: '300' },
  },
});
const problems: string[] = [];
if (flags.a === undefined) problems.push('--a <core package dir> is required');
if (flags.b === undefined) problems.push('--b <core package dir> is required');
const positive = (name: 'cores' | 'members' | 'updates' | 'bursts' | 'burst-ms', min: number): number => {
  const value = Number(flags[name]);
  if (!Number.isInteger(value) || value < min) problems.push(`--${name} takes an integer >= ${min}; got ${flags[name]}`);
  return value;
};
const CORES = positive('cores', 1);
const MEMBERS = positive('members', 2);
const UPDATES = positive('updates', 1);
const BURSTS = positive('bursts', 2);
const BURST_MS = positive('burst-ms', 10);
if (problems.length > 0) throw new Error(problems.join('; '));

const nameOf = (i: number) => `n${i}`;
const addressOf = (i: number) => `n${i}:7946`;
const EMPTY = new Uint8Array(0);
const NOW = 1_000;

/** Deterministic draws (xorshift32), so both builds get the same packets in the same order. */
function draws(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}

async function load(label: string, dir: string): Promise<Build> {
  const swim = (await import(pathToFileURL(resolve(dir, 'src/index.ts')).href)) as SwimModule;
  const everyone = Array.from({ length: MEMBERS }, (_, i) => ({ name: nameOf(i), address: addressOf(i), meta: EMPTY, incarnation: 1, state: 'alive' as const }));
  const state = swim.encodePacket([{ type: 'push-pull', join: true, members: everyone, userState: EMPTY }]);
  const cores: SwimCore[] = [];
  for (let c = 0; c < CORES; c++) {
    const core = new swim.SwimCore({ name: nameOf(c % MEMBERS), address: addressOf(c % MEMBERS), seed: c + 1, now: 0 });
    const request = core.join([addressOf((c + 1) % MEMBERS)], 1, 0).find((e) => e.type === 'stream-request');
    if (request?.type !== 'stream-request') throw new Error('the join opened no stream');
    core.step({ type: 'stream-response', requestId: request.requestId, bytes: state }, 0);
    // A large push-pull is merged in slices, one per tick.
    for (let tick = 0; tick < 100 && core.members().length < MEMBERS; tick++) core.tick(1 + tick);
    if (core.members().length !== MEMBERS) throw new Error(`core ${c} knows ${core.members().length} members`);
    cores.push(core);
  }
  const draw = draws(7);
  const packets = Array.from({ length: 256 }, () =>
    swim.encodePacket(
      Array.from({ length: UPDATES }, (): Message => {
        const m = Math.floor(draw() * MEMBERS);
        return { type: 'alive', incarnation: 1, node: nameOf(m), address: addressOf(m), meta: EMPTY };
      }),
    ),
  );
  const order = draws(11);
  const from = addressOf(1);
  const run = (count: number) => {
    let effects = 0;
    for (let i = 0; i < count; i++) {
      const core = cores[Math.floor(order() * CORES)]!;
      effects += core.receivePacket(from, packets[i & 255]!, NOW).length;
    }
    return effects;
  };
  return { label: `${label} (${dir})`, run };
}

const builds = [await load('a', flags.a as string), await load('b', flags.b as string)];
const rates = interleavedBursts(builds, { bursts: BURSTS, burstMs: BURST_MS, perPacket: UPDATES });
console.log(`known alives at scale: ${CORES} cores × ${MEMBERS} members, ${UPDATES} per packet; ${BURSTS} bursts of ${BURST_MS} ms each, updates per CPU second`);
printRates(builds, rates);
