import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { distanceNanoseconds, VivaldiClient, type Coordinate, type Rng, type VivaldiConfig, type VivaldiRejection } from '../src/index.js';

// Update sequences run through Serf's own coordinate package (0.9.4, Debian's
// golang-github-hashicorp-serf-dev) by serf-coordinate/generate.go, with every result Serf returned:
// eight of random samples (rejected RTTs and dimensions among them; the error mostly stays at its
// ceiling) and eight of a fresh observer joining a settled cluster with jittered RTTs (its error
// falls, so the error update's rounding counts), each set over eight configs: the defaults twice,
// 2 and 3 dimensions, HeightMin 0, no adjustment window, filters of 1 and 5, gains that are not
// powers of two. Our port must give the same coordinates and distances, bit for bit, and reject
// the same samples. Regenerate with the command in generate.go.

interface Step {
  readonly node: string;
  readonly peer?: Coordinate;
  readonly rttNs: number;
  readonly result?: Coordinate;
  readonly distanceNs?: number;
  readonly rejected?: string;
}
interface Sequence {
  readonly config: Omit<VivaldiConfig, 'maxTrackedNodes' | 'maxCoordinateSeconds'>;
  readonly steps: readonly Step[];
}

const fixture = JSON.parse(readFileSync(new URL('./serf-coordinate/serf-0.9.4.json', import.meta.url), 'utf8')) as {
  readonly sequences: readonly Sequence[];
};

/** Serf's error text for each of our reasons (client.go checkCoordinate and Update). */
const SERF_ERRORS: Record<VivaldiRejection, string> = {
  'incompatible-dimensions': "dimensions aren't compatible",
  'invalid-coordinate': 'coordinate is invalid',
  'implausible-coordinate': '(Serf has no such rejection)',
  'rtt-out-of-range': 'round trip time not in valid range',
};

/** The sequences never put a peer on our point, so the random direction is never drawn. */
const noDraws: Rng = {
  nextUint32: () => {
    throw new Error('drew a random direction, which Serf did not');
  },
};

describe('replays Serf coordinate 0.9.4 on random sequences, bit for bit', () => {
  it('the fixture holds what the generator writes', () => {
    expect(fixture.sequences).toHaveLength(16);
    const steps = fixture.sequences.flatMap((s) => s.steps);
    expect(steps.filter((s) => s.rejected !== undefined).length).toBeGreaterThan(15);
    expect(steps.filter((s) => s.result !== undefined).length).toBeGreaterThan(400);
    // The observers converge: their error ends far below the ceiling, so its rounding counts.
    expect(fixture.sequences.slice(8).every((s) => s.steps.at(-1)!.result!.error < 0.5)).toBe(true);
  });

  it.each(fixture.sequences.map((sequence, i) => [i, sequence] as const))('sequence %i', (_i, sequence) => {
    // Serf takes peers at any finite distance; the random peers here reach 54 s.
    const client = new VivaldiClient({ rng: noDraws, config: { ...sequence.config, maxCoordinateSeconds: Number.MAX_VALUE } });
    const peers = new Map<string, Coordinate>();
    sequence.steps.forEach((step, n) => {
      if (step.peer !== undefined) peers.set(step.node, step.peer);
      const peer = peers.get(step.node)!;
      const result = client.update(step.node, peer, step.rttNs / 1e9);
      const where = `step ${n} (${step.node}, ${step.rttNs} ns)`;
      if (step.rejected !== undefined) {
        expect(result.kind, where).toBe('rejected');
        if (result.kind === 'rejected') expect(step.rejected, where).toContain(SERF_ERRORS[result.reason]);
      } else {
        expect(result, where).toEqual({ kind: 'updated', coordinate: step.result });
        expect(distanceNanoseconds(client.coordinate(), peer), where).toBe(step.distanceNs);
      }
    });
  });
});
