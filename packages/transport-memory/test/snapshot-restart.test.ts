import { describe, expect, it } from 'vitest';
import { Member, parseSnapshot, snapshotSeeds } from '@swim/runtime';
import { Simulation } from '../src/index.js';

const N = 8;
const SEEDS = [1, 2, 3];

/**
 * A member killed (kill -9), declared dead by everyone, then restarted from the snapshot it kept
 * (MemberOptions.restore, Serf's snapshot and -rejoin): it starts above the incarnation everyone
 * holds it dead at, so its first alive is news to all of them at once.
 */
describe('restart from a snapshot', () => {
  it.each(SEEDS)('a member restarted from its snapshot after being declared dead is seen alive again by everyone within 2 s (seed %i)', async (seed) => {
    const sim = new Simulation({ seed });
    sim.startCluster(N);
    sim.runUntil(() => sim.converged(), 30_000);
    sim.runFor(5_000);
    const victim = 'n5';
    // What the agent would have on disk: the snapshot as JSON, taken just before the crash.
    const saved = JSON.stringify(sim.member(victim).snapshot());
    sim.crash(victim);
    sim.runUntil(() => sim.allSee(victim, 'dead'), 30_000);
    const deadAt = Math.max(...sim.liveMembers().map((m) => m.member(victim)!.incarnation));

    const snapshot = parseSnapshot(JSON.parse(saved), { name: victim });
    expect(snapshot.members.length, `seed ${seed}`).toBe(N - 1);
    const restarted = new Member({ name: victim, transport: sim.network.transport(sim.addressOf(victim)), clock: sim.clock, seed: seed + 1000, restore: snapshot });
    expect(restarted.incarnation, `seed ${seed}`).toBeGreaterThan(deadAt);
    // Serf -rejoin: the members it knew are its seeds (it was not left).
    expect(snapshot.left).toBe(false);
    const joining = restarted.join(snapshotSeeds(snapshot));
    const others = sim.liveMembers();
    const took = sim.runUntil(() => others.every((m) => m.member(victim)?.state === 'alive'), 10_000, 10);
    expect(took, `seed ${seed}: ${took} ms until everyone held ${victim} alive again`).toBeLessThan(2_000);
    for (const m of others) expect(m.member(victim)!.incarnation, `seed ${seed}, ${m.name}`).toBe(restarted.incarnation);
    // It needed no refutation: it came back above the verdict.
    expect(restarted.counters.refutations, `seed ${seed}`).toBe(0);
    sim.runFor(1_000);
    const result = await joining;
    expect(result.contacted.length, `seed ${seed}`).toBe(N - 1);
    expect(result.failed, `seed ${seed}`).toEqual([]);
    // And it holds them all alive too.
    expect(restarted.members().length, `seed ${seed}`).toBe(N);
    void restarted.close();
  });
});
