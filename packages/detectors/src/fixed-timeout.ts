import type { FailureDetector } from './failure-detector.js';
import { assertTime, OptionChecks } from './options.js';

/** Options of {@link FixedTimeout}. */
export interface FixedTimeoutOptions {
  /** Silence after the latest heartbeat at which the member is suspect, ms. */
  readonly timeoutMs: number;
}

/**
 * The plain timeout (Kubernetes' node grace period, memberlist's probe timeout): suspect once
 * `timeoutMs` pass without a heartbeat. It assumes no distribution and learns nothing.
 *
 * Its suspicion level is linear, not a probability: phi(now) = silence / timeoutMs, so the
 * threshold is 1 and level 1 is the timeout. That keeps the identities every detector here shares
 * (phi(lastHeartbeat + horizon()) = threshold, phi never decreasing) and gives a readable "how far
 * into the timeout" number, but it is not comparable with the phi of the accrual detectors.
 */
export class FixedTimeout implements FailureDetector {
  readonly kind = 'fixed-timeout' as const;
  readonly threshold = 1;
  /** Silence after the latest heartbeat at which the member is suspect, ms (finite, > 0). */
  readonly timeoutMs: number;
  #last: number | undefined;

  constructor(options: FixedTimeoutOptions) {
    const check = new OptionChecks('FixedTimeout');
    check.finitePositive('timeoutMs', options.timeoutMs);
    check.done();
    this.timeoutMs = options.timeoutMs;
  }

  get lastHeartbeat(): number | undefined {
    return this.#last;
  }

  heartbeat(now: number): void {
    assertTime(now, 'FixedTimeout.heartbeat');
    if (this.#last === undefined || now >= this.#last) this.#last = now;
  }

  /** silence / timeoutMs (0 before the first heartbeat). */
  phi(now: number): number {
    if (this.#last === undefined) return 0;
    return Math.max(0, now - this.#last) / this.timeoutMs;
  }

  horizon(): number {
    return this.timeoutMs;
  }

  deadline(): number | undefined {
    return this.#last === undefined ? undefined : this.#last + this.timeoutMs;
  }

  isAvailable(now: number): boolean {
    const deadline = this.deadline();
    return deadline === undefined || now < deadline;
  }

  reset(): void {
    this.#last = undefined;
  }
}
