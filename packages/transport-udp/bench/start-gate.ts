import { realClock, type Clock, type Timer } from '@swim/runtime';

/**
 * A clock that stands still until {@link StartGate.open}: members created on it hold their timers
 * (first probe, gossip and push-pull) until then, and from then on its time runs from where it
 * stood, so those timers fire staggered as if the members had just started.
 *
 * What it is for: a pre-formed cluster of thousands of members in one process. Preloading each with
 * the list of all takes seconds of CPU (2,000 members: 4 million entries); a member running
 * meanwhile gossips its own alive to members that do not hold it yet, each of which re-gossips it
 * (memberlist aliveNode), and at 2,000 members that join gossip, on a loop already busy preloading,
 * delayed acks past the probe timeout and set off a suspicion storm. Held at the gate, nobody sends
 * a packet until every member holds every member.
 */
export class StartGate implements Clock {
  /** Time shown while closed; undefined once open. */
  #standingAt: number | undefined = realClock.now();
  /** How far the gate's time is behind the real clock once open: the time it stood. */
  #behindMs = 0;
  /** Timers armed while closed, with the time they were armed for. */
  readonly #held = new Map<Timer, number>();

  get isOpen(): boolean {
    return this.#standingAt === undefined;
  }

  now(): number {
    return this.#standingAt ?? realClock.now() - this.#behindMs;
  }

  timer(callback: () => void): Timer {
    const inner = realClock.timer(callback);
    const timer: Timer = {
      arm: (at) => {
        if (this.#standingAt === undefined) inner.arm(at + this.#behindMs);
        else this.#held.set(timer, at);
      },
      cancel: () => {
        this.#held.delete(timer);
        inner.cancel();
      },
    };
    return timer;
  }

  /** Let time run: every held timer is armed, at the gate time it was armed for. Idempotent. */
  open(): void {
    if (this.#standingAt === undefined) return;
    this.#behindMs = realClock.now() - this.#standingAt;
    this.#standingAt = undefined;
    for (const [timer, at] of this.#held) timer.arm(at);
    this.#held.clear();
  }
}
