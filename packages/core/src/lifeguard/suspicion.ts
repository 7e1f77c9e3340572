import type { HealthScaling } from '../config/config.js';
import { remainingSuspicionMs } from './suspicion-timeout.js';

/**
 * How many times the suspect is asked before a verdict (direct refutation's verdict check): each
 * unanswered check goes again a third of the wait later. With 1 % loss, two checks both lost (and a
 * suspicion nobody else told the suspect about, raised across a partition that healed since) killed
 * a running member about once a simulated day at 200 members (docs/endurance.md); three make it a
 * hundred times rarer, for one small packet more, and only when the suspect is silent.
 */
export const VERDICT_CHECKS = 3;

/** The fixed parameters of one suspicion, computed when it is raised (memberlist suspectNode). */
export interface SuspicionParams {
  /** Confirmations wanted to shrink the timeout to `minMs` (Lifeguard K). */
  readonly k: number;
  /**
   * Shortest timeout, ms, reached with `k` confirmations, and the only one when `k` is 0:
   * {@link suspicionTimeoutMs} for the cluster size.
   */
  readonly minMs: number;
  /** Timeout with no confirmations, ms: `suspicionMaxTimeoutMult` × `minMs`. */
  readonly maxMs: number;
  /** Correction 1 (docs/design.md): wait this long when a confirmation finds the timeout overdue; 0 = fire at once. */
  readonly overdueGraceMs: number;
  /** Correction 2 (docs/design.md). */
  readonly healthScaling: HealthScaling;
}

/** What an expiring suspicion timer decided. */
export type SuspicionExpiry =
  | {
      /** Declare the member dead. */
      readonly kind: 'dead';
    }
  | {
      /** Local health stretched the timeout (`at-expiry` scaling): wait until `deadline`. */
      readonly kind: 'rearm';
      /** The new deadline, monotonic ms. */
      readonly deadline: number;
    };

/**
 * One suspicion timer (Lifeguard §IV.B, memberlist suspicion.go): starts at `max` (or `min` when
 * no confirmations are wanted) and shrinks on a log scale with each distinct confirmation.
 * The originator counts as already confirmed, so echoes of our own accusation never shrink it.
 */
export class Suspicion {
  /** Who raised it: counts as already confirmed. */
  readonly #originator: string;
  /** Distinct confirmers after the originator; made on the first one (most suspicions get none). */
  #confirmers: Set<string> | undefined;
  #confirmations = 0;
  /** Health multiplier read at creation (`at-creation` only; 1 otherwise). */
  readonly #creationScale: number;
  #deadline: number;
  /** When the verdict check went to the suspect (direct refutation); undefined until then, and again after a re-arm. */
  #checkSentAt: number | undefined;
  /** Verdict checks sent for this deadline (up to {@link VERDICT_CHECKS}, a third of a check's wait apart while none is answered). */
  #checksSent = 0;
  /** A late call postponed the verdict already (see {@link spareLate}). */
  #sparedLate = false;
  /** The ping sequence numbers of the verdict checks in flight, kept by the membership to match their acks. */
  checkSeqs: number[] = [];

  /**
   * @param from the accuser, counted as already confirmed.
   * @param params fixed for the suspicion's life.
   * @param start when it was raised, monotonic ms.
   * @param healthScore our health score now; read only with `at-creation` health scaling.
   */
  constructor(
    from: string,
    /** The suspicion's fixed parameters, computed when it was raised. */
    readonly params: SuspicionParams,
    /** When the suspicion was raised, monotonic ms; the timeout counts from it. */
    readonly start: number,
    healthScore: number,
  ) {
    this.#originator = from;
    this.#creationScale = params.healthScaling === 'at-creation' ? healthScore + 1 : 1;
    this.#deadline = start + this.#timeout();
  }

  /** When the verdict is due, monotonic ms: confirmations bring it closer, `at-expiry` health scaling pushes it back. */
  get deadline(): number {
    return this.#deadline;
  }

  /** Distinct confirmations so far, the originator not counted; at most `params.k`. */
  get confirmations(): number {
    return this.#confirmations;
  }

