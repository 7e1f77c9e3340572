import type { Rng } from '../support/rng.js';
import { goDuration, goDurationSeconds } from '../support/go-math.js';
import {
  applyForce,
  copyCoordinate,
  distanceNanosecondsUnchecked,
  freezeCoordinate,
  isCompatible,
  isValidCoordinate,
  magnitude,
  newCoordinate,
  rawDistance,
  ZERO_THRESHOLD,
  type Coordinate,
} from './coordinate.js';
import { ConfigError } from '../config/validate.js';
import { LatencyFilter } from './latency-filter.js';
import { resolveVivaldiConfig, type VivaldiConfig } from './vivaldi-config.js';

/** Why a sample changed nothing. */
export type VivaldiRejection =
  /** The peer's `vec` has another number of components (Serf: "dimensions aren't compatible"). */
  | 'incompatible-dimensions'
  /** A component of the peer's coordinate is NaN or ±Infinity (Serf: "coordinate is invalid"). */
  | 'invalid-coordinate'
  /**
   * The peer's `error` or `height` is negative, or its coordinate lies further than
   * `maxCoordinateSeconds` (10 s) from the origin (`|vec|`, `height` or `|adjustment|`). Serf
   * accepts these, but no Serf node sends them (its error stays positive, its height at least
   * HeightMin, and RTTs above 10 s are refused, so no coordinate settles that far out); a
   * negative error makes the sample's weight unbounded, and a huge coordinate pulls ours
   * (0.25 of the distance in one sample) or overflows it to a reset. @swim only.
   */
  | 'implausible-coordinate'
  /** The RTT is not a number from 0 to 10 s (Serf: "round trip time not in valid range"). */
  | 'rtt-out-of-range';

/** What {@link VivaldiClient.update} did. */
export type VivaldiUpdate =
  | {
      /** The sample was used. */
      readonly kind: 'updated';
      /** Our coordinate after the sample (a fresh one if the sample made it invalid: see `resets`). */
      readonly coordinate: Coordinate;
    }
  | {
      /** The sample was refused. */
      readonly kind: 'rejected';
      /** Why; nothing changed, the peer's latency samples included. */
      readonly reason: VivaldiRejection;
    };

/** Counters of a {@link VivaldiClient}. */
export interface VivaldiStats {
  /** Times our coordinate went NaN or infinite and started over (Serf's `coordinate_resets`). */
  readonly resets: number;
  /** Peers with latency samples held now, at most `maxTrackedNodes`. */
  readonly trackedNodes: number;
  /** Peers whose samples were dropped to stay within `maxTrackedNodes`. */
  readonly evictedNodes: number;
}

/** What a {@link VivaldiClient} is built from. */
export interface VivaldiClientOptions {
  /** Draws the random direction used when our point and a peer's coincide; the core has no randomness of its own. */
  readonly rng: Rng;
  /** Overrides of {@link DEFAULT_VIVALDI_CONFIG} (Serf's defaults). */
  readonly config?: Partial<VivaldiConfig>;
}

/** Serf rejects RTTs above this (coordinate/client.go Update maxRTT), seconds. */
export const MAX_RTT_SECONDS = 10;

const NANOSECONDS_PER_SECOND = 1e9;

/**
 * Our network coordinate, learnt from the RTTs we measure to peers and the coordinates they
 * report (serf coordinate/client.go Client). Vivaldi (Dabek et al., "Vivaldi: A Decentralized
 * Network Coordinate System", SIGCOMM 2004) with height vectors, Serf's adjustment term, and the
 * latency filter and gravity of Ledlie et al., "Network Coordinates in the Wild", NSDI 2007.
 * Pure: no clock, and randomness only from the injected `rng`. A bad sample is a returned value,
 * never a throw.
 */
