import { describe, expect, it } from 'vitest';
import { createRng, memberlistProfile, presets, randomFloat, shuffleInPlace } from '@swim/core';
import { Simulation } from '../src/index.js';

const SEEDS = [1, 2, 3];

/**
 * memberlist issue #311's case, made exact: a member declared dead by everyone restarts (back at
 * incarnation 1) and rejoins through a member that restarted too and never heard of its death.
 */
function deadMemberRejoinsThroughAFreshOne(seed: number, config: ReturnType<typeof presets.lan>): Simulation {
  const sim = new Simulation({ seed, config });
  sim.startCluster(8);
  sim.runUntil(() => sim.converged(), 30_000);
  sim.crash('n7');
  sim.runUntil(() => sim.allSee('n7', 'dead'), 60_000);
  sim.runFor(5_000); // the death's gossip has run out of retransmits
  sim.crash('n1');
  sim.restart('n1', { seeds: ['n2'] });
  sim.runUntil(() => sim.converged(), 10_000);
  expect(sim.member('n1').member('n7'), `seed ${seed}: the fresh n1 never heard of n7`).toBeUndefined();
  sim.restart('n7', { seeds: ['n1'] });
  return sim;
}

describe('a member held dead rejoins through a member that never heard of its death', () => {
  it.each(SEEDS)('our defaults: everyone sees it alive within 2 s (seed %i)', (seed) => {
    const sim = deadMemberRejoinsThroughAFreshOne(seed, presets.lan());
    const took = sim.runUntil(() => sim.converged(), 2_000);
    expect(sim.member('n7').incarnation, `seed ${seed}: it refuted its death (${took} ms)`).toBe(2);
  });

  it.each(SEEDS)('memberlistProfile keeps memberlist: its peers still hold it dead 5 s later (seed %i)', (seed) => {
    const sim = deadMemberRejoinsThroughAFreshOne(seed, memberlistProfile(presets.lan()));
    sim.runFor(5_000);
    const holders = sim.liveMembers().filter((m) => m.member('n7')?.state === 'dead');
    expect(holders.length, `seed ${seed}`).toBeGreaterThan(0);
    expect(sim.member('n7').incarnation, `seed ${seed}: nothing told it`).toBe(1);
  });
});

/**
 * A whole-cluster restart wave (the report): 48 members, every one killed within 25 s and
 * down 10-30 s, most past the suspicion timeout, each rejoining through the 3 running members that
 * restarted last. Our defaults converge within 30 s of the last restart.
 */
describe('a whole-cluster restart wave converges within 30 s of the last restart', () => {
  it.each(SEEDS)('48 members, our defaults (seed %i)', (seed) => {
    const n = 48;
    const sim = new Simulation({ seed, config: presets.lan() });
    sim.formCluster(n);
    sim.runFor(10_000);
    const rng = createRng(seed + 7);
    const order = Array.from({ length: n }, (_, i) => i);
    shuffleInPlace(rng, order);
    const start = sim.now;
    const restarted: string[] = [];
    let last = 0;
    for (const i of order) {
      const name = `n${i}`;
      const crashAt = start + Math.floor(25_000 * randomFloat(rng));
      const restartAt = crashAt + 10_000 + Math.floor(20_000 * randomFloat(rng));
      last = Math.max(last, restartAt);
      sim.clock.schedule(crashAt, () => sim.crash(name));
      sim.clock.schedule(restartAt, () => {
        const running = restarted.filter((r) => !sim.network.isCrashed(sim.addressOf(r)));
        const seeds = running.slice(-3);
        if (seeds.length === 0) seeds.push(...sim.liveMembers().slice(0, 3).map((m) => m.name));
        const member = sim.restart(name);
        member.join(seeds.map((s) => sim.addressOf(s)), { retry: { intervalMs: 1_000, max: 0 } }).catch(() => undefined);
        restarted.push(name);
      });
    }
    sim.runFor(last - start);
    expect(sim.liveMembers().length, `seed ${seed}`).toBe(n);
    const took = sim.runUntil(() => sim.converged(), 30_000);
    expect(took, `seed ${seed}`).toBeLessThanOrEqual(30_000);
  });
});
