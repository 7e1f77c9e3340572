import { describe, expect, it } from 'vitest';
import { createRng, randomFloat, randomInt, VivaldiClient } from '../src/index.js';

// Does the port converge as Serf's does? A seeded simulation in the style of serf
// coordinate/phantom.go Simulate: each round, every node samples one random peer (skipping
// itself) with the true RTT and the peer's current coordinate, then the estimates are scored
// pairwise as serf Evaluate does (|estimate - truth| / truth).
//
// The truth: 16 nodes in two clusters 50 ms apart. Each node sits in a 3 ms square around its
// cluster's centre and has an access link (height) of 0.25-0.75 ms, so RTTs inside a cluster are
// 0.5-5.7 ms and across about 50 ms. A plane with heights embeds this exactly, as serf's
// TestPerformance_Grid and TestPerformance_Height truths do.
//
// Bounds. Serf's performance_test.go accepts, after 1000 cycles: a mean relative error of 0.006 %
// (TestPerformance_Split, 1 ms LAN + 10 ms WAN, 25 nodes), 0.15 % (TestPerformance_Grid), 0.25 %
// (TestPerformance_Height), 7.5 % (TestPerformance_Random, which no space embeds). Those numbers
// fit one Go random stream: Serf loosened them when it only re-plumbed its generator after 0.9.4
// (TestPerformance_Line 0.18 % to 0.31 %, Height 0.25 % to 0.28 %), so they are not bounds for
// other seeds. Serf 0.9.4 itself, run on this scenario for seeds 1-20 (300 rounds), ends with a
// median error of 0.27-0.70 % over all pairs and 5.7-9.6 % over the pairs inside a cluster; this
// port, 0.32-0.66 % and 4.3-9.5 %. The pairs inside a cluster are the hard ones: their RTTs are a
// tenth of the distance that dominates each node's samples. The bounds below are about three and
// two times the worst of those seeds. Broken arithmetic lands far above them: before any sample
// the median error is 100 % (fresh coordinates predict 20 µs for everything).

const NODES = 16;
const ROUNDS = 300;
const MEDIAN_BOUND = 0.02;
const INTRA_CLUSTER_MEDIAN_BOUND = 0.2;
/** The nodes' own error estimate (the `error` users read): 0.03-0.07 at the end for seeds 1-20; 1.5 before any sample. */
const SELF_ERROR_BOUND = 0.25;

function twoClusters(seed: number): number[][] {
  const rng = createRng(seed);
  const points = Array.from({ length: NODES }, (_, i) => ({
    x: (i < NODES / 2 ? 0 : 0.05) + (randomFloat(rng) - 0.5) * 0.003,
    y: (randomFloat(rng) - 0.5) * 0.003,
    height: 0.00025 + randomFloat(rng) * 0.0005,
  }));
  // Whole nanoseconds, as the Go truth matrices hold time.Duration values.
  return points.map((p, i) =>
    points.map((q, j) => (i === j ? 0 : Math.trunc((Math.hypot(p.x - q.x, p.y - q.y) + p.height + q.height) * 1e9) / 1e9)),
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function simulate(seed: number, rounds: number) {
  const truth = twoClusters(seed);
  const rng = createRng(seed + 0.5);
  const clients = Array.from({ length: NODES }, () => new VivaldiClient({ rng }));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < NODES; i++) {
      const j = randomInt(rng, NODES);
      if (j !== i) clients[i]!.update(`n${j}`, clients[j]!.coordinate(), truth[i]![j]!);
    }
  }
  const all: number[] = [];
  const intraCluster: number[] = [];
  for (let i = 0; i < NODES; i++) {
    for (let j = i + 1; j < NODES; j++) {
      const actual = truth[i]![j]!;
      const error = Math.abs(clients[i]!.distanceTo(clients[j]!.coordinate())! - actual) / actual;
      all.push(error);
      if (i < NODES / 2 === j < NODES / 2) intraCluster.push(error);
    }
  }
  return {
    median: median(all),
    intraClusterMedian: median(intraCluster),
    selfError: median(clients.map((c) => c.error)),
    resets: clients.reduce((sum, c) => sum + c.stats().resets, 0),
  };
}

describe('Vivaldi convergence (seeded simulation, two clusters 50 ms apart)', () => {
  it.each([1, 2, 3, 4, 5])('seed %i: estimates end within the bounds after 300 rounds', (seed) => {
    const result = simulate(seed, ROUNDS);
    const at = `seed ${seed}: ${JSON.stringify(result)}`;
    expect(result.median, at).toBeLessThan(MEDIAN_BOUND);
    expect(result.intraClusterMedian, at).toBeLessThan(INTRA_CLUSTER_MEDIAN_BOUND);
    expect(result.selfError, at).toBeLessThan(SELF_ERROR_BOUND);
    expect(result.resets, at).toBe(0);
  });

  it('before any sample the same scoring finds every estimate wrong, so the bounds measure learning', () => {
    const result = simulate(1, 0);
    expect(result.median).toBeGreaterThan(0.99);
    expect(result.selfError).toBe(1.5);
  });
});