export class VivaldiClient {
  /** The config in use: Serf's defaults with `options.config` on top, validated and frozen. */
  readonly config: VivaldiConfig;
  readonly #rng: Rng;
  #coord: Coordinate;
  readonly #origin: Coordinate;
  /** Serf's adjustmentSamples: a ring of `rtt − rawDistance` that starts as zeros. */
  readonly #adjustmentSamples: Float64Array;
  #adjustmentIndex = 0;
  /** Serf's latencyFilterSamples, bounded. */
  readonly #latency: LatencyFilter;
  #resets = 0;

  /** @throws ConfigError listing every problem with the config, and a missing rng. */
  constructor(options: VivaldiClientOptions) {
    const problems: string[] = [];
    let config: VivaldiConfig | undefined;
    try {
      config = resolveVivaldiConfig(options.config);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
    if (typeof options.rng?.nextUint32 !== 'function') problems.push('rng must be an Rng (createRng(seed)): the core has no randomness of its own');
    if (problems.length > 0 || config === undefined) throw new ConfigError(problems, 'Vivaldi client options');
    this.config = config;
    this.#rng = options.rng;
    this.#coord = newCoordinate(this.config);
    this.#origin = newCoordinate(this.config);
    this.#adjustmentSamples = new Float64Array(config.adjustmentWindowSize);
    this.#latency = new LatencyFilter(config.latencyFilterSize, config.maxTrackedNodes);
  }

  /** Our coordinate now (serf client.go GetCoordinate); frozen, so it can be kept and sent as is. */
  coordinate(): Coordinate {
    return this.#coord;
  }

  /**
   * How unsure we are of our coordinate (the local coordinate's `error`, as Serf reports it):
   * `vivaldiErrorMax` (1.5) before any sample, toward 0 as predictions come true. Roughly the
   * relative error of our RTT estimates.
   */
  get error(): number {
    return this.#coord.error;
  }

  /**
   * The estimated RTT to the node at `other`, seconds, a multiple of 1 ns (serf client.go
   * DistanceTo). Undefined when `other` has another dimensionality or is invalid.
   */
  distanceTo(other: Coordinate): number | undefined {
    if (!isCompatible(this.#coord, other) || !isValidCoordinate(other)) return undefined;
    return goDurationSeconds(distanceNanosecondsUnchecked(this.#coord, other));
  }

  /**
   * Puts our coordinate at `coord` (serf client.go SetCoordinate), e.g. one saved before a
   * restart. Returns why not, or undefined when done.
   */
  setCoordinate(coord: Coordinate): VivaldiRejection | undefined {
    // Our own, so not held to the bound on peers' distance from the origin.
    const problem = this.#checkShape(coord);
    if (problem !== undefined) return problem;
    this.#coord = copyCoordinate(coord);
    return undefined;
  }

  /** Drops a peer's latency samples: it was reaped or left (serf client.go ForgetNode). */
  forgetNode(node: string): void {
    this.#latency.forget(node);
  }

  /** A copy of the counters (serf client.go Stats, and our bound on tracked peers). */
  stats(): VivaldiStats {
    return { resets: this.#resets, trackedNodes: this.#latency.trackedNodes, evictedNodes: this.#latency.evictedNodes };
  }

  /**
   * One sample: `node`, whose coordinate is `other`, answered a ping after `rttSeconds` (serf
   * coordinate/client.go Update). The RTT is taken in whole nanoseconds, as Serf's
   * `time.Duration`, then run through the peer's median filter, a Vivaldi step, the adjustment
   * window and gravity, in Serf's order and with its rounding. Returns our new coordinate, or why
   * the sample was rejected, in which case nothing changed. A coordinate that goes NaN or infinite
   * starts over as a fresh one, with a fresh adjustment window (Serf keeps the window).
   */
  update(node: string, other: Coordinate, rttSeconds: number): VivaldiUpdate {
    const problem = this.#check(other);
    if (problem !== undefined) return { kind: 'rejected', reason: problem };
    // Serf gets a time.Duration (whole ns) and rejects it outside [0, 10 s]; NaN fails here too.
    if (!(rttSeconds >= 0 && rttSeconds <= MAX_RTT_SECONDS)) return { kind: 'rejected', reason: 'rtt-out-of-range' };
    const rttNs = goDuration(Math.round(rttSeconds * NANOSECONDS_PER_SECOND));

    const rtt = this.#latency.sample(node, goDurationSeconds(rttNs));
    this.#updateVivaldi(other, rtt);
    this.#updateAdjustment(other, rtt);
    this.#updateGravity();
    if (!isValidCoordinate(this.#coord)) {
      this.#resets++;
      this.#coord = newCoordinate(this.config);
      // Unlike Serf, the adjustment window starts over too: the sample just taken from the broken
      // coordinate is not finite, and Serf, which keeps it, resets again on each of the next
      // adjustmentWindowSize - 1 samples until it leaves the ring.
      this.#adjustmentSamples.fill(0);
      this.#adjustmentIndex = 0;
    }
    return { kind: 'updated', coordinate: this.#coord };
  }

  /** serf client.go checkCoordinate, and our plausibility checks on a peer's coordinate. */
  #check(coord: Coordinate): VivaldiRejection | undefined {
    const problem = this.#checkShape(coord);
    if (problem !== undefined) return problem;
    const bound = this.config.maxCoordinateSeconds;
    if (coord.height > bound || Math.abs(coord.adjustment) > bound || magnitude(coord.vec) > bound) return 'implausible-coordinate';
    return undefined;
  }

  /** serf client.go checkCoordinate, and no negative error or height. */
  #checkShape(coord: Coordinate): VivaldiRejection | undefined {
    if (!isCompatible(this.#coord, coord)) return 'incompatible-dimensions';
    if (!isValidCoordinate(coord)) return 'invalid-coordinate';
    if (coord.error < 0 || coord.height < 0) return 'implausible-coordinate';
    return undefined;
  }

  /** serf client.go updateVivaldi: the error estimate, then a move weighted by our share of the error. */
  #updateVivaldi(other: Coordinate, filteredRtt: number): void {
    const c = this.#coord;
    const dist = goDurationSeconds(distanceNanosecondsUnchecked(c, other));
    const rtt = filteredRtt < ZERO_THRESHOLD ? ZERO_THRESHOLD : filteredRtt;
    const wrongness = Math.abs(dist - rtt) / rtt;

    let totalError = c.error + other.error;
    if (totalError < ZERO_THRESHOLD) totalError = ZERO_THRESHOLD;
    const weight = c.error / totalError;

    const { vivaldiCE: ce, vivaldiCC: cc } = this.config;
    let error = ce * weight * wrongness + c.error * (1.0 - ce * weight);
    if (error > this.config.vivaldiErrorMax) error = this.config.vivaldiErrorMax;

    const force = cc * weight * (rtt - dist);
    this.#coord = applyForce(this.#rng, this.config.heightMin, { ...c, error }, force, other);
  }

  /**
   * serf client.go updateAdjustment: the mean of how far the raw distance (adjustments left out)
   * misses the filtered RTT, over the window, halved because both ends add theirs.
   */
  #updateAdjustment(other: Coordinate, filteredRtt: number): void {
    const window = this.config.adjustmentWindowSize;
    if (window === 0) return;
    this.#adjustmentSamples[this.#adjustmentIndex] = filteredRtt - rawDistance(this.#coord, other);
    this.#adjustmentIndex = (this.#adjustmentIndex + 1) % window;
    let sum = 0.0;
    for (const sample of this.#adjustmentSamples) sum += sample;
    const c = this.#coord;
    this.#coord = freezeCoordinate(c.vec, c.error, sum / (2.0 * window), c.height);
  }

  /** serf client.go updateGravity: a pull toward the origin, growing with the square of the distance, against drift. */
  #updateGravity(): void {
    const dist = goDurationSeconds(distanceNanosecondsUnchecked(this.#origin, this.#coord)) / this.config.gravityRho;
    // Go's math.Pow(x, 2) is x * x (one rounding of the squared mantissa), bar subnormals.
    const force = -1.0 * (dist * dist);
    this.#coord = applyForce(this.#rng, this.config.heightMin, this.#coord, force, this.#origin);
  }
}
