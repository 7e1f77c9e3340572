import { describe, expect, it } from 'vitest';
import type { Clock, Timer } from '@swim/runtime';
import { PausableClock, VirtualClock } from '../src/index.js';

/**
 * The obvious implementation the heap must agree with: a list scanned for the minimum (time, then
 * the order of scheduling or of the latest arming for a new time), timers as entries replaced on
 * every arming.
 */
class NaiveClock implements Clock {
  #now = 0;
  #seq = 0;
  readonly #events: Array<{ at: number; seq: number; fn: () => void; timer?: object }> = [];

  now(): number {
    return this.#now;
  }

  schedule(at: number, fn: () => void): void {
    this.#events.push({ at: Math.max(at, this.#now), seq: this.#seq++, fn });
  }

  timer(callback: () => void): Timer {
    const key = {};
    let armedAt: number | undefined;
    const remove = () => {
      const i = this.#events.findIndex((e) => e.timer === key);
      if (i >= 0) this.#events.splice(i, 1);
    };
    return {
      arm: (time) => {
        const at = Math.max(time, this.#now);
        if (armedAt === at) return;
        remove();
        armedAt = at;
        this.#events.push({
          at,
          seq: this.#seq++,
          timer: key,
          fn: () => {
            armedAt = undefined;
            callback();
          },
        });
      },
      cancel: () => {
        armedAt = undefined;
        remove();
      },
    };
  }

  runUntil(time: number): void {
    for (;;) {
      let best = -1;
      this.#events.forEach((e, i) => {
        const b = this.#events[best];
        if (e.at <= time && (b === undefined || e.at < b.at || (e.at === b.at && e.seq < b.seq))) best = i;
      });
      if (best < 0) break;
      const [event] = this.#events.splice(best, 1);
      this.#now = event!.at;
      event!.fn();
    }
    this.#now = Math.max(this.#now, time);
  }
}

/** A deterministic script of timers re-arming themselves and each other, one-offs and cancels. */
function runScript(clock: Clock & { schedule(at: number, fn: () => void): void; runUntil(t: number): void }, script: number): string[] {
  const log: string[] = [];
  let x = script * 7919;
  // Small integer times, so that many events share a time and the tie order is exercised.
  const next = (n: number) => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) % n;
  const timers: Timer[] = [];
  for (let i = 0; i < 12; i++) {
    const timer = clock.timer(() => {
      log.push(`t${i}@${clock.now()}`);
      const r = next(10);
      if (r < 6) timer.arm(clock.now() + next(8));
      else if (r < 8) timers[next(12)]!.arm(clock.now() + next(5));
      else if (r < 9) timers[next(12)]!.cancel();
      else clock.schedule(clock.now() + next(4), () => log.push(`o-from-t${i}@${clock.now()}`));
    });
    timers.push(timer);
  }
  timers.forEach((t) => t.arm(next(10)));
  for (let round = 0; round < 300; round++) {
    const r = next(6);
    if (r < 3) timers[next(12)]!.arm(clock.now() + next(12));
    else if (r < 4) timers[next(12)]!.cancel();
    else clock.schedule(clock.now() + next(12), () => log.push(`o${round}@${clock.now()}`));
    clock.runUntil(clock.now() + next(4));
  }
  clock.runUntil(clock.now() + 100);
  return log;
}

