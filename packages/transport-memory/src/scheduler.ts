import { realClock, type Clock } from '@swim/runtime';

/**
 * What the in-memory network needs from time: read it, run something later, and arm timeouts that
 * can be cancelled. The network is written against this alone so that one implementation serves
 * both worlds: a {@link VirtualClock} (deterministic simulation, time advances only when the test
 * says so) and {@link realScheduler} (wall-clock time, for tests of code that sleeps or awaits real
 * timers).
 *
 * A stream's timeout is a {@link Clock} timer, cancelled as soon as the stream ends: with real
 * time, a timeout left armed after its stream ended would keep the process alive for up to the
 * whole timeout once every member had closed.
 */
export interface Scheduler extends Clock {
  /**
   * Run `fn` once at time `at` (a time in the past means as soon as possible). Never runs `fn`
   * synchronously inside the call, so callers can schedule from inside their own callbacks. Used
   * for deliveries, which are due within one latency; anything longer is a {@link Clock.timer}.
   */
  schedule(at: number, fn: () => void): void;
}

/** Real time: `performance.now()` and `setTimeout` (timers are `realClock`'s), in Node and in browsers. */
export const realScheduler: Scheduler = {
  now: () => performance.now(),
  timer: (callback) => realClock.timer(callback),
  schedule(at, fn) {
    setTimeout(fn, Math.max(0, at - performance.now()));
  },
};
