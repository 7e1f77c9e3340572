/** One keyed deadline; `index` is its slot in the heap so moves and deletes are O(log n), -1 while dormant. */
class DeadlineEntry<K> {
  constructor(
    readonly key: K,
    public at: number,
    /** When set() was last called for this key: breaks ties between equal deadlines. */
    public seq: number,
    public index: number,
  ) {}
}

/** Dormant entries kept for reuse at most; past it they are all dropped (suspicion and relay keys are one-off). */
const MAX_DORMANT = 16;

/** Heap order: earlier deadline first; equal deadlines in the order they were set. */
function before<K>(x: DeadlineEntry<K>, y: DeadlineEntry<K>): boolean {
  return x.at < y.at || (x.at === y.at && x.seq < y.seq);
}

/**
 * All of a node's timers (probe tick, ack and nack timeouts, suspicion expiries, gossip,
 * push-pull) in one indexed binary min-heap keyed by name, so the core can answer a single
 * `nextDeadline()` and the host needs one timer. memberlist uses a Go timer per purpose instead;
 * an IO-free core cannot. Every operation is O(log n); moving a key reuses its entry.
 *
 * A key that leaves the heap (deleted or popped) keeps its entry, dormant, for the next set of
 * the same key: a probe round sets and clears the same few keys every interval, and a new entry
 * plus a Map delete and insert each time cost more than the heap work itself.
 */
export class DeadlineQueue<K extends string = string> {
  private readonly heap: DeadlineEntry<K>[] = [];
  /** Every queued key's entry, and up to MAX_DORMANT dormant ones (index -1). */
  private readonly entries = new Map<K, DeadlineEntry<K>>();
  /** Keys whose entries went dormant since the last drop (some may be queued again since). */
  private readonly dormantKeys: K[] = [];
  private nextSeq = 0;

  /** Insert `key` or move its deadline to `at`. A moved key counts as the newest on ties. */
  set(key: K, at: number): void {
    if (Number.isNaN(at)) throw new RangeError(`DeadlineQueue.set(${key}): deadline is NaN`);
    const seq = this.nextSeq++;
    let entry = this.entries.get(key);
    if (entry === undefined) this.entries.set(key, (entry = new DeadlineEntry(key, at, seq, -1)));
    if (entry.index < 0) {
      // New or dormant: into the heap.
      entry.at = at;
      entry.seq = seq;
      entry.index = this.heap.length;
      this.heap.push(entry);
      this.siftUp(entry);
      return;
    }
    const movedEarlier = at < entry.at;
    entry.at = at;
    entry.seq = seq; // a larger seq only ever makes the entry later on ties
    if (movedEarlier) this.siftUp(entry);
    else this.siftDown(entry);
  }

  delete(key: K): boolean {
    const entry = this.queued(key);
    if (entry === undefined) return false;
    this.remove(entry);
    return true;
  }

  get(key: K): number | undefined {
    return this.queued(key)?.at;
  }

  has(key: K): boolean {
    return this.queued(key) !== undefined;
  }

  /** The earliest deadline, or undefined when nothing is scheduled. */
  next(): number | undefined {
    return this.heap[0]?.at;
  }

  /**
   * Removes and returns the earliest key whose deadline is ≤ `now`; call in a loop to drain
   * everything due. Equal deadlines come out in the order they were set, so runs are deterministic.
   */
  popDue(now: number): K | undefined {
    const top = this.heap[0];
    if (top === undefined || !(top.at <= now)) return undefined;
    this.remove(top);
    return top.key;
  }

  get size(): number {
    return this.heap.length;
  }

  /** Entries held, queued and dormant (for the test of the dormant bound). */
  get held(): number {
    return this.entries.size;
  }

  private remove(entry: DeadlineEntry<K>): void {
    const last = this.heap.pop() as DeadlineEntry<K>;
    if (last !== entry) {
      last.index = entry.index;
      this.heap[last.index] = last;
      if (before(last, entry)) this.siftUp(last);
      else this.siftDown(last);
    }
    entry.index = -1;
    if (this.dormantKeys.push(entry.key) > MAX_DORMANT) this.dropDormant();
    // Sequence numbers only order live entries, so they can restart when the queue drains.
    if (this.heap.length === 0) this.nextSeq = 0;
  }

  /** The entry of `key` while it is in the heap (not dormant). */
  private queued(key: K): DeadlineEntry<K> | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.index >= 0 ? entry : undefined;
  }

  /** O(MAX_DORMANT), once per MAX_DORMANT removals: a walk of the Map would cost its size there. */
  private dropDormant(): void {
    const keys = this.dormantKeys;
    for (let i = 0; i < keys.length; i++) {
      const entry = this.entries.get(keys[i]!);
      if (entry !== undefined && entry.index < 0) this.entries.delete(keys[i]!);
    }
    keys.length = 0;
  }

  private siftUp(entry: DeadlineEntry<K>): void {
    const heap = this.heap;
    let index = entry.index;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex] as DeadlineEntry<K>;
      if (!before(entry, parent)) break;
      heap[index] = parent;
      parent.index = index;
      index = parentIndex;
    }
    heap[index] = entry;
    entry.index = index;
  }

  private siftDown(entry: DeadlineEntry<K>): void {
    const heap = this.heap;
    const length = heap.length;
    let index = entry.index;
    for (;;) {
      const leftIndex = 2 * index + 1;
      if (leftIndex >= length) break;
      const rightIndex = leftIndex + 1;
      let childIndex = leftIndex;
      let child = heap[leftIndex] as DeadlineEntry<K>;
      if (rightIndex < length) {
        const right = heap[rightIndex] as DeadlineEntry<K>;
        if (before(right, child)) {
          childIndex = rightIndex;
          child = right;
        }
      }
      if (!before(child, entry)) break;
      heap[index] = child;
      child.index = index;
      index = childIndex;
    }
    heap[index] = entry;
    entry.index = index;
  }
}