describe('VirtualClock', () => {
  it('runs events in time order, equal times in the order they were scheduled', () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    clock.schedule(30, () => log.push('c@30'));
    clock.schedule(10, () => log.push('a@10'));
    clock.schedule(20, () => log.push('b1@20'));
    clock.schedule(20, () => log.push('b2@20'));
    clock.schedule(20, () => log.push('b3@20'));
    clock.runUntil(100);
    expect(log).toEqual(['a@10', 'b1@20', 'b2@20', 'b3@20', 'c@30']);
    expect(clock.now()).toBe(100);
  });

  it('runUntil runs events due at exactly the limit, leaves later ones and sets now to the limit', () => {
    const clock = new VirtualClock();
    const log: number[] = [];
    for (const at of [5, 10, 15]) clock.schedule(at, () => log.push(clock.now()));
    clock.runUntil(10);
    expect(log).toEqual([5, 10]);
    expect(clock.now()).toBe(10);
    expect(clock.pending).toBe(1);
    clock.runFor(5);
    expect(log).toEqual([5, 10, 15]);
    expect(clock.pending).toBe(0);
  });

  it('runs events scheduled by events, including ones due at the current time', () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    clock.schedule(10, () => {
      log.push('first');
      clock.schedule(clock.now(), () => log.push('same time'));
      clock.schedule(clock.now() + 5, () => log.push('later'));
      clock.schedule(clock.now() + 500, () => log.push('too late'));
    });
    clock.runUntil(20);
    expect(log).toEqual(['first', 'same time', 'later']);
  });

  it('never goes back in time: events in the past run at now', () => {
    const clock = new VirtualClock(1000);
    let at: number | undefined;
    clock.schedule(10, () => (at = clock.now()));
    clock.runFor(0);
    expect(at).toBe(1000);
    expect(clock.now()).toBe(1000);
    clock.runUntil(500);
    expect(clock.now()).toBe(1000);
  });

  it('step runs one event at a time, jumping to its time', () => {
    const clock = new VirtualClock();
    const log: number[] = [];
    clock.schedule(7, () => log.push(7));
    clock.schedule(3, () => log.push(3));
    expect(clock.step()).toBe(true);
    expect(clock.now()).toBe(3);
    expect(log).toEqual([3]);
    expect(clock.step()).toBe(true);
    expect(clock.step()).toBe(false);
    expect(log).toEqual([3, 7]);
  });

  it('rejects NaN times and re-entrant runs', () => {
    const clock = new VirtualClock();
    expect(() => clock.schedule(Number.NaN, () => {})).toThrow(RangeError);
    clock.schedule(1, () => clock.runFor(1));
    expect(() => clock.runFor(10)).toThrow(/inside an event/);
  });

  describe('timers', () => {
    it('fire once per arming, at the armed time', () => {
      const clock = new VirtualClock();
      const fired: number[] = [];
      const timer = clock.timer(() => fired.push(clock.now()));
      timer.arm(50);
      expect(clock.pending).toBe(1);
      clock.runUntil(200);
      expect(fired).toEqual([50]);
      expect(clock.pending).toBe(0);
      timer.arm(250);
      clock.runUntil(300);
      expect(fired).toEqual([50, 250]);
    });

    it('re-arming moves the timer, earlier or later; only the last arming fires', () => {
      const clock = new VirtualClock();
      const fired: number[] = [];
      const timer = clock.timer(() => fired.push(clock.now()));
      timer.arm(100);
      timer.arm(40); // earlier
      timer.arm(70); // later again
      timer.arm(300); // later still
      timer.arm(120);
      expect(clock.pending).toBe(1);
      clock.runUntil(1000);
      expect(fired).toEqual([120]);
    });

    it('cancel stops it; arming again revives it', () => {
      const clock = new VirtualClock();
      const fired: number[] = [];
      const timer = clock.timer(() => fired.push(clock.now()));
      timer.arm(10);
      timer.cancel();
      expect(clock.pending).toBe(0);
      clock.runUntil(20);
      expect(fired).toEqual([]);
      timer.arm(30);
      timer.cancel();
      timer.arm(30);
      clock.runUntil(40);
      expect(fired).toEqual([30]);
    });

    it('a timer re-armed from its own callback keeps ticking', () => {
      const clock = new VirtualClock();
      const fired: number[] = [];
      const timer = clock.timer(() => {
        fired.push(clock.now());
        timer.arm(clock.now() + 100);
      });
      timer.arm(100);
      clock.runUntil(450);
      expect(fired).toEqual([100, 200, 300, 400]);
    });

    it('orders a timer among equal-time events by when it was armed for that time', () => {
      const clock = new VirtualClock();
      const log: string[] = [];
      const timer = clock.timer(() => log.push('timer'));
      timer.arm(50);
      clock.schedule(100, () => log.push('one-off before'));
      timer.arm(100); // queued entry at 50 re-queues itself at 100, keeping this arming's place
      clock.schedule(100, () => log.push('one-off after'));
      clock.runUntil(100);
      expect(log).toEqual(['one-off before', 'timer', 'one-off after']);
    });

    it('a timer armed in the past fires at the current time', () => {
      const clock = new VirtualClock(500);
      const fired: number[] = [];
      clock.timer(() => fired.push(clock.now())).arm(100);
      clock.runFor(0);
      expect(fired).toEqual([500]);
    });

    it.each([1, 2, 3, 4, 5])('matches a naive reference model event for event (script %i)', (script) => {
      const actual = runScript(new VirtualClock(), script);
      expect(actual.length, `script ${script}`).toBeGreaterThan(300);
      expect(actual, `script ${script}`).toEqual(runScript(new NaiveClock(), script));
    });
  });
});

describe('PausableClock', () => {
  it('shares the base clock time and fires timers normally while running', () => {
    const base = new VirtualClock();
    const clock = new PausableClock(base);
    const fired: number[] = [];
    clock.timer(() => fired.push(clock.now())).arm(10);
    base.runUntil(20);
    expect(fired).toEqual([10]);
    expect(clock.now()).toBe(20);
  });

  it('freezes timers while paused and runs the overdue ones on resume, in the order they came due', () => {
    const base = new VirtualClock();
    const clock = new PausableClock(base);
    const fired: string[] = [];
    clock.timer(() => fired.push(`b@${clock.now()}`)).arm(30);
    clock.timer(() => fired.push(`a@${clock.now()}`)).arm(20);
    clock.timer(() => fired.push(`c@${clock.now()}`)).arm(500);
    clock.pause();
    base.runUntil(100);
    expect(fired).toEqual([]);
    expect(clock.now()).toBe(100);
    clock.resume();
    base.runUntil(100);
    expect(fired).toEqual(['a@100', 'b@100']);
    base.runUntil(600);
    expect(fired).toEqual(['a@100', 'b@100', 'c@500']);
  });

  it('a timer cancelled or re-armed while paused follows its latest arming', () => {
    const base = new VirtualClock();
    const clock = new PausableClock(base);
    const fired: string[] = [];
    const cancelled = clock.timer(() => fired.push('cancelled'));
    const moved = clock.timer(() => fired.push(`moved@${clock.now()}`));
    cancelled.arm(10);
    moved.arm(10);
    clock.pause();
    base.runUntil(50);
    cancelled.cancel();
    moved.arm(200);
    clock.resume();
    base.runUntil(300);
    expect(fired).toEqual(['moved@200']);
  });
});
