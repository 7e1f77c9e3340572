/**
 * Local health awareness (Lifeguard §IV.A "Local Health Aware Probe"; memberlist awareness.go).
 *
 * The score counts recent evidence that *this* node is slow or cut off: 0 is healthy, and it is
 * kept in [0, maxMultiplier − 1]. The probe interval is stretched by (score + 1), so a node that
 * cannot hear acks in time probes less often and, with correction 2 of docs/design.md, waits longer
 * before declaring others dead.
 */
export class Awareness {
  readonly #max: number;
  #score = 0;

  /**
   * @param maxMultiplier memberlist `AwarenessMaxMultiplier` (LAN 8): an integer ≥ 1; the score is
   *   kept in [0, maxMultiplier − 1]. Invalid values are a programming error (the config is
   *   validated first) and throw a RangeError.
   */
  constructor(maxMultiplier: number) {
    if (!Number.isInteger(maxMultiplier) || maxMultiplier < 1) {
      throw new RangeError(`Awareness: maxMultiplier must be an integer >= 1, got ${String(maxMultiplier)}`);
    }
    this.#max = maxMultiplier;
  }

  /** Current health score, 0 = healthy (memberlist `GetHealthScore`). */
  get score(): number {
    return this.#score;
  }

  /** memberlist `AwarenessMaxMultiplier`: the score stays below it, so intervals stretch at most this many times. */
  get maxMultiplier(): number {
    return this.#max;
  }

  /**
   * memberlist `awareness.ApplyDelta`: score += delta, clamped to [0, max − 1].
   * @returns true if the score actually changed (memberlist sets the `memberlist.health.score`
   *   gauge only then; the core emits its health-change effect only then).
   * @throws RangeError when delta is not an integer (scores are Go ints).
   */
  applyDelta(delta: number): boolean {
    if (!Number.isInteger(delta)) {
      throw new RangeError(`Awareness: delta must be an integer, got ${String(delta)}`);
    }
    const before = this.#score;
    this.#score = Math.min(this.#max - 1, Math.max(0, before + delta));
    return this.#score !== before;
  }

  /**
   * memberlist `awareness.ScaleTimeout`: ms × (score + 1). memberlist applies it to the probe
   * interval only (probeNode), never to the probe timeout.
   */
  scaleTimeout(ms: number): number {
    return ms * (this.#score + 1);
  }
}

/**
 * Named health deltas of memberlist (probeNode and refute):
 * - `probeSucceeded`: direct ack, relayed indirect ack or fallback stream ping (probeNode, −1).
 * - `probeFailedNoNackPeers`: failed probe with no nack-capable helper (probeNode, +1).
 * - `refuted`: we had to refute an accusation about ourselves (memberlist `refute`, +1).
 * - `lateCall`: our own timers ran late (lifeguard/late-tick.ts, +1; not in memberlist).
 * A failed probe with nack-capable helpers uses {@link failedProbeDelta}.
 */
export const HEALTH_DELTA = {
  /** −1: a probe got an ack. */
  probeSucceeded: -1,
  /** +1: a probe failed with no nack expected from any helper. */
  probeFailedNoNackPeers: 1,
  /** +1: we refuted an accusation about ourselves. */
  refuted: 1,
  /** +1: a call came far past the deadline we asked for, our timers ran late (lifeguard/late-tick.ts; our addition). */
  lateCall: 1,
} as const;

/**
 * Health penalty of a failed probe (memberlist probeNode step 12; Lifeguard §IV.A): one point per
 * *missing* nack when helpers were asked to nack, else +1. Missing nacks mean our own network is
 * the likely culprit, not the target. (The 2× factor on missing nacks was removed in memberlist
 * PR #114.)
 *
 * Deviation for invalid inputs only: `nacksReceived` is clamped to [0, expectedNacks], so a
 * failed probe never lowers the score (memberlist would apply a negative delta if more nacks
 * than expected were counted).
 */
export function failedProbeDelta(expectedNacks: number, nacksReceived: number): number {
  if (expectedNacks > 0) {
    return expectedNacks - Math.min(expectedNacks, Math.max(0, nacksReceived));
  }
  return HEALTH_DELTA.probeFailedNoNackPeers;
}
