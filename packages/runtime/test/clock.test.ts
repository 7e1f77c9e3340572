import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { realClock } from '../src/index.js';

describe('realClock timers', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A timer that records when (clock time) its callback ran. */
  function recorded() {
    const fired: number[] = [];
    const timer = realClock.timer(() => fired.push(realClock.now()));
    return { timer, fired };
  }

  it('fires once per arming, at the last time it was armed for, later or earlier', () => {
    const start = realClock.now();
    const { timer, fired } = recorded();
    timer.arm(start + 100);
    timer.arm(start + 300); // later: replaces the pending timeout too
    vi.advanceTimersByTime(299);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([start + 300]);
    timer.arm(start + 1_000);
    timer.arm(start + 500); // earlier: replaces the pending timeout
    vi.advanceTimersByTime(1_000);
    expect(fired).toEqual([start + 300, start + 500]);
  });

  it('does not fire once cancelled, and can be armed again', () => {
    const start = realClock.now();
    const { timer, fired } = recorded();
    timer.arm(start + 50);
    timer.arm(start + 80);
    timer.cancel();
    vi.advanceTimersByTime(200);
    expect(fired).toEqual([]);
    timer.arm(start + 250);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual([start + 250]);
  });

  it('a time in the past fires at once', () => {
    const start = realClock.now();
    const { timer, fired } = recorded();
    timer.arm(start - 10);
    vi.advanceTimersByTime(0);
    expect(fired).toEqual([start]);
  });
});
