/** A member reaped after its death or leave: where it was and the incarnation it went down at. */
export interface Tombstone {
  readonly address: string;
  readonly incarnation: number;
  /** Whether it left (its own dead message) rather than being declared dead. */
  readonly left: boolean;
  /** When it went down (core time). */
  readonly diedAt: number;
}

/**
 * Deaths remembered after the reap (docs/restarts.md). memberlist forgets a reaped member
 * entirely, so any stale view of it (a member that was paused through the death and reap, or one
 * restored from a snapshot taken before) brings it back as a new member at the incarnation it died
 * at: every member reports a join, probes a process that is gone, suspects it and declares it dead
 * again, and a suspicion of that zombie can still be running when the real process restarts.
 * Bounded: at most `limit` names, the oldest buried first out.
 */
export class Tombstones {
  readonly #byName = new Map<string, Tombstone>();

  constructor(private readonly limit: number) {}

  bury(name: string, tombstone: Tombstone): void {
    this.#byName.delete(name);
    if (this.#byName.size >= this.limit) {
      const oldest = this.#byName.keys().next();
      if (oldest.done !== true) this.#byName.delete(oldest.value);
    }
    this.#byName.set(name, tombstone);
  }

  /**
   * The tombstone an alive about `name` does not override: same address, an incarnation no higher
   * than the death (an alive overrides a dead only above it: memberlist aliveNode). Undefined when
   * there is none, or it is older than `keepMs` (then dropped).
   */
  covering(name: string, address: string, incarnation: number, now: number, keepMs: number): Tombstone | undefined {
    const tombstone = this.#byName.get(name);
    if (tombstone === undefined) return undefined;
    if (now - tombstone.diedAt > keepMs) {
      this.#byName.delete(name);
      return undefined;
    }
    return tombstone.address === address && incarnation <= tombstone.incarnation ? tombstone : undefined;
  }

  /** A reaped member we hold dead was force-left: its tombstone now says it left (so does the accusation we answer with). */
  markLeft(name: string, incarnation = Infinity): void {
    const tombstone = this.#byName.get(name);
    if (tombstone !== undefined && !tombstone.left && incarnation >= tombstone.incarnation) this.#byName.set(name, { ...tombstone, left: true });
  }

  /** The member is back in the table: its tombstone says nothing more. */
  forget(name: string): void {
    this.#byName.delete(name);
  }
}
