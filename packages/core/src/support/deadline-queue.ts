/** One keyed deadline; `index` is its slot in the heap so moves and deletes are O(log n). */
class DeadlineEntry<K> {
  constructor(
    readonly key: K,
    public at: number,
    /** When set() was last called for this key: breaks ties between equal deadlines. */
    public seq: number,
    public index: number,
  ) {}
}

/** Heap order: earlier deadline first; equal deadlines in the order they were set. */
function before<K>(x: DeadlineEntry<K>, y: DeadlineEntry<K>): boolean {
  return x.at < y.at || (x.at === y.at && x.seq < y.seq);
}

/**
 * All of a node's timers (probe tick, ack and nack timeouts, suspicion expiries, gossip,
 * push-pull) in one indexed binary min-heap keyed by name, so the core can answer a single
 * `nextDeadline()` and the host needs one timer. memberlist uses a Go timer per purpose instead;
 * an IO-free core cannot. Every operation is O(log n); moving a key reuses its entry.
 */
export class DeadlineQueue<K extends string = string> {
  private readonly heap: DeadlineEntry<K>[] = [];
  private readonly entries = new Map<K, DeadlineEntry<K>>();
  private nextSeq = 0;

  /** Insert `key` or move its deadline to `at`. A moved key counts as the newest on ties. */
  set(key: K, at: number): void {
    if (Number.isNaN(at)) throw new RangeError(`DeadlineQueue.set(${key}): deadline is NaN`);
    const seq = this.nextSeq++;
    const entry = this.entries.get(key);
    if (entry === undefined) {
      const created = new DeadlineEntry(key, at, seq, this.heap.length);
      this.entries.set(key, created);
      this.heap.push(created);
      this.siftUp(created);
      return;
    }
    const movedEarlier = at < entry.at;
    entry.at = at;
    entry.seq = seq; // a larger seq only ever makes the entry later on ties
    if (movedEarlier) this.siftUp(entry);
    else this.siftDown(entry);
  }

  delete(key: K): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    this.remove(entry);
    return true;
  }

  get(key: K): number | undefined {
    return this.entries.get(key)?.at;
  }

  has(key: K): boolean {
    return this.entries.has(key);
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

  private remove(entry: DeadlineEntry<K>): void {
    this.entries.delete(entry.key);
    const last = this.heap.pop() as DeadlineEntry<K>;
    if (last !== entry) {
      last.index = entry.index;
      this.heap[last.index] = last;
      if (before(last, entry)) this.siftUp(last);
      else this.siftDown(last);
    }
    // Sequence numbers only order live entries, so they can restart when the queue drains.
    if (this.heap.length === 0) this.nextSeq = 0;
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
