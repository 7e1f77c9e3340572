/**
 * How many new member names one source may add per window (a token count per source address,
 * reset when its window ends). Gossip and push-pulls a peer opens are unsolicited: a stranger can
 * send them at will, so each source gets `perWindow` new names per probe interval. Answers to
 * push-pulls we started are exempt (the caller passes no source): we chose whom to ask, and a
 * join must learn the whole cluster at once. The table cap (`maxMembers`) bounds both.
 *
 * memberlist has no such bound: 100,000 forged alives in 100 datagrams add 100,000 members.
 */
export class NewMemberBudget {
  readonly #used = new Map<string, { windowStart: number; count: number }>();
  /** When expired windows were last dropped. */
  #sweptAt = -Infinity;

  constructor(
    private readonly perWindow: number,
    private readonly windowMs: number,
    /** Sources tracked at once; beyond it, expired windows are dropped (or all, if none expired). */
    private readonly maxSources = 4096,
  ) {}

  /** Take one new name for `source` at `now`; false when its budget for this window is spent. */
  take(source: string, now: number): boolean {
    // An expired window counts as none (below), so dropping them changes no answer; done once a
    // window, it keeps the sources of a join storm (one per member that taught us a name) from
    // staying tracked for good.
    if (now - this.#sweptAt >= this.windowMs) {
      this.#sweptAt = now;
      this.#dropExpired(now);
    }
    let entry = this.#used.get(source);
    if (entry === undefined || now - entry.windowStart >= this.windowMs) {
      if (entry === undefined && this.#used.size >= this.maxSources) this.#prune(now);
      entry = { windowStart: now, count: 0 };
      this.#used.set(source, entry);
    }
    if (entry.count >= this.perWindow) return false;
    entry.count++;
    return true;
  }

  get trackedSources(): number {
    return this.#used.size;
  }

  #dropExpired(now: number): void {
    for (const [source, entry] of this.#used) if (now - entry.windowStart >= this.windowMs) this.#used.delete(source);
  }

  #prune(now: number): void {
    this.#dropExpired(now);
    // Every window still open: forgetting them all at worst lets each source start over once.
    if (this.#used.size >= this.maxSources) this.#used.clear();
  }
}
