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

/** memberlist limitedBroadcast: a message with its transmit count and a per-queue id (newer = larger). */
class QueuedBroadcast {
  readonly size: number;

  constructor(
    readonly key: string,
    readonly bytes: Uint8Array,
    readonly token: string | undefined,
    readonly id: number,
    public transmits: number,
  ) {
    this.size = bytes.length;
  }
}

/**
 * A tier holds the items with one transmit count, sorted ascending by (size, id): the reverse of
 * memberlist's take order, so the usual pick (the largest, newest item, when everything fits) is
 * the last element and leaves by `pop()`.
 */
type Tier = QueuedBroadcast[];

/** Index of the first item larger than `size`; the item before it is the largest that fits. */
function firstLargerThan(tier: Tier, size: number): number {
  let low = 0;
  let high = tier.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((tier[mid] as QueuedBroadcast).size > size) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** Index of the first item ordered after (size, id); an item with that (size, id) sits just before. */
function firstAfter(tier: Tier, size: number, id: number): number {
  let low = 0;
  let high = tier.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const item = tier[mid] as QueuedBroadcast;
    if (item.size > size || (item.size === size && item.id > id)) high = mid;
    else low = mid + 1;
  }
  return low;
}

function removeAt(tier: Tier, index: number): void {
  if (index === tier.length - 1) tier.pop();
  else tier.splice(index, 1);
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
 * Cost: enqueue/invalidate are a Map lookup plus a binary search and an array splice within one
 * tier; take is O(tiers + parts × log tier) and an empty queue returns at once without allocating.
 */
export class BroadcastQueue {
  private readonly byKey = new Map<string, QueuedBroadcast>();
  /** tiers[t] holds the items transmitted t times; grows to the largest count seen. */
  private readonly tiers: Tier[] = [[]];
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
    const finished = this.invalidate(key);
    const item = new QueuedBroadcast(key, bytes, token, this.nextId++, 0);
    this.byKey.set(key, item);
    const tier = this.tiers[0] as Tier;
    // The newest id sorts after every item of the same size.
    const index = firstLargerThan(tier, item.size);
    if (index === tier.length) tier.push(item);
    else tier.splice(index, 0, item);
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
      const index = firstLargerThan(tier, free) - 1;
      if (index < 0) {
        transmits++;
        continue;
      }
      const item = tier[index] as QueuedBroadcast;
      removeAt(tier, index);
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
    while (tiers.length > 1 && (tiers[tiers.length - 1] as Tier).length === 0) tiers.pop();
    this.resetIdsIfEmpty();
    return { parts, bytes, finished: finished ?? NO_TOKENS };
  }

  /** Remove the item under key, if any; returns its token if it had one. */
  invalidate(key: string): string[] {
    const item = this.byKey.get(key);
    if (item === undefined) return NO_TOKENS;
    this.byKey.delete(key);
    const tier = this.tiers[item.transmits] as Tier;
    removeAt(tier, firstAfter(tier, item.size, item.id) - 1);
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
      for (let i = tier.length - 1; i >= 0; i--) {
        const item = tier[i] as QueuedBroadcast;
        out.push({ key: item.key, size: item.size, transmits: item.transmits });
      }
    }
    return out;
  }

  /** Drop everything (memberlist Reset); returns the tokens of the dropped items. */
  clear(): string[] {
    const tokens: string[] = [];
    for (const item of this.byKey.values()) if (item.token !== undefined) tokens.push(item.token);
    this.byKey.clear();
    this.tiers.length = 1;
    (this.tiers[0] as Tier).length = 0;
    this.nextId = 0;
    return tokens;
  }

  private insert(item: QueuedBroadcast): void {
    while (this.tiers.length <= item.transmits) this.tiers.push([]);
    const tier = this.tiers[item.transmits] as Tier;
    const index = firstAfter(tier, item.size, item.id);
    if (index === tier.length) tier.push(item);
    else tier.splice(index, 0, item);
  }

  /** memberlist restarts ids when the queue drains; ids only order items queued together. */
  private resetIdsIfEmpty(): void {
    if (this.byKey.size === 0) this.nextId = 0;
  }
}
