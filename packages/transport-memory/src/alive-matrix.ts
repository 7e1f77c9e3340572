/**
 * Who sees whom alive, kept up to date from member events, so that "has the cluster converged?"
 * costs O(members) per check instead of O(members²) table lookups: the simulator checks it every
 * 100 ms of virtual time, which at 1,000 members would otherwise dominate the run.
 *
 * Members are dense indexes. `rows[o][s]` is 1 when observer o's last event about s left s alive;
 * `count[o]` counts the live subjects o sees alive. A member's view of itself is not tracked: a
 * member always considers itself alive until it leaves.
 */
export class AliveMatrix {
  #capacity = 0;
  #size = 0;
  #rows: Uint8Array[] = [];
  #count: number[] = [];
  #live: Uint8Array = new Uint8Array(0);
  #liveCount = 0;

  /** A new, live member that sees nobody yet and nobody sees; returns its index. */
  add(): number {
    if (this.#size === this.#capacity) this.#grow();
    const index = this.#size++;
    this.#rows.push(new Uint8Array(this.#capacity));
    this.#count.push(0);
    this.#live[index] = 1;
    this.#liveCount++;
    return index;
  }

  /** Observer `o` now holds subject `s` alive (or not). */
  set(o: number, s: number, alive: boolean): void {
    const row = this.#rows[o]!;
    const value = alive ? 1 : 0;
    if (row[s] === value) return;
    row[s] = value;
    if (this.#live[s] === 1) this.#count[o]! += alive ? 1 : -1;
  }

  /** Member `index` is gone (crashed or left): it no longer observes, nor needs to be seen. */
  down(index: number): void {
    if (this.#live[index] !== 1) return;
    this.#live[index] = 0;
    this.#liveCount--;
    for (let o = 0; o < this.#size; o++) if (this.#rows[o]![index] === 1) this.#count[o]!--;
  }

  isLive(index: number): boolean {
    return this.#live[index] === 1;
  }

  /** Every live member sees every other live member alive. */
  converged(): boolean {
    const want = this.#liveCount - 1;
    for (let o = 0; o < this.#size; o++) {
      if (this.#live[o] === 1 && this.#count[o] !== want) return false;
    }
    return true;
  }

  #grow(): void {
    const capacity = Math.max(16, this.#capacity * 2);
    this.#rows = this.#rows.map((row) => {
      const wider = new Uint8Array(capacity);
      wider.set(row);
      return wider;
    });
    const live = new Uint8Array(capacity);
    live.set(this.#live);
    this.#live = live;
    this.#capacity = capacity;
  }
}
