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
 * memberlist limitedBroadcast: a message with a per-queue id (newer = larger), linked into the
 * list of its tier's items of the same size. Its transmit count is its tier's.
 */
class QueuedBroadcast {
  size: number;
  /** Neighbours in its size list (older = prev, newer = next). */
  prev: QueuedBroadcast | undefined = undefined;
  next: QueuedBroadcast | undefined = undefined;
  /** The size list it is linked into; while a take moves it up a tier, the list it goes to. */
  list: SizeList;

  constructor(
    readonly key: string,
    public bytes: Uint8Array,
    public token: string | undefined,
    public id: number,
    list: SizeList,
  ) {
    this.size = bytes.length;
    this.list = list;
  }
}

/** The items of one tier with one byte size, a list ascending by id (the newest is `newest`). */
class SizeList {
  oldest: QueuedBroadcast | undefined = undefined;
  newest: QueuedBroadcast | undefined = undefined;
  /** The list of the same size one tier up, once a take has moved items there. */
  up: SizeList | undefined = undefined;

  constructor(
    readonly tier: Tier,
    readonly size: number,
  ) {}
}

/**
 * The items with one transmit count, in memberlist's order reversed: ascending by (size, id), so
 * the usual pick (the largest, newest item that fits) is the newest of the largest size that
 * fits. Kept as one linked list per size, the lists that have items sorted by size.
 */
class Tier {
  /** The lists that have items, ascending by size. */
  readonly nonEmpty: SizeList[] = [];
  /** One list per size ever seen in this tier, kept when it empties so it is reused. */
  readonly #lists = new Map<number, SizeList>();
  count = 0;

  constructor(readonly transmits: number) {}

  listOf(size: number): SizeList {
    let list = this.#lists.get(size);
    if (list === undefined) {
      list = new SizeList(this, size);
      this.#lists.set(size, list);
    }
    return list;
  }

  /** Link a new item as the newest of its list (its id is the queue's largest). */
  append(item: QueuedBroadcast): void {
    const list = item.list;
    const newest = list.newest;
    item.prev = newest;
    item.next = undefined;
    if (newest === undefined) {
      list.oldest = item;
      this.addSize(list);
    } else {
      newest.next = item;
    }
    list.newest = item;
    this.count++;
  }

  remove(item: QueuedBroadcast): void {
    const list = item.list;
    if (item.prev === undefined) list.oldest = item.next;
    else item.prev.next = item.next;
    if (item.next === undefined) list.newest = item.prev;
    else item.next.prev = item.prev;
    item.prev = undefined;
    item.next = undefined;
    if (list.newest === undefined) this.#removeSizeAt(this.nonEmpty.indexOf(list));
    this.count--;
  }

  /**
   * Unlink the run from `oldest` to the newest item of the list at `nonEmpty[at]` (the items a take
   * just sent, `count` of them); they keep their links among themselves.
   */
  detachNewest(at: number, oldest: QueuedBroadcast, count: number): void {
    const list = this.nonEmpty[at] as SizeList;
    const before = oldest.prev;
    if (before === undefined) {
      list.oldest = undefined;
      list.newest = undefined;
      this.#removeSizeAt(at);
    } else {
      before.next = undefined;
      list.newest = before;
      oldest.prev = undefined;
    }
    this.count -= count;
  }

