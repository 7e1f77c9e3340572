/**
 * A Lamport clock as Serf keeps one (serf LamportClock): `increment` stamps a new message of ours,
 * `witness` moves past a time someone else stamped, so our next message is newer than it.
 */
export class LamportClock {
  #counter = 0;

  /** The current time: 0 at first; `increment` and `witness` only move it forward. */
  get time(): number {
    return this.#counter;
  }

  /** Advance by one and return the new time, to stamp a message of ours (serf LamportClock.Increment). */
  increment(): number {
    return ++this.#counter;
  }

  /** Move to `time` + 1 when `time` is not older than the current time; ignores what is not a safe integer (serf LamportClock.Witness). */
  witness(time: number): void {
    if (Number.isSafeInteger(time) && time >= this.#counter) this.#counter = time + 1;
  }
}
