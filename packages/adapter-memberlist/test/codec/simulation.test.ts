// A whole cluster on the memberlist codec in the deterministic simulator: every packet and stream
// the core builds goes through memberlistCodec (members addressed by IP, as memberlist carries
// addresses), so the mapping holds up in both directions under real traffic.
import { Simulation, type SimEvent } from '@swim/transport-memory';
import { describe, expect, it } from 'vitest';
import { memberlistCodec, type MemberlistCodec } from '../../src/index.js';

const N = 16;
const SEEDS = [1, 2];

function cluster(seed: number, options: Parameters<typeof memberlistCodec>[0] = {}) {
  const codecs: MemberlistCodec[] = [];
  const sim = new Simulation({
    seed,
    addresses: 'ip',
    codec: () => {
      const codec = memberlistCodec(options);
      codecs.push(codec);
      return codec;
    },
  });
  const events: SimEvent[] = [];
  sim.onEvent((event) => events.push(event));
  sim.startCluster(N);
  sim.runUntil(() => sim.converged(), 30_000);
  return { sim, events, codecs };
}

/** Counters that mean the codec met something it could not read: all zero between our own members. */
function refusals(codecs: readonly MemberlistCodec[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const codec of codecs) {
    for (const key of ['crcFailures', 'inflateRefused', 'unknownParts', 'truncatedParts', 'malformedParts', 'versionRefused', 'pushPullsIncompatible', 'labelled', 'tooDeep'] as const) {
      total[key] = (total[key] ?? 0) + codec.counters[key];
    }
  }
  return total;
}

const NO_REFUSALS = {
  crcFailures: 0,
  inflateRefused: 0,
  unknownParts: 0,
  truncatedParts: 0,
  malformedParts: 0,
  versionRefused: 0,
  pushPullsIncompatible: 0,
  labelled: 0,
  tooDeep: 0,
};

describe('a cluster on the memberlist codec (simulator)', () => {
  it.each(SEEDS)('16 members converge with no suspicion, then a crash is seen dead by all others (seed %i)', (seed) => {
    const { sim, events, codecs } = cluster(seed);
    expect(codecs.length, `seed ${seed}`).toBe(N);
    sim.runFor(10_000);
    expect(sim.converged(), `seed ${seed}`).toBe(true);
    expect(events.filter((e) => e.kind === 'suspect' || e.kind === 'dead'), `seed ${seed}`).toEqual([]);
    const crashedAt = sim.now;
    sim.crash('n7');
    sim.runUntil(() => sim.allSee('n7', 'dead'), 60_000);
    const deaths = events.filter((e) => e.kind === 'dead');
    expect(deaths.every((e) => e.subject === 'n7' && e.at > crashedAt), `seed ${seed}: only n7 died`).toBe(true);
    expect(new Set(deaths.map((e) => e.observer)).size, `seed ${seed}`).toBe(N - 1);
    expect(refusals(codecs), `seed ${seed}`).toEqual(NO_REFUSALS);
  });

  it.each(SEEDS)('with LZW on and the CRC off, a member that leaves is seen left by all (seed %i)', (seed) => {
    const { sim, events, codecs } = cluster(seed, { compress: true, crc: false });
    sim.leave('n3');
    sim.runUntil(() => sim.allSee('n3', 'left'), 30_000);
    expect(sim.converged(), `seed ${seed}`).toBe(true);
    expect(events.filter((e) => e.kind === 'dead'), `seed ${seed}`).toEqual([]);
    expect(codecs.reduce((sum, codec) => sum + codec.counters.compressedIn, 0), `seed ${seed}: streams at least are compressed`).toBeGreaterThan(0);
    expect(refusals(codecs), `seed ${seed}`).toEqual(NO_REFUSALS);
  });
});
