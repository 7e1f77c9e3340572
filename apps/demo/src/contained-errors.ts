/**
 * Exceptions the demo survives: each member's `error` events (the runtime contains what the core,
 * a listener or the transport throws) and, once the demo has started, the process's uncaught
 * exceptions and unhandled rejections. Reported at a bounded rate: a flood of bad packets must not
 * become a flood of log lines.
 */

/** Reports per second; past it they are counted and summed up in the next one. */
export const REPORTS_PER_SECOND = 10;

/** Calls `report` at most `perSecond` times a second, with how many were held back since the last call. */
export function rateLimited<A extends unknown[]>(
  perSecond: number,
  report: (suppressed: number, ...args: A) => void,
  now: () => number = () => performance.now(),
): (...args: A) => void {
  let windowStart = Number.NEGATIVE_INFINITY;
  let used = 0;
  let suppressed = 0;
  return (...args) => {
    const at = now();
    if (at - windowStart >= 1000) {
      windowStart = at;
      used = 0;
    }
    if (used >= perSecond) {
      suppressed++;
      return;
    }
    used++;
    const held = suppressed;
    suppressed = 0;
    report(held, ...args);
  };
}

/** One line about any thrown value (never throws itself: a value's toString may). */
export function describeError(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? `${error.name}: ${error.message}` : typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
  } catch {
    text = Object.prototype.toString.call(error);
  }
  const line = text.replace(/\s+/g, ' ');
  return line.length > 500 ? `${line.slice(0, 500)}...` : line;
}

/**
 * Keep the process running through an uncaught exception or an unhandled rejection: `report` it
 * instead of exiting. Install once started, so that a start-up failure still ends the process.
 */
export function installProcessGuards(report: (kind: 'uncaughtException' | 'unhandledRejection', error: unknown) => void): () => void {
  const safely = (kind: 'uncaughtException' | 'unhandledRejection') => (error: unknown) => {
    try {
      report(kind, error);
    } catch {
      // Reporting failed (the terminal gone?): the process goes on.
    }
  };
  const onException = safely('uncaughtException');
  const onRejection = safely('unhandledRejection');
  // A closed stdout errors on every write; unheard, each error would itself be uncaught.
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
