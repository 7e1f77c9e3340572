import type { Clock, Timer } from '@swim/runtime';

/**
 * One member's view of a shared clock that can be frozen, as SIGSTOP freezes a process: time
 * keeps passing (`now()` is the shared clock's), but no timer fires while paused. A timer that
 * comes due during the pause fires right after `resume()`, in the order the timers came due,
 * just as a stopped Go or Node process runs its overdue timers when continued.
 *
 * The network cannot do this part of a pause: it only holds deliveries. The Simulation pauses
 * both.
 */
export class PausableClock implements Clock {
  readonly #base: Clock;
  #paused = false;
  /** Timers that came due while paused, in the order they did. */
  #overdue: PausableTimer[] = [];

  constructor(base: Clock) {
    this.#base = base;
  }

  /** True between `pause()` and `resume()`, while timers that come due are held back. */
  get paused(): boolean {
    return this.#paused;
  }

  now(): number {
    return this.#base.now();
  }

  timer(callback: () => void): Timer {
    const timer = new PausableTimer();
    timer.inner = this.#base.timer(() => {
      if (!this.#paused) return callback();
      timer.overdue = true;
      this.#overdue.push(timer);
    });
    return timer;
  }

  /** Freeze: timers that come due from now on wait for `resume()`; `now()` keeps advancing. */
  pause(): void {
    this.#paused = true;
  }

  /** Unfreeze: overdue timers are re-armed for now, so they run as ordinary events, in order. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    const overdue = this.#overdue;
    this.#overdue = [];
    const now = this.#base.now();
    for (const timer of overdue) {
      if (!timer.overdue) continue; // re-armed or cancelled meanwhile
      timer.overdue = false;
      timer.inner.arm(now);
    }
  }
}

class PausableTimer implements Timer {
  /** Set right after construction: the base clock's timer, whose callback checks the pause. */
  inner!: Timer;
  /** Came due while paused and has not fired yet. */
  overdue = false;

  arm(at: number): void {
    this.overdue = false;
    this.inner.arm(at);
  }

  cancel(): void {
    this.overdue = false;
    this.inner.cancel();
  }
}
