import type { HealthScaling } from '../config/config.js';
import { remainingSuspicionMs } from './suspicion-timeout.js';

/** The fixed parameters of one suspicion, computed when it is raised (memberlist suspectNode). */
export interface SuspicionParams {
  /** Confirmations wanted to shrink the timeout to `minMs` (Lifeguard K). */
  readonly k: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** Correction 1 (docs/design.md): wait this long when a confirmation finds the timeout overdue; 0 = fire at once. */
  readonly overdueGraceMs: number;
  /** Correction 2 (docs/design.md). */
  readonly healthScaling: HealthScaling;
}

/** What an expiring suspicion timer decided. */
export type SuspicionExpiry = { readonly kind: 'dead' } | { readonly kind: 'rearm'; readonly deadline: number };

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
  #verificationSent = false;

  constructor(
    from: string,
    readonly params: SuspicionParams,
    readonly start: number,
    healthScore: number,
  ) {
    this.#originator = from;
    this.#creationScale = params.healthScaling === 'at-creation' ? healthScore + 1 : 1;
    this.#deadline = start + this.#timeout();
  }

  get deadline(): number {
    return this.#deadline;
  }

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
        return { kind: 'rearm', deadline: this.#deadline };
      }
    }
    return DEAD;
  }

  /**
   * Before the verdict, ask the suspect once more (direct refutation): returns false if that was
   * done already; otherwise moves the deadline `waitMs` ahead for the suspect's answer.
   */
  beginVerification(now: number, waitMs: number): boolean {
    if (this.#verificationSent) return false;
    this.#verificationSent = true;
    this.#deadline = now + waitMs;
    return true;
  }

  /** Total timeout for the confirmations so far, measured from `start`. */
  #timeout(): number {
    const { k, minMs, maxMs } = this.params;
    return remainingSuspicionMs(this.#confirmations, k, 0, minMs, maxMs) * this.#creationScale;
  }
}

const DEAD: SuspicionExpiry = { kind: 'dead' };
