/**
 * Time for one member: a monotonic `now()` in milliseconds and timers. The runtime keeps exactly
 * one timer armed per member, at the core's next deadline. A virtual clock (the simulator's in
 * @swim/transport-memory) implements the same interface, so a member runs unchanged on virtual time.
 */
export interface Clock {
  /** Monotonic milliseconds; never goes backwards. */
  now(): number;
  /** A re-armable timer that calls `callback` once per arming. */
  timer(callback: () => void): Timer;
}

/** One re-armable timer of a {@link Clock}; at most one arming is pending at a time. */
export interface Timer {
  /** Fire at `at` (clock milliseconds), replacing any earlier arming. */
  arm(at: number): void;
  /** Drop the pending arming, if any; the timer can be armed again. */
  cancel(): void;
}

/** The real clock: `performance.now()` and `setTimeout`, both in Node and in browsers. */
export const realClock: Clock = {
  now: () => performance.now(),
  timer(callback) {
    let handle: ReturnType<typeof setTimeout> | undefined;
    let armedAt: number | undefined;
    return {
      arm(at) {
        if (armedAt === at && handle !== undefined) return;
        if (handle !== undefined) clearTimeout(handle);
        armedAt = at;
        handle = setTimeout(
          () => {
            handle = undefined;
            armedAt = undefined;
            callback();
          },
          Math.max(0, at - performance.now()),
        );
      },
      cancel() {
        if (handle !== undefined) clearTimeout(handle);
        handle = undefined;
        armedAt = undefined;
      },
    };
  },
};