  /**
   * Merge a run (ascending by id, `count` items, each already pointing at `list`) into `list`.
   * Usually every item of the run is newer than the list's (items move up the tiers in the order
   * they were queued), or older: a link at one end.
   */
  merge(list: SizeList, oldest: QueuedBroadcast, newest: QueuedBroadcast, count: number): void {
    this.count += count;
    const listNewest = list.newest;
    if (listNewest === undefined) {
      list.oldest = oldest;
      list.newest = newest;
      this.addSize(list);
      return;
    }
    if (listNewest.id < oldest.id) {
      listNewest.next = oldest;
      oldest.prev = listNewest;
      list.newest = newest;
      return;
    }
    const listOldest = list.oldest as QueuedBroadcast;
    if (newest.id < listOldest.id) {
      newest.next = listOldest;
      listOldest.prev = newest;
      list.oldest = oldest;
      return;
    }
    // Interleaved: insert the run's items from its newest, each below the list items newer than it.
    let before: QueuedBroadcast | undefined = listNewest;
    for (let item: QueuedBroadcast | undefined = newest; item !== undefined; ) {
      const older: QueuedBroadcast | undefined = item.prev;
      while (before !== undefined && before.id > item.id) before = before.prev;
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
      item = older;
    }
  }

  /** The items in take order: largest size first, newest first within a size. */
  *inTakeOrder(): Generator<QueuedBroadcast> {
    for (let s = this.nonEmpty.length - 1; s >= 0; s--) {
      for (let item = (this.nonEmpty[s] as SizeList).newest; item !== undefined; item = item.prev) yield item;
    }
  }

  /** Shifts in place: a tier holds a handful of distinct sizes. */
  addSize(list: SizeList): void {
    const nonEmpty = this.nonEmpty;
    let at = nonEmpty.length;
    nonEmpty.push(list);
    while (at > 0 && (nonEmpty[at - 1] as SizeList).size > list.size) {
      nonEmpty[at] = nonEmpty[at - 1] as SizeList;
      at--;
    }
    nonEmpty[at] = list;
  }

  #removeSizeAt(at: number): void {
    const nonEmpty = this.nonEmpty;
    for (; at < nonEmpty.length - 1; at++) nonEmpty[at] = nonEmpty[at + 1] as SizeList;
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
 * Cost: enqueue/invalidate are a Map lookup plus a list link within one tier. A take sends, per
 * tier and size, a run of the newest items of that size's list, so it unlinks each run whole and
 * links it one tier up after the walk (usually at one end of the list there: items climb the
 * tiers in the order they were queued); per item sent it only reads its bytes and repoints it to
 * its new list. It allocates only its result, and an empty queue returns at once without
 * allocating. (Unlinking and relinking every item sent, ~39 per ack of a saturated receive path,
 * was a fifth of its time.)
 */
export class BroadcastQueue {
  private readonly byKey = new Map<string, QueuedBroadcast>();
  /** tiers[t] holds the items transmitted t times; grows to the largest count seen, never shrinks (an empty tier is skipped at once). */
  private tiers: Tier[] = [new Tier(0)];
  private nextId = 0;
  /** Reused by take(): the runs it sent (list sent from, oldest item, count), relinked after the walk. */
  private readonly runLists: SizeList[] = [];
  private readonly runOldest: QueuedBroadcast[] = [];
  private readonly runNewest: QueuedBroadcast[] = [];
  private readonly runCounts: number[] = [];

