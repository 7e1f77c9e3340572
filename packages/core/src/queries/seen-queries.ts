import { isLamportTime, type LamportClock } from './lamport-clock.js';

/** What {@link SeenQueries.admit} decided about a query. */
export type QueryAdmission =
  /** First time seen: recorded; process it. */
  | 'new'
  /** Its (ltime, id) was seen already: drop it, do not gossip it on. */
  | 'duplicate'
  /** Its ltime is more than the buffer's size behind our clock: dropped, as Serf does. */
  | 'too-old'
  /** Its ltime already holds `maxIdsPerLTime` ids: dropped (not in Serf, whose list grows without bound). */
  | 'full'
  /** Its ltime is not a Lamport time ({@link isLamportTime}) or its id not a uint32. */
  | 'invalid';

/** How a {@link SeenQueries} is sized. */
export interface SeenQueriesOptions {
  /** Slots, one per recent Lamport time (serf config.go QueryBuffer, 512). */
  readonly size: number;
  /** Ids kept per Lamport time: how many distinct queries may share one. */
  readonly maxIdsPerLTime: number;
  /** The query clock, read for the too-old rule; the caller witnesses each query's time first. */
  readonly clock: LamportClock;
}

interface Slot {
  ltime: number;
  ids: number[];
}

/**
 * The queries seen recently, to process each once though gossip brings several copies (serf
 * serf.go handleQuery with its queryBuffer): slot `ltime % size` holds the ids seen at that
 * Lamport time, and a query at another time recycles it. At most `size × maxIdsPerLTime` ids are
 * held, whatever arrives.
 */
export class SeenQueries {
  readonly #slots: (Slot | undefined)[];
  readonly #maxIds: number;
  readonly #clock: LamportClock;
  #held = 0;

  /** @throws RangeError when `size` or `maxIdsPerLTime` is not a positive safe integer (validate configs first: {@link resolveQueryConfig}). */
  constructor(options: SeenQueriesOptions) {
    const { size, maxIdsPerLTime } = options;
    if (!(Number.isSafeInteger(size) && size >= 1) || !(Number.isSafeInteger(maxIdsPerLTime) && maxIdsPerLTime >= 1)) {
      throw new RangeError(`SeenQueries: size and maxIdsPerLTime must be positive integers, got ${size} and ${maxIdsPerLTime}`);
    }
    this.#slots = new Array<Slot | undefined>(size).fill(undefined);
    this.#maxIds = maxIdsPerLTime;
    this.#clock = options.clock;
  }

  /** Ids held now, over all slots: at most size × maxIdsPerLTime. */
  get idsHeld(): number {
    return this.#held;
  }

  /**
   * Records the query (ltime, id) and says whether to process it (serf serf.go handleQuery, from
   * its "too old" check to recording the id). The too-old rule reads the clock as it is now.
   */
  admit(ltime: number, id: number): QueryAdmission {
    if (!isLamportTime(ltime) || !(Number.isInteger(id) && id >= 0 && id <= 0xffff_ffff)) return 'invalid';
    const size = this.#slots.length;
    if (ltime < this.#clock.time() - size) return 'too-old';
    const index = ltime % size;
    let slot = this.#slots[index];
    if (slot !== undefined && slot.ltime === ltime) {
      if (slot.ids.includes(id)) return 'duplicate';
      // A flood of ids at one time would otherwise grow the slot without bound.
      if (slot.ids.length >= this.#maxIds) return 'full';
    } else {
      this.#held -= slot?.ids.length ?? 0;
      slot = { ltime, ids: [] };
      this.#slots[index] = slot;
    }
    slot.ids.push(id);
    this.#held++;
    return 'new';
  }

  /** {@link admit}, as a yes/no: true when the query must not be processed (a repeat, too old, over the bound, invalid). */
  seen(ltime: number, id: number): boolean {
    return this.admit(ltime, id) !== 'new';
  }
}
