import type { Clock, Timer } from '@swim/runtime';
import type { Scheduler } from './scheduler.js';

/**
 * A re-armable timer's state. The heap may hold stale entries for it (lazy invalidation): only the
 * entry whose `gen` matches is live, and even that one may find the timer re-armed for later.
 */
class TimerState {
  /** When the timer should fire; NaN while disarmed. */
  armedAt = Number.NaN;
  /** Sequence number of the arming: orders the timer among events due at the same time. */
  armSeq = 0;
  /** Time of the live heap entry; Infinity when there is none. */
  queuedAt = Number.POSITIVE_INFINITY;
  /** Generation of the live heap entry; older entries are skipped when they surface. */
  gen = 0;

  constructor(readonly callback: () => void) {}
}

/** Heap payload: a one-off callback, or a timer (with the generation in the parallel array). */
type Task = (() => void) | TimerState;

/** Generation stored for one-off callbacks. */
const ONE_OFF = -1;

/**
 * Virtual time for a simulation: a {@link Clock} for runtime members and a {@link Scheduler} for
 * the memory network, driven by a single event queue. Time moves only in `runUntil`, `runFor` and
 * `step`, jumping from event to event, so a simulated minute costs only the events in it.
 *
 * Events run in (time, insertion order): equal times keep the order they were scheduled (a
 * timer's place is when it was last armed for a new time), which makes every run with the same inputs
 * identical. The queue is a 4-ary min-heap over parallel arrays (no object per entry). Timers are
 * invalidated lazily: re-arming pushes a new entry only when the new time is not later than the
 * queued one, otherwise the queued entry re-queues itself when it surfaces. Members re-arm their
 * one timer after every packet, usually to the same or a later time, so most re-arms cost O(1).
 */
export class VirtualClock implements Clock, Scheduler {
  #now: number;
  #seq = 0;
  /** Events that will run: one-offs queued plus timers armed (stale heap entries excluded). */
  #live = 0;
  #running = false;
  readonly #at: number[] = [];
  readonly #order: number[] = [];
  readonly #task: Task[] = [];
  readonly #gen: number[] = [];

