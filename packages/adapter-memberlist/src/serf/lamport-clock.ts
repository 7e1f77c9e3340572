/**
 * A Lamport clock as Serf keeps one (serf LamportClock): `increment` stamps a new message of ours,
 * `witness` moves past a time someone else stamped, so our next message is newer than it.
 */
export class LamportClock {
  #counter = 0;

  get time(): number {
    return this.#counter;
  }

  increment(): number {
    return ++this.#counter;
  }

  witness(time: number): void {
    if (Number.isSafeInteger(time) && time >= this.#counter) this.#counter = time + 1;
  }
}
