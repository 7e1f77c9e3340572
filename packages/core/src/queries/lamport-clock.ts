/**
 * The largest Lamport time a {@link LamportClock} reaches: 2^53 − 1, the last integer a JS number
 * holds exactly. Serf's clocks are uint64 (serf lamport.go LamportTime), but a member would need
 * a million queries a second for 285 years to get here; only a hostile or broken peer sends more.
 */
export const MAX_LAMPORT_TIME = Number.MAX_SAFE_INTEGER;

/** Whether `t` is a Lamport time a {@link LamportClock} can witness: an integer in [0, {@link MAX_LAMPORT_TIME}). */
export function isLamportTime(t: unknown): t is number {
  return typeof t === 'number' && Number.isSafeInteger(t) && t >= 0 && t < MAX_LAMPORT_TIME;
}

/**
 * A Lamport clock as Serf keeps one (serf lamport.go LamportClock): `increment` stamps a new
 * message of ours, `witness` moves past a time someone else stamped, so that ours come after it.
 *
 * Times are JS numbers, not bigints: every time is an integer in [0, 2^53 − 1], so nothing is
 * ever rounded, and the codecs (msgpack) and the rest of the core stay in numbers. Where Go's
 * uint64 would wrap or a double would round, this clock refuses instead:
 * - `witness` ignores anything that is not an integer in [0, 2^53 − 1) (a time whose successor
 *   is not exact, a negative, a fraction, NaN, a string): the clock does not move;
 * - at {@link MAX_LAMPORT_TIME} the clock is exhausted: `increment` returns undefined and the
 *   clock stays put, where Serf's would wrap to 0 after 2^64 − 1.
 *
 * Neither defends against a peer that sends a huge but valid time: the clock jumps, as Serf's
 * does, and stays there (docs/design.md, "Queries").
 */
export class LamportClock {
  #counter: number;

  /**
   * @param start the time to start at (0, as Serf's zero value); anything that is not an
   *   integer in [0, {@link MAX_LAMPORT_TIME}] starts at 0.
   */
  constructor(start = 0) {
    this.#counter = Number.isSafeInteger(start) && start >= 0 ? start : 0;
  }

  /** The current time (serf LamportClock.Time). */
  time(): number {
    return this.#counter;
  }

  /** Whether the clock has reached {@link MAX_LAMPORT_TIME} and can no longer stamp a new time. */
  get exhausted(): boolean {
    return this.#counter >= MAX_LAMPORT_TIME;
  }

  /** Advances by one and returns the new time (serf LamportClock.Increment); undefined once {@link exhausted}. */
  increment(): number | undefined {
    if (this.exhausted) return undefined;
    return ++this.#counter;
  }

  /**
   * Moves to `t` + 1 when `t` is not older than the current time (serf LamportClock.Witness).
   * Returns false, leaving the clock alone, when `t` is not a time it can witness ({@link isLamportTime}).
   */
  witness(t: number): boolean {
    if (!isLamportTime(t)) return false;
    if (t >= this.#counter) this.#counter = t + 1;
    return true;
  }
}
