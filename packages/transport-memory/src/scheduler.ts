/**
 * What the in-memory network needs from time: read it, and run something later. The network is
 * written against this alone so that one implementation serves both worlds: a {@link VirtualClock}
 * (deterministic simulation, time advances only when the test says so) and {@link realScheduler}
 * (wall-clock time, for tests of code that sleeps or awaits real timers).
 */
export interface Scheduler {
  /** Monotonic milliseconds. */
  now(): number;
  /**
   * Run `fn` once at time `at` (a time in the past means as soon as possible). Never runs `fn`
   * synchronously inside the call, so callers can schedule from inside their own callbacks.
   */
  schedule(at: number, fn: () => void): void;
}

/** Real time: `performance.now()` and `setTimeout`, in Node and in browsers. */
export const realScheduler: Scheduler = {
  now: () => performance.now(),
  schedule(at, fn) {
    setTimeout(fn, Math.max(0, at - performance.now()));
  },
};
