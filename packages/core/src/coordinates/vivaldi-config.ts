import { ruleBook } from '../config/rule-book.js';
import type { NumberRule } from '../config/validate.js';

/**
 * The tuning of a {@link VivaldiClient} (serf coordinate/config.go Config). The defaults are
 * Serf's, so our coordinates mix with a Serf cluster's; change them only in a cluster of @swim
 * members that all agree.
 */
export interface VivaldiConfig {
  /**
   * Components of `vec`. Default 8, Serf's (Ledlie et al., "Network Coordinates in the Wild",
   * NSDI 2007: more dimensions help only up to a point). A peer's coordinate with another count is
   * rejected.
   */
  readonly dimensionality: number;
  /** A fresh coordinate's `error`, and its ceiling. Default 1.5. */
  readonly vivaldiErrorMax: number;
  /** How far one sample moves the error estimate (Vivaldi's ce). Default 0.25. */
  readonly vivaldiCE: number;
  /** How far one sample moves the coordinate (Vivaldi's cc). Default 0.25. */
  readonly vivaldiCC: number;
  /** Samples averaged into `adjustment` (Lee et al. 2010); 0 turns the adjustment off. Default 20. */
  readonly adjustmentWindowSize: number;
  /** A fresh coordinate's `height`, and its floor, seconds. Default 10e-6 (10 µs). */
  readonly heightMin: number;
  /** RTT samples kept per peer, whose median is used (Ledlie et al. 2007). Default 3. */
  readonly latencyFilterSize: number;
  /** Strength of the pull toward the origin that stops drift; larger is weaker (Ledlie et al. 2007). Default 150. */
  readonly gravityRho: number;
  /**
   * Peers whose RTT samples are kept; a sample from one more forgets the peer heard from least
   * recently. Not in Serf, which keeps every peer until it is reaped (client.go ForgetNode).
   * Default 16384, the core's `maxMembers`.
   */
  readonly maxTrackedNodes: number;
  /**
   * A peer's coordinate further than this from the origin, seconds (`|vec|`, `height` or
   * `|adjustment|`), is refused as implausible: it would predict RTTs Serf refuses to measure
   * (above 10 s), and pulls ours by a quarter of its distance in one sample. Not in Serf, which
   * takes any finite coordinate. Default 10.
   */
  readonly maxCoordinateSeconds: number;
}

/** Serf v0.9.4's coordinate/config.go DefaultConfig, and our bounds on tracked peers and peers' coordinates. Frozen. */
export const DEFAULT_VIVALDI_CONFIG: VivaldiConfig = Object.freeze({
  dimensionality: 8,
  vivaldiErrorMax: 1.5,
  vivaldiCE: 0.25,
  vivaldiCC: 0.25,
  adjustmentWindowSize: 20,
  heightMin: 10.0e-6,
  latencyFilterSize: 3,
  gravityRho: 150.0,
  maxTrackedNodes: 16_384,
  maxCoordinateSeconds: 10,
});

/** One rule per field; the mapped type makes the compiler insist every field has one. Serf validates only `Dimensionality` > 0. */
const RULES: { readonly [K in keyof VivaldiConfig]-?: NumberRule } = {
  dimensionality: { kind: 'number', integer: true, min: 1, max: 64, why: 'Serf uses 8; more dimensions help only up to a point' },
  vivaldiErrorMax: { kind: 'number', min: 0, above: true },
  vivaldiCE: { kind: 'number', min: 0, above: true, max: 1, why: 'a gain: the share of one sample in the error estimate' },
  vivaldiCC: { kind: 'number', min: 0, above: true, max: 1, why: 'a gain: the share of one sample in the move' },
  adjustmentWindowSize: { kind: 'number', integer: true, min: 0, max: 1024, why: '0 turns the adjustment off' },
  heightMin: { kind: 'number', min: 0 },
  latencyFilterSize: { kind: 'number', integer: true, min: 1, max: 1024, why: 'RTT samples kept per peer' },
  gravityRho: { kind: 'number', min: 0, above: true },
  maxTrackedNodes: { kind: 'number', integer: true, min: 1 },
  maxCoordinateSeconds: { kind: 'number', min: 0, above: true },
};

const BOOK = ruleBook<VivaldiConfig>('Vivaldi config', RULES, DEFAULT_VIVALDI_CONFIG);

/**
 * Every problem with `config` (one message per field, naming the field, the constraint and the
 * value), or [] if it is valid. Never throws, whatever the input.
 */
export function validateVivaldiConfig(config: VivaldiConfig): string[] {
  return BOOK.validate(config);
}

/**
 * {@link DEFAULT_VIVALDI_CONFIG} with `overrides` on top, validated. Keys whose value is `undefined` are ignored;
 * unknown keys (typos) and a non-object `overrides` are problems too.
 * @returns a fresh, frozen config.
 * @throws ConfigError listing every problem at once.
 */
export function resolveVivaldiConfig(overrides?: Partial<VivaldiConfig>): VivaldiConfig {
  return BOOK.resolve(overrides);
}
