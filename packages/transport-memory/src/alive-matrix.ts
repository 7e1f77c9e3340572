/**
 * Who sees whom alive, kept up to date from member events, so that "has the cluster converged?"
 * costs O(members) per check instead of O(members²) table lookups: the simulator checks it every
 * 100 ms of virtual time, which at 1,000 members would otherwise dominate the run.
 *
 * Members are dense indexes. Bit s of `rows[o]` is set when observer o's last event about s left s
 * alive; `count[o]` counts the live subjects o sees alive. A member's view of itself is not
 * tracked: a member always considers itself alive until it leaves. One bit per pair, so 10,000
 * members take 12.5 MB here, not the 100 MB a byte per pair would.
 */
export class AliveMatrix {
  #capacity = 0;
  #size = 0;
  #rows: Uint32Array[] = [];
  #count: number[] = [];
  #live: Uint8Array = new Uint8Array(0);
  #liveCount = 0;

  /** A new, live member that sees nobody yet and nobody sees; returns its index. */
  add(): number {
    if (this.#size === this.#capacity) this.#grow();
    const index = this.#size++;
    this.#rows.push(new Uint32Array(this.#capacity >>> 5));
    this.#count.push(0);
    this.#live[index] = 1;
    this.#liveCount++;
    return index;
  }

  /** Observer `o` now holds subject `s` alive (or not). */
  set(o: number, s: number, alive: boolean): void {
    const row = this.#rows[o]!;
    const word = s >>> 5;
    const bit = 1 << (s & 31);
    if (((row[word]! & bit) !== 0) === alive) return;
    row[word] = row[word]! ^ bit;
    if (this.#live[s] === 1) this.#count[o]! += alive ? 1 : -1;
  }

  /** Member `index` is gone (crashed or left): it no longer observes, nor needs to be seen. */
  down(index: number): void {
    if (this.#live[index] !== 1) return;
    this.#live[index] = 0;
    this.#liveCount--;
    const word = index >>> 5;
    const bit = 1 << (index & 31);
    for (let o = 0; o < this.#size; o++) if ((this.#rows[o]![word]! & bit) !== 0) this.#count[o]!--;
  }

  /**
   * Member `index` is back as a new process (a restart): live again, needed by every observer's
   * count, and seeing nobody yet. What the others hold about it is kept: their views of a member
   * survive its restart, which is what a restart has to overcome.
   */
  up(index: number): void {
    if (this.#live[index] === 1) return;
    this.#live[index] = 1;
    this.#liveCount++;
    const word = index >>> 5;
    const bit = 1 << (index & 31);
    for (let o = 0; o < this.#size; o++) if ((this.#rows[o]![word]! & bit) !== 0) this.#count[o]!++;
    this.#rows[index]!.fill(0);
    this.#count[index] = 0;
  }

  /** True while member `index` is neither crashed nor left. */
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
    const capacity = Math.max(32, this.#capacity * 2);
    this.#rows = this.#rows.map((row) => {
      const wider = new Uint32Array(capacity >>> 5);
      wider.set(row);
      return wider;
    });
    const live = new Uint8Array(capacity);
    live.set(this.#live);
    this.#live = live;
    this.#capacity = capacity;
  }
}
