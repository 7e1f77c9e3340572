/** What one `take` produced. Empty arrays may be shared frozen instances: treat as read-only. */
export interface TakenBroadcasts {
  /** Encoded messages to pack into one packet, in the order they were chosen. */
  readonly parts: Uint8Array[];
  /** Sum of the parts' lengths (without the per-part overhead). */
  readonly bytes: number;
  /** Tokens of items sent for the last time by this take (memberlist Broadcast.Finished). */
  readonly finished: string[];
}

const NO_TOKENS: string[] = Object.freeze([]) as unknown as string[];
const NOTHING_TAKEN: TakenBroadcasts = Object.freeze({
  parts: Object.freeze([]) as unknown as Uint8Array[],
  bytes: 0,
  finished: NO_TOKENS,
});

/**
 * memberlist limitedBroadcast: a message with its transmit count and a per-queue id (newer =
 * larger), linked into the list of its tier's items of the same size.
 */
class QueuedBroadcast {
  size: number;
  /** Neighbours in its size list (older = prev, newer = next). */
  prev: QueuedBroadcast | undefined = undefined;
  next: QueuedBroadcast | undefined = undefined;
  /** The size list it is linked into; undefined while it is out of every tier (being moved). */
  list: SizeList | undefined = undefined;

  constructor(
    readonly key: string,
    public bytes: Uint8Array,
    public token: string | undefined,
    public id: number,
    public transmits: number,
  ) {
    this.size = bytes.length;
  }

  /** The same key queued anew (out of every tier): no new object per update that replaces one. */
  renew(bytes: Uint8Array, token: string | undefined, id: number): void {
    this.bytes = bytes;
    this.size = bytes.length;
    this.token = token;
    this.id = id;
    this.transmits = 0;
  }
}

/** The items of one tier with one byte size, a list ascending by id (the newest is `newest`). */
class SizeList {
  oldest: QueuedBroadcast | undefined = undefined;
  newest: QueuedBroadcast | undefined = undefined;
  /** The item inserted last: the next insert of a batch (ids in either order) lands next to it. */
  finger: QueuedBroadcast | undefined = undefined;

  constructor(readonly size: number) {}
}

/**
 * The items with one transmit count, in memberlist's order reversed: ascending by (size, id), so
 * the usual pick (the largest, newest item that fits) is the newest of the largest size that
 * fits. Kept as one linked list per size plus the sorted sizes that have items: taking and
 * re-queuing an item costs no array splice and allocates nothing once a size has its list (an
 * array sorted by (size, id) spliced for every item sent was a third of a saturated receive
 * path's time).
 */
class Tier {
  /** Sizes that have items, ascending; `nonEmpty[i]` is the list of `sizes[i]`. */
  readonly sizes: number[] = [];
  readonly nonEmpty: SizeList[] = [];
  /** One list per size ever seen in this tier, kept when it empties so it is reused. */
  readonly lists = new Map<number, SizeList>();
  count = 0;

