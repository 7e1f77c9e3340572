// Vivaldi coordinates in a real protocol run (docs/design.md, "Network coordinates"): two regions
// 50 ms apart, members 1-5 ms apart inside a region, the lan preset, 2 minutes of virtual time.
// Every member's estimate of every other (own coordinate, the other's as last acked) against the
// true RTT of the simulated paths.
import { createRng, randomFloat } from '@swim/core';
import { describe, expect, it } from 'vitest';
import { pairLatency, Simulation, uniformLatency } from '../src/index.js';

const N = 12; // n0..n5 in region east, n6..n11 in region west
const CROSS_RTT_MS = 50;
const JITTER_MS = 0.2; // each leg: + uniform [0, 0.2) ms

const regionOf = (i: number) => (i < N / 2 ? 0 : 1);
const indexOf = (address: string) => Number(/^n(\d+):/.exec(address)![1]);

/**
 * A fixed RTT per pair, symmetric, from geography: each member sits at a point of a 2 x 2 ms square
 * in its region, behind an access link of 0-0.5 ms. Inside a region: 1 ms + the distance + both
 * access links (1 to 4.8 ms); across: 48 ms + the same (about 49 to 52 ms).
 */
function trueRtts(seed: number): number[][] {
  const rng = createRng(seed ^ 0x5eed);
  const place = Array.from({ length: N }, () => ({ x: 2 * randomFloat(rng), y: 2 * randomFloat(rng), access: 0.5 * randomFloat(rng) }));
  const rtt: number[][] = Array.from({ length: N }, () => new Array<number>(N).fill(0));
  for (let i = 0; i < N; i++) {
    for (let j = i + 1; j < N; j++) {
      const a = place[i]!;
      const b = place[j]!;
      const base = regionOf(i) === regionOf(j) ? 1 : CROSS_RTT_MS - 2;
      const ms = base + Math.hypot(a.x - b.x, a.y - b.y) + a.access + b.access;
      rtt[i]![j] = ms;
      rtt[j]![i] = ms;
    }
  }
  return rtt;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

describe('network coordinates in the simulator', () => {
  it.each([1, 2, 3, 4])('two regions 50 ms apart: every pair estimated, the median within 2 % of the true RTT after 2 minutes (seed %i)', (seed) => {
    const rtt = trueRtts(seed);
    // One-way: half the pair's RTT, plus jitter; the true RTT adds the mean jitter of both legs.
    const latency = pairLatency((from, to) => rtt[indexOf(from)]![indexOf(to)]! / 2, uniformLatency(0, JITTER_MS));
    const sim = new Simulation({ seed, latency, preset: 'lan' });
    sim.startCluster(N);
    sim.runFor(120_000);
    expect(sim.converged(), `seed ${seed}`).toBe(true);

    const errors: number[] = [];
    const inRegion: number[] = [];
    const across: number[] = [];
    let unknown = 0;
    for (let i = 0; i < N; i++) {
      const member = sim.member(`n${i}`);
      for (let j = 0; j < N; j++) {
        if (i === j) continue;
        const estimate = member.estimateRtt(`n${j}`);
        if (estimate === undefined) {
          unknown++;
          continue;
        }
        const truth = rtt[i]![j]! + JITTER_MS; // two legs of mean jitter JITTER_MS / 2
        const error = Math.abs(estimate - truth) / truth;
        errors.push(error);
        (regionOf(i) === regionOf(j) ? inRegion : across).push(error);
      }
    }
    for (const list of [errors, inRegion, across]) list.sort((a, b) => a - b);
    const median = quantile(errors, 0.5);
    const p90 = quantile(errors, 0.9);
    const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
    const ownErrors = sim.members().map((m) => m.coordinate()!.error);
    console.log(
      `coordinates, seed ${seed}: ${errors.length} pairs, relative error median ${pct(median)}, p90 ${pct(p90)}, max ${pct(errors.at(-1)!)}; ` +
        `across regions (50 ms) median ${pct(quantile(across, 0.5))}, p90 ${pct(quantile(across, 0.9))}; ` +
        `in a region (1-5 ms) median ${pct(quantile(inRegion, 0.5))}, p90 ${pct(quantile(inRegion, 0.9))}; ` +
        `members' own error ${Math.min(...ownErrors).toFixed(3)}..${Math.max(...ownErrors).toFixed(3)}`,
    );
    // Every member probed every other within 2 minutes (12 members, 1 s probes): every pair has an estimate.
    expect(unknown, `seed ${seed}`).toBe(0);
    // Serf's own coordinate tests accept errors of a few ms on 10-50 ms links; the core's convergence
    // test (clean samples) measured 0.48-0.58 %. This run (seeds 1-6, 2 min, jitter, the latency
    // filter, gossip traffic) measured: all pairs median 0.9-1.4 %, p90 18-28 %; across regions
    // median 0.4-0.8 %; inside a region median 7-14 %, p90 27-46 % (a 0.1-0.5 ms miss on a 1-5 ms
    // path is a large share of it). The bounds sit above what was measured, not far above.
    expect(median, `median relative error, all pairs (seed ${seed})`).toBeLessThan(0.02);
    expect(quantile(across, 0.5), `median relative error across regions (seed ${seed})`).toBeLessThan(0.015);
    expect(quantile(inRegion, 0.5), `median relative error inside a region (seed ${seed})`).toBeLessThan(0.25);
    expect(p90, `p90 relative error, all pairs (seed ${seed})`).toBeLessThan(0.4);
  });
});
