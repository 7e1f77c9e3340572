import { randomFloat, type Rng } from '../support/rng.js';
import { goDuration, goDurationSeconds } from '../support/go-math.js';

/**
 * A Vivaldi network coordinate (serf coordinate/coordinate.go Coordinate). Every distance is in
 * seconds of round-trip time. Coordinates are values: nothing here mutates one.
 */
export interface Coordinate {
  /** The Euclidean part, seconds; Serf's wire carries 8 components. */
  readonly vec: readonly number[];
  /**
   * How unsure the node is of its own coordinate, dimensionless: `vivaldiErrorMax` (1.5) when it
   * has measured nothing, falling toward 0 as its predictions come true (Vivaldi's "adaptive
   * timestep", Dabek et al. 2004). Serf's `Error`.
   */
  readonly error: number;
  /**
   * Seconds added to every distance from this node, learnt from how its raw predictions miss
   * (Serf's `Adjustment`, after Lee et al., "On suitability of Euclidean embedding for host-based
   * network coordinate systems", 2010). Only used while the adjusted distance stays positive.
   */
  readonly adjustment: number;
  /**
   * Seconds added to every distance from this node, for its access link (Vivaldi's "height
   * vectors"); never below `heightMin`.
   */
  readonly height: number;
}

/** The fields of the config that shape a fresh coordinate. */
export interface CoordinateShape {
  /** Components of `vec` (Serf Dimensionality, 8). */
  readonly dimensionality: number;
  /** A fresh coordinate's `error`, and the most it grows to (Serf VivaldiErrorMax, 1.5). */
  readonly vivaldiErrorMax: number;
  /** A fresh coordinate's `height`, and the least it shrinks to, seconds (Serf HeightMin, 10 µs). */
  readonly heightMin: number;
}

/** Below this, two points coincide and an RTT counts as zero (serf coordinate.go zeroThreshold). */
export const ZERO_THRESHOLD = 1.0e-6;

/** Seconds to nanoseconds (serf coordinate.go secondsToNanoseconds). */
const SECONDS_TO_NANOSECONDS = 1.0e9;

/**
 * A coordinate at the origin, as unsure as can be (serf coordinate.go NewCoordinate): `vec` all
 * zeros, `error` = `vivaldiErrorMax`, `adjustment` 0, `height` = `heightMin`. Frozen.
 */
export function newCoordinate(config: CoordinateShape): Coordinate {
  return freezeCoordinate(new Array<number>(config.dimensionality).fill(0), config.vivaldiErrorMax, 0, config.heightMin);
}

/** A frozen coordinate holding `vec` itself, frozen too (so only pass an array nobody else changes). */
export function freezeCoordinate(vec: readonly number[], error: number, adjustment: number, height: number): Coordinate {
  return Object.freeze({ vec: Object.freeze(vec), error, adjustment, height });
}

/** A frozen copy, so later changes to `c` or its `vec` cannot reach us (serf coordinate.go Clone). */
export function copyCoordinate(c: Coordinate): Coordinate {
  return freezeCoordinate([...c.vec], c.error, c.adjustment, c.height);
}

/**
 * No component is NaN or ±Infinity (serf coordinate.go IsValid). Also false when `vec` is not an
 * array or a component is not a number, which a typed caller never passes.
 */
export function isValidCoordinate(c: Coordinate): boolean {
  if (!Array.isArray(c.vec)) return false;
  for (const v of c.vec) if (!Number.isFinite(v)) return false;
  return Number.isFinite(c.error) && Number.isFinite(c.adjustment) && Number.isFinite(c.height);
}

/** Same number of dimensions (serf coordinate.go IsCompatibleWith). */
export function isCompatible(a: Coordinate, b: Coordinate): boolean {
  return a.vec.length === b.vec.length;
}

/**
 * Serf coordinate.go rawDistanceTo, seconds: |a.vec − b.vec| + a.height + b.height, without the
 * adjustments. The sums go in Serf's order (a's height, then b's), which the last bit depends on.
 * Assumes compatible dimensions.
 */
export function rawDistance(a: Coordinate, b: Coordinate): number {
  return magnitudeOfDifference(a.vec, b.vec) + a.height + b.height;
}

