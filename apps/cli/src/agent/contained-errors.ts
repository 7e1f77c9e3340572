/**
 * @packageDocumentation
 * Exceptions the agent (and the demo, which imports this module) survives: the member's own `error` events (the runtime contains what the
 * core, a listener or the transport throws) and, as a last resort, the process's uncaught
 * exceptions and unhandled rejections. Each is counted and logged, at a bounded rate: a stream of
 * bad packets must not become a stream of log lines.
 */

/** Log lines about contained exceptions per second; past it they are counted and summed up in the next line. */
export const ERROR_LINES_PER_SECOND = 10;

/**
 * A rate limit for log lines: at most `perSecond` lines in each one-second window; a refused line
 * is counted, and the next line allowed reports how many were held back.
 */
export class LogBudget {
  readonly #perSecond: number;
  readonly #now: () => number;
  #windowStart = Number.NEGATIVE_INFINITY;
  #used = 0;
  #suppressed = 0;

  constructor(perSecond: number, now: () => number = () => performance.now()) {
    this.#perSecond = perSecond;
    this.#now = now;
  }

  /** Whether one more line may be written now, and how many were held back since the last one. */
  take(): {
    /** Whether the line may be written. */
    readonly allowed: boolean;
    /** Lines refused since the last allowed one (0 when `allowed` is false). */
    readonly suppressed: number;
  } {
    const now = this.#now();
    if (now - this.#windowStart >= 1000) {
      this.#windowStart = now;
      this.#used = 0;
    }
    if (this.#used >= this.#perSecond) {
      this.#suppressed++;
      return { allowed: false, suppressed: 0 };
    }
    this.#used++;
    const suppressed = this.#suppressed;
    this.#suppressed = 0;
    return { allowed: true, suppressed };
  }
}

/** One line about any thrown value: the runtime's, which the agent's log lines share. */
export { describeError } from '@swim/runtime';

/** Which of the process's last-resort events a guarded exception came through. */
export type UncaughtKind = 'uncaughtException' | 'unhandledRejection';

/**
 * Keep the process running through an uncaught exception or an unhandled rejection: `report` it
 * instead of exiting. Installed only once the agent has started, so that a bad flag (exit 2) or a
 * port that cannot be bound (exit 1) still ends the process. Returns a function that removes them.
 */
export function installProcessGuards(report: (kind: UncaughtKind, error: unknown) => void): () => void {
  const safely = (kind: UncaughtKind) => (error: unknown) => {
    try {
      report(kind, error);
    } catch {
      // Reporting failed (stdout gone?): the count is lost, the process goes on.
    }
  };
  const onException = safely('uncaughtException');
  const onRejection = safely('unhandledRejection');
  // A closed stdout (the reader went away) errors on every write; without a listener each error is
  // itself uncaught, and reporting it writes again.
  const onStdoutError = () => {};
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  process.stdout.on('error', onStdoutError);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
    process.stdout.off('error', onStdoutError);
  };
}
