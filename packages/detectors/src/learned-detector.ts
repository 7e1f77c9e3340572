import type { DetectorKind, FailureDetector, IntervalStats } from './failure-detector.js';
import type { HeartbeatHistory } from './heartbeat-history.js';

/**
 * What the two accrual detectors share: a learned window of heartbeat intervals, and the
 * deadline, availability and diagnostics that follow from a horizon. Subclasses supply the
 * distribution: `phi` and `horizon`.
 */
export abstract class LearnedDetector implements FailureDetector {
  abstract readonly kind: DetectorKind;
  abstract readonly threshold: number;

  constructor(protected readonly history: HeartbeatHistory) {}

  abstract heartbeat(now: number): void;
  abstract phi(now: number): number;
  abstract horizon(): number;

  get lastHeartbeat(): number | undefined {
    return this.history.last;
  }

  deadline(): number | undefined {
    const last = this.history.last;
    return last === undefined ? undefined : last + this.horizon();
  }

  isAvailable(now: number): boolean {
    const deadline = this.deadline();
    return deadline === undefined || now < deadline;
  }

  /** The window's intervals as learned (mean, population standard deviation before any floor). */
  stats(): IntervalStats {
    return this.history.stats();
  }

  /** The intervals in the window, oldest first. */
  intervals(): number[] {
    return this.history.intervals();
  }

  reset(): void {
    this.history.reset();
  }
}
