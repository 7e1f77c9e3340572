/**
 * The reversible link-level faults of a {@link MemoryNetwork}, as plain decisions by address:
 * loss rates, partitions and blackouts. Crash and pause belong to the endpoints themselves. Every
 * check is a cheap no-op while the fault is not in use, so a healthy network pays almost nothing.
 */
export class Faults {
  /** Uniform packet loss on every link. */
  loss = 0;
  readonly #linkLoss = new Map<string, Map<string, number>>();
  readonly #partitions: Array<readonly [ReadonlySet<string>, ReadonlySet<string>]> = [];
  readonly #blackout = new Set<string>();

  /**
   * Lose each packet from `from` to `to` (one way) with probability `p`, replacing any earlier
   * rate for that link; 0 removes it. `p` is not checked here: {@link MemoryNetwork.setLinkLoss} does.
   */
  setLinkLoss(from: string, to: string, p: number): void {
    let row = this.#linkLoss.get(from);
    if (p === 0) {
      row?.delete(to);
      if (row?.size === 0) this.#linkLoss.delete(from);
      return;
    }
    if (row === undefined) this.#linkLoss.set(from, (row = new Map()));
    row.set(to, p);
  }

  /** One-way loss probability from `from` to `to` (0 when none is set). */
  linkLoss(from: string, to: string): number {
    if (this.#linkLoss.size === 0) return 0;
    return this.#linkLoss.get(from)?.get(to) ?? 0;
  }

  /** Add a partition between the two groups of addresses (earlier ones stay); a RangeError if an address is in both. */
  partition(groupA: readonly string[], groupB: readonly string[]): void {
    const a = new Set(groupA);
    const b = new Set(groupB);
    for (const address of a) {
      if (b.has(address)) throw new RangeError(`partition: ${address} is on both sides`);
    }
    this.#partitions.push([a, b]);
  }

  /** Remove every partition. */
  heal(): void {
    this.#partitions.length = 0;
  }

  /** True when some partition puts `x` and `y` on opposite sides. */
  separated(x: string, y: string): boolean {
    const partitions = this.#partitions;
    for (let i = 0; i < partitions.length; i++) {
      const [a, b] = partitions[i]!;
      if ((a.has(x) && b.has(y)) || (b.has(x) && a.has(y))) return true;
    }
    return false;
  }

  /** True while at least one partition is in place. */
  get partitioned(): boolean {
    return this.#partitions.length > 0;
  }

  /** Black out `addresses`, in addition to those already out, until `endBlackout`. */
  startBlackout(addresses: readonly string[]): void {
    for (const address of addresses) this.#blackout.add(address);
  }

  /** Ends the blackout of `addresses` (all when undefined). */
  endBlackout(addresses: readonly string[] | undefined): void {
    if (addresses === undefined) this.#blackout.clear();
    else for (const address of addresses) this.#blackout.delete(address);
  }

  /** True while `address` is blacked out. */
  blackedOut(address: string): boolean {
    return this.#blackout.size > 0 && this.#blackout.has(address);
  }

  /** True when traffic between `x` and `y` cannot pass right now (partition or blackout). */
  cut(x: string, y: string): boolean {
    if (this.#blackout.size > 0 && (this.#blackout.has(x) || this.#blackout.has(y))) return true;
    return this.#partitions.length > 0 && this.separated(x, y);
  }
}