/**
 * Serf coordinate.go DistanceTo as Go computes it: the raw distance, plus both adjustments when
 * that sum stays positive, converted to a whole number of nanoseconds truncated toward zero
 * (`time.Duration(dist * 1e9)`). Assumes compatible dimensions.
 */
export function distanceNanosecondsUnchecked(a: Coordinate, b: Coordinate): number {
  let dist = rawDistance(a, b);
  const adjusted = dist + a.adjustment + b.adjustment;
  if (adjusted > 0.0) dist = adjusted;
  return goDuration(dist * SECONDS_TO_NANOSECONDS);
}

/**
 * The estimated round-trip time between `a` and `b`, whole nanoseconds: serf coordinate.go
 * DistanceTo (what `serf rtt` prints, in ms). Undefined when the dimensions differ (Serf panics)
 * or either coordinate is invalid.
 */
export function distanceNanoseconds(a: Coordinate, b: Coordinate): number | undefined {
  if (!isCompatible(a, b) || !isValidCoordinate(a) || !isValidCoordinate(b)) return undefined;
  return distanceNanosecondsUnchecked(a, b);
}

/**
 * The estimated round-trip time between `a` and `b`, seconds: serf `DistanceTo(…).Seconds()`,
 * so a multiple of 1 ns. Undefined when the dimensions differ or either coordinate is invalid.
 */
export function distanceSeconds(a: Coordinate, b: Coordinate): number | undefined {
  const ns = distanceNanoseconds(a, b);
  return ns === undefined ? undefined : goDurationSeconds(ns);
}

// --- vector arithmetic (serf coordinate.go add, diff, mul, magnitude, unitVectorAt) ---
// Element by element in Serf's order, so every result rounds as Go's does.

/** |v1 − v2|: serf `magnitude(diff(v1, v2))`, without the intermediate array. */
export function magnitudeOfDifference(v1: readonly number[], v2: readonly number[]): number {
  let sum = 0.0;
  for (let i = 0; i < v1.length; i++) {
    const d = v1[i]! - v2[i]!;
    sum += d * d;
  }
  return Math.sqrt(sum);
}

/** |v| (serf coordinate.go magnitude). */
export function magnitude(v: readonly number[]): number {
  let sum = 0.0;
  for (const x of v) sum += x * x;
  return Math.sqrt(sum);
}

/**
 * A unit vector pointing at `v1` from `v2`, and the distance between them (serf coordinate.go
 * unitVectorAt). When the points coincide, a random direction drawn from `rng` (each component
 * uniform in [−0.5, 0.5), normalised) and distance 0; should that be degenerate too, the first
 * axis. Normalises by multiplying by 1/|d|, as Serf does (dividing rounds differently).
 */
export function unitVectorAt(rng: Rng, v1: readonly number[], v2: readonly number[]): [unit: number[], distance: number] {
  const d = v1.map((x, i) => x - v2[i]!);
  const mag = magnitude(d);
  if (mag > ZERO_THRESHOLD) return [scaled(d, 1.0 / mag), mag];

  for (let i = 0; i < d.length; i++) d[i] = randomFloat(rng) - 0.5;
  const randomMag = magnitude(d);
  if (randomMag > ZERO_THRESHOLD) return [scaled(d, 1.0 / randomMag), 0.0];

  const axis = new Array<number>(d.length).fill(0);
  axis[0] = 1.0;
  return [axis, 0.0];
}

function scaled(v: number[], factor: number): number[] {
  for (let i = 0; i < v.length; i++) v[i] = v[i]! * factor;
  return v;
}

/**
 * `c` pushed by `force` seconds away from `other` (toward it when negative): serf coordinate.go
 * ApplyForce. The height grows or shrinks with the push in proportion to the two heights over the
 * distance (Vivaldi's height vectors), never below `heightMin`, and is left alone when the points coincide.
 * Assumes compatible dimensions.
 */
export function applyForce(rng: Rng, heightMin: number, c: Coordinate, force: number, other: Coordinate): Coordinate {
  const [unit, mag] = unitVectorAt(rng, c.vec, other.vec);
  const vec = c.vec.map((x, i) => x + unit[i]! * force);
  let height = c.height;
  if (mag > ZERO_THRESHOLD) {
    height = ((c.height + other.height) * force) / mag + c.height;
    height = Math.max(height, heightMin);
  }
  return freezeCoordinate(vec, c.error, c.adjustment, height);
}
