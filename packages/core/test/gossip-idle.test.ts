import { describe, expect, it } from 'vitest';
import { decodePacket, type Effect, type SwimCore } from '../src/index.js';
import { Cluster } from './harness/cluster.js';

const GOSSIP_INTERVAL_MS = 200;

/** Every tick a core gets, and the gossip packets (updates first, sent from a tick) it sends. */
function watch(core: SwimCore): { ticks: number[]; gossipAt: number[] } {
  const seen = { ticks: [] as number[], gossipAt: [] as number[] };
  const tick = core.tick.bind(core);
  core.tick = (now: number): Effect[] => {
    seen.ticks.push(now);
    const effects = tick(now);
    for (const effect of effects) {
      if (effect.type !== 'send-packet') continue;
      const decoded = decodePacket(effect.bytes);
      const first = decoded.ok ? decoded.messages[0]?.type : undefined;
      if (first === 'alive' || first === 'suspect' || first === 'dead') seen.gossipAt.push(now);
    }
    return effects;
  };
  return seen;
}

/** Four members, watched from the start, converged and then quiet (every update sent its last time). */
function quietCluster(seed: number): { cluster: Cluster; watched: Array<{ ticks: number[]; gossipAt: number[] }> } {
  const cluster = new Cluster({ seed });
  const watched = ['n0', 'n1', 'n2', 'n3'].map((name) => watch(cluster.add(name).core));
  for (const name of ['n1', 'n2', 'n3']) cluster.join(name, ['n0']);
  cluster.runUntil(() => cluster.live().every((n) => n.core.members().length === 4), 10_000);
  cluster.runUntil(() => cluster.live().every((n) => n.core.queuedBroadcasts === 0), 30_000);
  return { cluster, watched };
}

/** The gossip tick is skipped while nothing is queued (an empty tick sends nothing), and resumes on its grid. */
describe('gossip tick while the queue is empty', () => {
  it('a quiet member wakes for its probes, not five more times a second for empty gossip ticks', () => {
    const { cluster, watched } = quietCluster(3);
    const from = watched.map((seen) => seen.ticks.length);
    const gossipFrom = watched.map((seen) => seen.gossipAt.length);
    cluster.run(20_000);
    for (const [i, seen] of watched.entries()) {
      // One probe a second sets a probe tick and its end (the ack cancels the timeout); empty gossip ticks would add five.
      expect((seen.ticks.length - from[i]!) / 20, `n${i} ticks per second`).toBeLessThan(3);
      expect(seen.gossipAt.length, `n${i}`).toBe(gossipFrom[i]);
    }
  });

  it('news wakes the tick at a time on the grid it kept before it went idle', () => {
    const { cluster, watched } = quietCluster(4);
    const before = watched.map((seen) => seen.gossipAt.length);
    // n1's new meta is news for everyone: it is gossiped from a tick, by n1 and by those who learn it.
    cluster.perform('n1', (core, now) => core.updateMeta(Uint8Array.of(7), now));
    cluster.run(5_000);
    expect(cluster.live().every((n) => n.core.member('n1')?.meta[0] === 7)).toBe(true);
    for (const [i, seen] of watched.entries()) {
      expect(before[i], `n${i} gossiped while joining`).toBeGreaterThan(0);
      expect(seen.gossipAt.length, `n${i} gossiped the news`).toBeGreaterThan(before[i]!);
      // Every gossip tick, before and after the quiet spell, on one grid of the gossip interval.
      const origin = seen.gossipAt[0]!;
      for (const at of seen.gossipAt) {
        const steps = (at - origin) / GOSSIP_INTERVAL_MS;
        expect(Math.abs(steps - Math.round(steps)), `n${i} gossip at ${at}, first at ${origin}`).toBeLessThan(1e-6);
      }
    }
  });
});