  /**
   * Queue an encoded message under an invalidation key (membership: the member name; user
   * broadcasts: their own key). Any queued item with the same key is removed (memberlist
   * NamedBroadcast). Returns the `token`s of removed items that had one (they are "finished").
   * The queue keeps a reference to `bytes`: do not mutate it afterwards.
   */
  enqueue(key: string, bytes: Uint8Array, token?: string): string[] {
    const tier = this.tiers[0] as Tier;
    let item = this.byKey.get(key);
    let finished = NO_TOKENS;
    if (item === undefined) {
      item = new QueuedBroadcast(key, bytes, token, this.nextId++, tier.listOf(bytes.length));
      this.byKey.set(key, item);
    } else {
      // Replaced in place: the same object, a new id, message and token (no new object per update).
      if (item.token !== undefined) finished = [item.token];
      item.list.tier.remove(item);
      // memberlist restarts ids when the queue drains, as it does when the only item is replaced.
      if (this.byKey.size === 1) this.nextId = 0;
      item.bytes = bytes;
      item.size = bytes.length;
      item.token = token;
      item.id = this.nextId++;
      item.list = tier.listOf(item.size);
    }
    // The newest id: after every item of the same size.
    tier.append(item);
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

    const parts: Uint8Array[] = [];
    let used = 0;
    let bytes = 0;
    let runs = 0;
    const tiers = this.tiers;
    walk: for (let transmits = 0; transmits < tiers.length; transmits++) {
      const tier = tiers[transmits] as Tier;
      // Largest size first; a size that does not fit now never will in this take (free only shrinks).
      for (let at = tier.nonEmpty.length - 1; at >= 0; at--) {
        let free = budgetBytes - used - overheadPerPart;
        if (!(free > 0)) break walk;
        const list = tier.nonEmpty[at] as SizeList;
        const size = list.size;
        if (size > free) continue;
        // The newest items of this size, while they fit.
        const newest = list.newest as QueuedBroadcast;
        let item: QueuedBroadcast = newest;
        let count = 0;
        for (;;) {
          parts.push(item.bytes);
          used += overheadPerPart + size;
          bytes += size;
          count++;
          const older = item.prev;
          if (older === undefined || parts.length >= maxParts) break;
          free = budgetBytes - used - overheadPerPart;
          if (!(free > 0) || size > free) break;
          item = older;
        }
        tier.detachNewest(at, item, count);
        this.runLists[runs] = list;
        this.runOldest[runs] = item;
        this.runNewest[runs] = newest;
        this.runCounts[runs] = count;
        runs++;
        if (parts.length >= maxParts) break walk;
      }
    }

    if (runs === 0) return NOTHING_TAKEN;
    let finished: string[] | undefined;
    for (let r = 0; r < runs; r++) {
      const list = this.runLists[r] as SizeList;
      const oldest = this.runOldest[r] as QueuedBroadcast;
      const newest = this.runNewest[r] as QueuedBroadcast;
      const transmits = list.tier.transmits + 1;
      if (transmits >= transmitLimit) {
        // Sent for the last time: dropped, tokens reported in the order sent (newest first).
        for (let item: QueuedBroadcast | undefined = newest; item !== undefined; item = item.prev) {
          this.byKey.delete(item.key);
          if (item.token !== undefined) (finished ??= []).push(item.token);
        }
        continue;
      }
      const up = (list.up ??= this.#tier(transmits).listOf(list.size));
      for (let item: QueuedBroadcast | undefined = newest; item !== undefined; item = item.prev) item.list = up;
      up.tier.merge(up, oldest, newest, this.runCounts[r] as number);
    }
    this.resetIdsIfEmpty();
    return { parts, bytes, finished: finished ?? NO_TOKENS };
  }

  /** Remove the item under key, if any; returns its token if it had one. */
  invalidate(key: string): string[] {
    const item = this.byKey.get(key);
    if (item === undefined) return NO_TOKENS;
    this.byKey.delete(key);
    item.list.tier.remove(item);
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
      for (const item of tier.inTakeOrder()) out.push({ key: item.key, size: item.size, transmits: tier.transmits });
    }
    return out;
  }

  /** Drop everything (memberlist Reset); returns the tokens of the dropped items. */
  clear(): string[] {
    const tokens: string[] = [];
    for (const item of this.byKey.values()) if (item.token !== undefined) tokens.push(item.token);
    this.byKey.clear();
    // As many tiers as before (a later burst climbs them again); only their items go.
    this.tiers = this.tiers.map((tier) => new Tier(tier.transmits));
    this.nextId = 0;
    return tokens;
  }

  #tier(transmits: number): Tier {
    while (this.tiers.length <= transmits) this.tiers.push(new Tier(this.tiers.length));
    return this.tiers[transmits] as Tier;
  }

  /** memberlist restarts ids when the queue drains; ids only order items queued together. */
  private resetIdsIfEmpty(): void {
    if (this.byKey.size === 0) this.nextId = 0;
  }
}