  /**
   * memberlist Confirm: count a new, distinct confirmer (up to k) and move the deadline. A deadline
   * already passed fires at once in memberlist; with a grace it waits `overdueGraceMs` more, so the
   * suspect can hear the accusation and refute it (docs/corrections-study.md). Returns true for new information,
   * which the caller re-gossips.
   */
  confirm(from: string, now: number): boolean {
    if (this.#confirmations >= this.params.k || from === this.#originator || this.#confirmers?.has(from) === true) return false;
    (this.#confirmers ??= new Set()).add(from);
    this.#confirmations++;
    const remaining = this.start + this.#timeout() - now;
    if (remaining > 0) {
      this.#deadline = now + remaining;
    } else if (this.params.overdueGraceMs > 0) {
      this.#deadline = Math.min(this.#deadline, now + this.params.overdueGraceMs);
    } else {
      this.#deadline = now;
    }
    return true;
  }

  /**
   * The timer fired (or a confirmation made it due). With `at-expiry` health scaling, the timeout
   * is stretched by the health score read now; if that stretched timeout has not passed, re-arm
   * for the difference, at least the overdue grace (the corrected fix, docs/corrections-study.md).
   */
  expire(now: number, healthScore: number): SuspicionExpiry {
    if (this.params.healthScaling === 'at-expiry' && healthScore > 0) {
      const extra = this.start + this.#timeout() * (healthScore + 1) - now;
      if (extra > 0) {
        this.#deadline = now + Math.max(extra, this.params.overdueGraceMs);
        // The verdict moved: the suspect is asked again before the new one.
        this.#checkSentAt = undefined;
        this.#checksSent = 0;
        return { kind: 'rearm', deadline: this.#deadline };
      }
    }
    return DEAD;
  }

  /**
   * When the timer must next wake. Without a verdict check (`checkMs` 0), at the deadline. With one
   * (direct refutation), first `checkMs` before the deadline to ask the suspect once more, so the
   * question costs no time when the deadline was set that far ahead; then at the deadline, or
   * `checkMs` after the question if a confirmation brought the deadline closer than that, so the
   * suspect always has a whole `checkMs` to answer.
   */
  wakeAt(checkMs: number): number {
    if (checkMs === 0) return this.#deadline;
    if (this.#checkSentAt === undefined) return this.#deadline - checkMs;
    if (this.#checksSent < VERDICT_CHECKS) return this.#checkSentAt + (this.#checksSent * checkMs) / VERDICT_CHECKS;
    return Math.max(this.#deadline, this.#checkSentAt + checkMs);
  }

  /**
   * A verdict check is due now: the first one, or the same question again each third of its wait
   * while no answer came (lost packets must not decide a death). False once all went (for this deadline).
   */
  beginCheck(now: number, checkMs: number): boolean {
    if (this.#checkSentAt === undefined) {
      this.#checkSentAt = now;
      this.#checksSent = 1;
      return true;
    }
    if (this.#checksSent >= VERDICT_CHECKS || now < this.#checkSentAt + (this.#checksSent * checkMs) / VERDICT_CHECKS) return false;
    this.#checksSent++;
    return true;
  }

  /**
   * The suspect acked the verdict check: it runs and hears us, and its alive (the refutation it
   * sends with the ack) was lost or is on its way. The verdict waits until `until` at least, and the
   * suspect is asked again before it.
   */
  checkAcked(until: number): void {
    this.postponeVerdict(until);
  }

  /**
   * A late call (lifeguard/late-tick.ts) postpones the verdict to `until`, once per suspicion: when
   * every call comes late, the next one judges it. Returns false when it was spared before.
   */
  spareLate(until: number): boolean {
    if (this.#sparedLate) return false;
    this.#sparedLate = true;
    this.postponeVerdict(until);
    return true;
  }

  /**
   * The verdict waits until `until` at least, and the suspect is asked again before it (after an
   * acked verdict check, or a late call: lifeguard/late-tick.ts).
   */
  postponeVerdict(until: number): void {
    this.#deadline = Math.max(this.#deadline, until);
    this.#checkSentAt = undefined;
    this.#checksSent = 0;
  }

  /** Total timeout for the confirmations so far, measured from `start`. */
  #timeout(): number {
    const { k, minMs, maxMs } = this.params;
    return remainingSuspicionMs(this.#confirmations, k, 0, minMs, maxMs) * this.#creationScale;
  }
}

const DEAD: SuspicionExpiry = { kind: 'dead' };
