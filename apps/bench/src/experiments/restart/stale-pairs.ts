import type { SimEvent } from '@swim/transport-memory';

/**
 * Stale pairs of a restart run, kept from membership events: a running member whose last event
 * about another running member left it dead or left (it may have reaped it since: then it does not
 * know it at all, which events do not report). A member a restarted one has not learned of yet is
 * not stale (the convergence time covers that); suspect is not either. A pair
 * stops being stale when the observer learns otherwise, or when either of the two goes down (then
 * "dead" is right again). A restarted observer starts with an empty table, so what its old
 * process held is forgotten.
 *
 * Members are dense indexes (their order in the cluster).
 */
export class StalePairs {
  /** Per subject: observers whose last event about it left it dead or left, with that incarnation. */
  readonly #heldDown: Array<Map<number, number>>;
  readonly #running: boolean[];
  /** Open stale pairs (observer * n + subject) and since when. */
  readonly #open = new Map<number, number>();
  readonly #n: number;
  #pairMs = 0;
  #longestMs = 0;
  #longestPair: readonly [observer: number, subject: number, fromMs: number] | undefined;

  constructor(n: number) {
    this.#n = n;
    this.#heldDown = Array.from({ length: n }, () => new Map());
    this.#running = Array.from({ length: n }, () => true);
  }

  /** Stale pair-milliseconds so far (pairs still open count up to `now`). */
  pairMs(now: number): number {
    let open = 0;
    for (const since of this.#open.values()) open += now - since;
    return this.#pairMs + open;
  }

  /** The longest stale stretch of one pair so far (an open one counts up to `now`). */
  longestMs(now: number): number {
    let longest = this.#longestMs;
    for (const since of this.#open.values()) longest = Math.max(longest, now - since);
    return longest;
  }

  /** The longest stale pair so far as [observer, subject, since ms] (an open one counts up to `now`). */
  longestPair(now: number): readonly [observer: number, subject: number, fromMs: number] | undefined {
    let best = this.#longestPair;
    let longest = this.#longestMs;
    for (const [key, since] of this.#open) {
      if (now - since > longest) {
        longest = now - since;
        best = [Math.floor(key / this.#n), key % this.#n, since];
      }
    }
    return best;
  }

  /** Stale pairs open now. */
  get openCount(): number {
    return this.#open.size;
  }

  /** A membership event of `observer` about `subject` at `at`. */
  onEvent(observer: number, subject: number, event: SimEvent): void {
    if (observer === subject) return;
    const held = this.#heldDown[subject]!;
    if (event.kind === 'dead' || event.kind === 'left') held.set(observer, event.incarnation);
    else held.delete(observer);
    this.#update(observer, subject, event.at);
  }

  /** `index` crashed: pairs it is part of are no longer stale. */
  crashed(index: number, now: number): void {
    this.#running[index] = false;
    for (const key of [...this.#open.keys()]) {
      const o = Math.floor(key / this.#n);
      const s = key % this.#n;
      if (o === index || s === index) this.#close(key, now);
    }
  }

  /** `index` runs again as a fresh process: it holds nobody down, and whoever holds it down is stale now. */
  restarted(index: number, now: number): void {
    this.#running[index] = true;
    for (const held of this.#heldDown) held.delete(index);
    for (const observer of this.#heldDown[index]!.keys()) this.#update(observer, index, now);
  }

  /**
   * Running members that some running member holds dead or left at or above their own
   * incarnation (`incarnationOf`; `heldAt(o, s)` reads what o's table holds about s now, if it is
   * dead or left): their alive cannot override that, only a refutation above it can.
   */
  heldDownAtOrAbove(incarnationOf: (index: number) => number, heldAt: (observer: number, subject: number) => number | undefined): number {
    let count = 0;
    for (let s = 0; s < this.#n; s++) {
      if (!this.#running[s]) continue;
      const own = incarnationOf(s);
      for (const [o, incarnation] of this.#heldDown[s]!) {
        if (!this.#running[o] || incarnation < own) continue;
        const held = heldAt(o, s);
        if (held !== undefined && held >= own) {
          count++;
          break;
        }
      }
    }
    return count;
  }

  #update(observer: number, subject: number, now: number): void {
    const key = observer * this.#n + subject;
    const stale = this.#running[observer]! && this.#running[subject]! && this.#heldDown[subject]!.has(observer);
    const open = this.#open.has(key);
    if (stale && !open) this.#open.set(key, now);
    else if (!stale && open) this.#close(key, now);
  }

  #close(key: number, now: number): void {
    const since = this.#open.get(key)!;
    this.#open.delete(key);
    this.#pairMs += now - since;
    if (now - since > this.#longestMs) {
      this.#longestMs = now - since;
      this.#longestPair = [Math.floor(key / this.#n), key % this.#n, since];
    }
  }
}
