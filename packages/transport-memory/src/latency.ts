import { randomFloat, type Rng } from '@swim/core';

/**
 * One-way delay of one packet or stream leg from transport address `from` to `to` (the network
 * always passes both), in milliseconds, drawn from the network's seeded generator: the same seed gives the same delays,
 * in the same order. Negative draws count as 0. Most models ignore the addresses;
 * {@link pairLatency} gives each pair of members its own.
 */
export type LatencyModel = (rng: Rng, from?: string, to?: string) => number;

/** Every leg takes exactly `ms`: packets between two members stay in order. */
export function constantLatency(ms: number): LatencyModel {
  assertDelay('constantLatency', ms);
  return () => ms;
}

/** Uniform in [lo, hi): a LAN with some jitter, so packets may overtake each other. */
export function uniformLatency(lo: number, hi: number): LatencyModel {
  assertDelay('uniformLatency', lo);
  assertDelay('uniformLatency', hi);
  if (hi < lo) throw new RangeError(`uniformLatency: hi (${hi}) must be >= lo (${lo})`);
  const span = hi - lo;
  return (rng) => lo + span * randomFloat(rng);
}

/** Parameters of {@link logNormalLatency}. */
export interface LogNormalLatencyOptions {
  /** Median delay (the log-normal's e^mu). */
  readonly medianMs: number;
  /** Standard deviation of ln(delay): 0.5 gives a 95th percentile of about 2.3 x the median. */
  readonly sigma: number;
  /** Upper bound on a draw, so the long tail cannot exceed it (e.g. a retransmission cap). */
  readonly capMs?: number;
}

/**
 * Log-normal delays: the usual fit for measured network round trips (a positive body with a long
 * right tail). A standard normal comes from Box-Muller over two uniform draws.
 */
export function logNormalLatency(options: LogNormalLatencyOptions): LatencyModel {
  const { medianMs, sigma, capMs = Number.POSITIVE_INFINITY } = options;
  if (!(medianMs > 0 && Number.isFinite(medianMs))) throw new RangeError(`logNormalLatency: medianMs must be > 0, got ${medianMs}`);
  if (!(sigma >= 0 && Number.isFinite(sigma))) throw new RangeError(`logNormalLatency: sigma must be >= 0, got ${sigma}`);
  if (!(capMs >= 0)) throw new RangeError(`logNormalLatency: capMs must be >= 0, got ${capMs}`);
  return (rng) => {
    const u1 = 1 - randomFloat(rng); // (0, 1]: log(0) is never taken
    const u2 = randomFloat(rng);
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    return Math.min(capMs, medianMs * Math.exp(sigma * z));
  };
}

/**
 * A delay per pair of addresses: `base(from, to)` ms, the same both ways if `base` is symmetric
 * (a path's propagation delay), plus `jitter`'s draw (default none). For geography in a
 * simulation: members in regions far apart, members of one region close together.
 */
export function pairLatency(base: (from: string, to: string) => number, jitter?: LatencyModel): LatencyModel {
  return (rng, from, to) => {
    if (from === undefined || to === undefined) throw new RangeError('pairLatency: a delay per pair needs both addresses');
    const ms = base(from, to);
    assertDelay('pairLatency', ms);
    return jitter === undefined ? ms : ms + jitter(rng, from, to);
  };
}

function assertDelay(what: string, ms: number): void {
  if (!(ms >= 0 && Number.isFinite(ms))) throw new RangeError(`${what}: delays must be finite and >= 0, got ${ms}`);
}