  constructor(start = 0) {
    if (!Number.isFinite(start)) throw new RangeError(`VirtualClock: start must be finite, got ${start}`);
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Events still to run (one-off callbacks and armed timers). */
  get pending(): number {
    return this.#live;
  }

  /** Run `fn` once at `at` (clamped to now: the past is not revisited). */
  schedule(at: number, fn: () => void): void {
    this.#push(this.#clamp(at), this.#seq++, fn, ONE_OFF);
    this.#live++;
  }

  timer(callback: () => void): Timer {
    const state = new TimerState(callback);
    return {
      arm: (at) => this.#arm(state, at),
      cancel: () => this.#cancel(state),
    };
  }

  /** Run every event due at or before `time`, in order, then set the clock to `time`. */
  runUntil(time: number): void {
    if (Number.isNaN(time)) throw new RangeError('VirtualClock.runUntil: time is NaN');
    this.#enter();
    try {
      const at = this.#at;
      while (at.length > 0 && at[0]! <= time) this.#runTop();
      if (time > this.#now) this.#now = time;
    } finally {
      this.#running = false;
    }
  }

  /** Run for `ms` of virtual time. */
  runFor(ms: number): void {
    this.runUntil(this.#now + ms);
  }

  /** Run the next event, whenever it is due; false when nothing is left to run. */
  step(): boolean {
    this.#enter();
    try {
      while (this.#at.length > 0) if (this.#runTop()) return true;
      return false;
    } finally {
      this.#running = false;
    }
  }

  #enter(): void {
    // Callbacks schedule work; they must not drive the clock themselves (the outer loop would
    // then run events out of order).
    if (this.#running) throw new Error('VirtualClock: runUntil/runFor/step called from inside an event');
    this.#running = true;
  }

  #clamp(at: number): number {
    if (Number.isNaN(at)) throw new RangeError('VirtualClock: event time is NaN');
    return at < this.#now ? this.#now : at;
  }

  #arm(state: TimerState, time: number): void {
    const at = this.#clamp(time);
    if (state.armedAt === at) return; // same time: keep its place, as the real clock does
    if (Number.isNaN(state.armedAt)) this.#live++;
    state.armedAt = at;
    state.armSeq = this.#seq++;
    // A queued entry at an earlier time will re-queue itself; one at this very time may carry an
    // older arming order (cancelled, then armed again), so it is replaced too.
    if (at <= state.queuedAt) {
      state.queuedAt = at;
      this.#push(at, state.armSeq, state, ++state.gen);
    }
  }

  #cancel(state: TimerState): void {
    if (Number.isNaN(state.armedAt)) return;
    state.armedAt = Number.NaN;
    this.#live--;
  }

  /** Pop the earliest entry and run it; false if it was stale or re-queued (no event ran). */
  #runTop(): boolean {
    const at = this.#at[0]!;
    const task = this.#task[0]!;
    const gen = this.#gen[0]!;
    this.#pop();
    if (gen === ONE_OFF) {
      this.#live--;
      this.#now = at;
      (task as () => void)();
      return true;
    }
    const state = task as TimerState;
    if (gen !== state.gen) return false; // superseded by an earlier arming
    state.queuedAt = Number.POSITIVE_INFINITY;
    const armedAt = state.armedAt;
    if (Number.isNaN(armedAt)) return false; // cancelled
    if (armedAt > at) {
      // Re-armed for later since this entry was queued: queue it there, keeping its arming order.
      state.queuedAt = armedAt;
      this.#push(armedAt, state.armSeq, state, ++state.gen);
      return false;
    }
    state.armedAt = Number.NaN;
    this.#live--;
    this.#now = at;
    state.callback();
    return true;
  }

  // --- 4-ary heap over (at, order), hole-based sifting -----------------------------------------
  // Four children per node, not two: half the levels, and the four keys a sift-down compares sit
  // side by side in `#at`. The heap holds about one entry per simulated member (1,045-1,063 at
  // 1,000 members), and every push and pop walks its depth.

  #push(at: number, order: number, task: Task, gen: number): void {
    const ats = this.#at;
    const orders = this.#order;
    const tasks = this.#task;
    const gens = this.#gen;
    let i = ats.length;
    ats.push(at);
    orders.push(order);
    tasks.push(task);
    gens.push(gen);
    while (i > 0) {
      const parent = (i - 1) >> 2;
      const pAt = ats[parent]!;
      if (pAt < at || (pAt === at && orders[parent]! < order)) break;
      ats[i] = pAt;
      orders[i] = orders[parent]!;
      tasks[i] = tasks[parent]!;
      gens[i] = gens[parent]!;
      i = parent;
    }
    ats[i] = at;
    orders[i] = order;
    tasks[i] = task;
    gens[i] = gen;
  }

  #pop(): void {
    const ats = this.#at;
    const orders = this.#order;
    const tasks = this.#task;
    const gens = this.#gen;
    const at = ats.pop()!;
    const order = orders.pop()!;
    const task = tasks.pop()!;
    const gen = gens.pop()!;
    const n = ats.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      // The earliest of up to four children.
      let child = first;
      let cAt = ats[first]!;
      const last = first + 3 < n ? first + 3 : n - 1;
      for (let c = first + 1; c <= last; c++) {
        const next = ats[c]!;
        if (next < cAt || (next === cAt && orders[c]! < orders[child]!)) {
          child = c;
          cAt = next;
        }
      }
      if (at < cAt || (at === cAt && order < orders[child]!)) break;
      ats[i] = cAt;
      orders[i] = orders[child]!;
      tasks[i] = tasks[child]!;
      gens[i] = gens[child]!;
      i = child;
    }
    ats[i] = at;
    orders[i] = order;
    tasks[i] = task;
    gens[i] = gen;
  }
}