  /** The newest item of the largest size that is at most `free`; undefined if none fits. */
  largestFitting(free: number): QueuedBroadcast | undefined {
    const sizes = this.sizes;
    let low = 0;
    let high = sizes.length;
    // Usually everything fits: the largest size is the answer.
    if (high > 0 && (sizes[high - 1] as number) <= free) return (this.nonEmpty[high - 1] as SizeList).newest;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((sizes[mid] as number) > free) high = mid;
      else low = mid + 1;
    }
    return low === 0 ? undefined : (this.nonEmpty[low - 1] as SizeList).newest;
  }

  /**
   * Insert in (size, id) order, walking from the item inserted last (when still in the list) or
   * the newest: a new item is the newest, and the items one take moves up a tier come in
   * descending id order, each next to the one before, so each insert is a step or two.
   */
  insert(item: QueuedBroadcast): void {
    let list = this.lists.get(item.size);
    if (list === undefined) {
      list = new SizeList(item.size);
      this.lists.set(item.size, list);
    }
    if (list.newest === undefined) this.#addSize(list);
    let before = list.finger !== undefined && list.finger.list === list ? list.finger : list.newest;
    // Settle on the last item older than this one (undefined: it becomes the oldest).
    while (before !== undefined && before.next !== undefined && before.next.id < item.id) before = before.next;
    while (before !== undefined && before.id > item.id) before = before.prev;
    list.finger = item;
    item.list = list;
    item.prev = before;
    if (before === undefined) {
      item.next = list.oldest;
      list.oldest = item;
    } else {
      item.next = before.next;
      before.next = item;
    }
    if (item.next === undefined) list.newest = item;
    else item.next.prev = item;
    this.count++;
  }

  remove(item: QueuedBroadcast): void {
    const list = item.list as SizeList;
    if (item.prev === undefined) list.oldest = item.next;
    else item.prev.next = item.next;
    if (item.next === undefined) list.newest = item.prev;
    else item.next.prev = item.prev;
    item.prev = undefined;
    item.next = undefined;
    item.list = undefined;
    if (list.newest === undefined) this.#removeSize(list);
    this.count--;
  }

  /** The items in take order: largest size first, newest first within a size. */
  *inTakeOrder(): Generator<QueuedBroadcast> {
    for (let s = this.nonEmpty.length - 1; s >= 0; s--) {
      for (let item = (this.nonEmpty[s] as SizeList).newest; item !== undefined; item = item.prev) yield item;
    }
  }

  /** Shifts in place: a tier holds a handful of distinct sizes. */
  #addSize(list: SizeList): void {
    const { sizes, nonEmpty } = this;
    let at = sizes.length;
    sizes.push(list.size);
    nonEmpty.push(list);
    while (at > 0 && (sizes[at - 1] as number) > list.size) {
      sizes[at] = sizes[at - 1] as number;
      nonEmpty[at] = nonEmpty[at - 1] as SizeList;
      at--;
    }
    sizes[at] = list.size;
    nonEmpty[at] = list;
  }

  #removeSize(list: SizeList): void {
    const { sizes, nonEmpty } = this;
    for (let at = nonEmpty.indexOf(list); at < nonEmpty.length - 1; at++) {
      sizes[at] = sizes[at + 1] as number;
      nonEmpty[at] = nonEmpty[at + 1] as SizeList;
    }
    sizes.pop();
    nonEmpty.pop();
  }
}

/**
 * memberlist's TransmitLimitedQueue (queue.go) with byte budgets. Every queued message is a
 * NamedBroadcast: queuing under a key replaces whatever was queued under it, so a new alive,
 * suspect or dead about a member supersedes the old one. `take` is GetBroadcasts: the
 * least-transmitted messages go first, so fresh news spreads before old news is repeated, and
 * each message is sent `transmitLimit` times in total (memberlist retransmitLimit), then finished.
 *
 * Finishing is reported through opaque `token`s instead of memberlist's Finished() callbacks, so
 * the caller (Leave, UpdateNode, user broadcasts) can learn when a message has been fully spread.
 *
 * Cost: enqueue/invalidate are a Map lookup plus a list link within one tier; take is
 * O(tiers + parts × log sizes), allocates only its result, and an empty queue returns at once
 * without allocating.
 */
export class BroadcastQueue {
  private readonly byKey = new Map<string, QueuedBroadcast>();
  /** tiers[t] holds the items transmitted t times; grows to the largest count seen, never shrinks (an empty tier is skipped at once). */
  private readonly tiers: Tier[] = [new Tier()];
  private nextId = 0;
  /** Reused by take() for items that move up a tier after the walk. */
  private readonly reinsert: QueuedBroadcast[] = [];

  /**
   * Queue an encoded message under an invalidation key (membership: the member name; user
   * broadcasts: their own key). Any queued item with the same key is removed (memberlist
   * NamedBroadcast). Returns the `token`s of removed items that had one (they are "finished").
   * The queue keeps a reference to `bytes`: do not mutate it afterwards.
   */
  enqueue(key: string, bytes: Uint8Array, token?: string): string[] {
    const replaced = this.byKey.get(key);
    const finished = this.invalidate(key);
    let item: QueuedBroadcast;
    if (replaced === undefined) {
      item = new QueuedBroadcast(key, bytes, token, this.nextId++, 0);
    } else {
      item = replaced;
      item.renew(bytes, token, this.nextId++);
    }
    this.byKey.set(key, item);
    // The newest id sorts after every item of the same size.
    (this.tiers[0] as Tier).insert(item);
    return finished;
  }

