import { describe, expect, it } from 'vitest';
import { Cluster } from './harness/cluster.js';

function names(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `n${i}`);
}

/** Start `n` members and join them all through the first one. */
function startCluster(n: number, seed: number): Cluster {
  const cluster = new Cluster({ seed });
  for (const name of names(n)) cluster.add(name);
  for (const name of names(n).slice(1)) cluster.join(name, ['n0']);
  return cluster;
}

function everyoneSees(cluster: Cluster, subject: string, state: string, observers = cluster.live().map((n) => n.name)): boolean {
  return observers.filter((o) => o !== subject).every((o) => cluster.stateOf(o, subject) === state);
}

function converged(cluster: Cluster, n: number): boolean {
  return cluster.live().every((node) => node.core.members().filter((m) => m.state === 'alive').length === n);
}

describe('a simulated cluster (virtual time, real codec)', () => {
  it.each([1, 2, 3])('16 members converge from one seed (seed %i)', (seed) => {
    const cluster = startCluster(16, seed);
    const took = cluster.runUntil(() => converged(cluster, 16), 30_000);
    expect(took, `seed ${seed}`).toBeLessThan(30_000);
    // Nobody was ever suspected on a healthy network.
    for (const node of cluster.live()) {
      expect(node.events.filter((e) => e.effect.event === 'suspect' || e.effect.event === 'dead'), `seed ${seed}, ${node.name}`).toEqual([]);
    }
  });

  it.each([1, 2, 3])('a crashed member is declared dead by every other member (seed %i)', (seed) => {
    const cluster = startCluster(16, seed);
    cluster.runUntil(() => converged(cluster, 16), 30_000);
    cluster.run(5_000);
    cluster.crash('n7');
    // Bound: one probe pass (16 s at most), the suspicion max for n = 16 (6 x 4.816 s), and gossip.
    cluster.runUntil(() => everyoneSees(cluster, 'n7', 'dead'), 60_000);
    const verdicts = cluster.live().flatMap((n) => n.events.filter((e) => e.effect.event === 'dead'));
    expect(verdicts.every((e) => e.effect.member.name === 'n7'), `seed ${seed}: only n7 died`).toBe(true);
    expect(verdicts.some((e) => e.effect.cause?.kind === 'timeout'), `seed ${seed}`).toBe(true);
  });

  it.each([1, 2, 3])('a paused member is suspected, refutes after resuming and nobody declares it dead (seed %i)', (seed) => {
    const cluster = startCluster(16, seed);
    cluster.runUntil(() => converged(cluster, 16), 30_000);
    cluster.run(5_000);
    cluster.pause('n5');
    // Long enough to be probed and suspected, shorter than the suspicion min (4.8 s at n = 16) after it.
    cluster.runUntil(() => cluster.live().some((n) => cluster.stateOf(n.name, 'n5') === 'suspect'), 20_000);
    cluster.run(1_000);
    cluster.resume('n5');
    cluster.runUntil(() => everyoneSees(cluster, 'n5', 'alive'), 30_000);
    const n5 = cluster.node('n5').core;
    expect(n5.counters.refutations, `seed ${seed}`).toBeGreaterThan(0);
    expect(n5.incarnation, `seed ${seed}`).toBeGreaterThan(1);
    const deaths = cluster.live().flatMap((n) => n.events.filter((e) => e.effect.event === 'dead'));
    expect(deaths, `seed ${seed}`).toEqual([]);
  });

  it.each([1, 2, 3])('a member that leaves is seen as left by everyone (seed %i)', (seed) => {
    const cluster = startCluster(16, seed);
    cluster.runUntil(() => converged(cluster, 16), 30_000);
    cluster.leave('n3');
    const finished = () => cluster.node('n3').effects.some((e) => e.effect.type === 'broadcast-finished' && e.effect.token === 'leave');
    cluster.runUntil(() => everyoneSees(cluster, 'n3', 'left') && finished(), 30_000);
    const deaths = cluster.live().flatMap((n) => n.events.filter((e) => e.effect.event === 'dead'));
    expect(deaths, `seed ${seed}: a leave is not a death`).toEqual([]);
  });

  it('the same seed replays the same run exactly', () => {
    const trace = (seed: number) => {
      const cluster = startCluster(8, seed);
      cluster.run(20_000);
      cluster.crash('n2');
      cluster.run(40_000);
      return cluster.live().map((n) => n.events.map((e) => `${e.at}:${e.effect.event}:${e.effect.member.name}`).join(','));
    };
    expect(trace(42)).toEqual(trace(42));
    expect(trace(42)).not.toEqual(trace(43));
  });
});
