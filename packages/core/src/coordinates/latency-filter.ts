/**
 * Each peer's last few RTTs and their moving median (serf coordinate/client.go latencyFilter;
 * Ledlie et al., "Network Coordinates in the Wild", NSDI 2007), so one slow ping does not move
 * our coordinate. Serf keeps a peer until it is reaped; names come from peers, so this also keeps
 * at most `maxNodes`, forgetting the one heard from least recently (docs/design.md, "Every input
 * is hostile").
 */
export class LatencyFilter {
  /**
   * Each peer's samples (seconds), oldest first. Map order is the order of each peer's latest
   * sample, so the first key is the peer heard from least recently.
   */
  readonly #samples = new Map<string, number[]>();
  #evicted = 0;

  constructor(
    /** Samples kept per peer (`latencyFilterSize`), at least 1. */
    readonly size: number,
    /** Peers kept (`maxTrackedNodes`), at least 1. */
    readonly maxNodes: number,
  ) {}

  /**
   * Adds `rttSeconds` to `node`'s samples, dropping the oldest beyond `size`, and returns the
   * element at ⌊n/2⌋ of the sorted samples: the median of 3, the larger of 2.
   */
  sample(node: string, rttSeconds: number): number {
    let samples = this.#samples.get(node);
    if (samples === undefined) {
      if (this.#samples.size >= this.maxNodes) {
        const oldest = this.#samples.keys().next();
        if (oldest.done !== true) this.#samples.delete(oldest.value);
        this.#evicted++;
      }
      samples = [];
    } else {
      this.#samples.delete(node); // set again below, last: the most recently heard from
    }
    samples.push(rttSeconds);
    if (samples.length > this.size) samples.shift();
    this.#samples.set(node, samples);

    const sorted = [...samples].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  }

  /** Drops `node`'s samples (serf client.go ForgetNode). */
  forget(node: string): void {
    this.#samples.delete(node);
  }

  /** Peers with samples now. */
  get trackedNodes(): number {
    return this.#samples.size;
  }

  /** Peers forgotten to stay within `maxNodes`. */
  get evictedNodes(): number {
    return this.#evicted;
  }
}