  /**
   * memberlist GetBroadcasts: walk tiers from the fewest transmits up; in each tier take the
   * largest message that fits in budget − used − overheadPerPart (ties: newest first); count the
   * transmission; an item that has now been sent transmitLimit times is dropped and its token (if
   * any) reported in `finished`; others go back with transmits+1 (after the walk, so one call
   * never returns the same item twice). Stops when nothing fits, or after `maxParts` parts: the
   * decoder accepts a bounded number of messages per packet (codec MAX_MESSAGES_PER_PACKET), so a
   * large budget filled with small updates must not build a packet every receiver rejects.
   *
   * Like memberlist, a message larger than every budget stays queued until replaced or
   * invalidated; the core never queues one (CoreContext.broadcast drops and counts it).
   */
  take(budgetBytes: number, overheadPerPart: number, transmitLimit: number, maxParts = Number.POSITIVE_INFINITY): TakenBroadcasts {
    if (this.byKey.size === 0 || !(maxParts > 0)) return NOTHING_TAKEN;

    let parts: Uint8Array[] | undefined;
    let finished: string[] | undefined;
    let used = 0;
    let bytes = 0;
    const tiers = this.tiers;
    for (let transmits = 0; transmits < tiers.length; ) {
      const free = budgetBytes - used - overheadPerPart;
      if (!(free > 0)) break;
      const tier = tiers[transmits] as Tier;
      const item = tier.count === 0 ? undefined : tier.largestFitting(free);
      if (item === undefined) {
        transmits++;
        continue;
      }
      tier.remove(item);
      (parts ??= []).push(item.bytes);
      used += overheadPerPart + item.size;
      bytes += item.size;
      if (item.transmits + 1 >= transmitLimit) {
        this.byKey.delete(item.key);
        if (item.token !== undefined) (finished ??= []).push(item.token);
      } else {
        item.transmits++;
        this.reinsert.push(item);
      }
      if (parts.length >= maxParts) break;
    }

    if (parts === undefined) return NOTHING_TAKEN;
    for (const item of this.reinsert) this.insert(item);
    this.reinsert.length = 0;
    this.resetIdsIfEmpty();
    return { parts, bytes, finished: finished ?? NO_TOKENS };
  }

  /** Remove the item under key, if any; returns its token if it had one. */
  invalidate(key: string): string[] {
    const item = this.byKey.get(key);
    if (item === undefined) return NO_TOKENS;
    this.byKey.delete(key);
    (this.tiers[item.transmits] as Tier).remove(item);
    this.resetIdsIfEmpty();
    return item.token === undefined ? NO_TOKENS : [item.token];
  }

  get size(): number {
    return this.byKey.size;
  }

  /** For tests/diagnostics: the queued items in take order with their transmit counts. */
  peek(): Array<{ key: string; size: number; transmits: number }> {
    const out: Array<{ key: string; size: number; transmits: number }> = [];
    for (const tier of this.tiers) {
      for (const item of tier.inTakeOrder()) out.push({ key: item.key, size: item.size, transmits: item.transmits });
    }
    return out;
  }

  /** Drop everything (memberlist Reset); returns the tokens of the dropped items. */
  clear(): string[] {
    const tokens: string[] = [];
    for (const item of this.byKey.values()) if (item.token !== undefined) tokens.push(item.token);
    this.byKey.clear();
    // Tiers stay allocated (a later burst reuses them); only their items go.
    for (let t = 0; t < this.tiers.length; t++) this.tiers[t] = new Tier();
    this.nextId = 0;
    return tokens;
  }

  private insert(item: QueuedBroadcast): void {
    while (this.tiers.length <= item.transmits) this.tiers.push(new Tier());
    (this.tiers[item.transmits] as Tier).insert(item);
  }

  /** memberlist restarts ids when the queue drains; ids only order items queued together. */
  private resetIdsIfEmpty(): void {
    if (this.byKey.size === 0) this.nextId = 0;
  }
}
