import { evaluateFilters, type FilterEvaluation, type FilterSubject } from './filters.js';
import { LamportClock } from './lamport-clock.js';
import { isInternalQuery, type QueryRequest, type QueryResponse } from './messages.js';
import type { QueryConfig } from './query-config.js';
import { SeenQueries } from './seen-queries.js';

/** How a {@link QueryReceiver} starts. */
export interface QueryReceiverOptions {
  /** A validated config ({@link resolveQueryConfig}). */
  readonly config: QueryConfig;
  /** The query clock. Default: a new one at 1, as Serf's after its start-up increment (serf serf.go Create). */
  readonly clock?: LamportClock;
  /** Queries before this Lamport time are ignored (serf queryMinTime: a snapshot's last query time + 1). Default 0. */
  readonly minTime?: number;
}

/** Why a query was dropped without a look at its filters; none of these is gossiped on. */
export type QueryDropReason =
  /** Its ltime or id is malformed (not a Lamport time we can witness, not a uint32). */
  | 'invalid'
  /** Older than `minTime`: from before our last life, as Serf's snapshot tells. */
  | 'before-min-time'
  /** More than `queryBuffer` behind our clock (serf "received old query"). */
  | 'too-old'
  /** Seen already. */
  | 'duplicate'
  /** Too many queries at its Lamport time ({@link QueryConfig.maxQueriesPerLTime}). */
  | 'full';

/** What to do with a query that arrived: {@link QueryReceiver.receive}. */
export type QueryReception =
  | {
      /** Dropped: do nothing, do not gossip it on. */
      readonly kind: 'dropped';
      /** Why. */
      readonly reason: QueryDropReason;
    }
  | {
      /** New, but its filters do not select us: no ack, no handler. */
      readonly kind: 'filtered';
      /** Gossip it on anyway, unless it says not to (serf: "since it is the first time we've seen this"). */
      readonly rebroadcast: boolean;
      /** Which filter failed, and why. */
      readonly filters: FilterEvaluation;
    }
  | {
      /** New and for us: send the ack if any, then hand the query to its handler. */
      readonly kind: 'accepted';
      /** Gossip it on, unless it says not to. */
      readonly rebroadcast: boolean;
      /** The ack to send to the asker (and relay) at once, when the query asked for acks. */
      readonly ack: QueryResponse | undefined;
      /** The deadline to respond by, monotonic ms: arrival plus the query's timeout. */
      readonly respondBy: number;
      /** A `_serf_` query, for Serf's own handlers rather than the application's ({@link isInternalQuery}). */
      readonly internal: boolean;
    };

const EMPTY = new Uint8Array(0);

/**
 * The receiving side of queries (serf serf.go handleQuery), for queries from the wire and for our
 * own (Serf handles its own query locally before gossiping it). In order: witness the query's
 * Lamport time, drop it if older than the minimum time or the buffer, or seen already; gossip it
 * on unless it says not to; check the filters; ack; deliver.
 *
 * To send a query, stamp it with `clock.time()` (refuse while `clock.exhausted`) and pass it to
 * {@link receive} first, as Serf's Query does: that moves the clock past it, so that our next
 * query has a new time, and acks it to ourselves.
 */
export class QueryReceiver {
  /** The query clock: witnessed by every query received, and by the push-pull's query time. */
  readonly clock: LamportClock;
  readonly #minTime: number;
  readonly #seen: SeenQueries;

  /** @throws RangeError for a config that {@link validateQueryConfig} would not pass. */
  constructor(options: QueryReceiverOptions) {
    this.clock = options.clock ?? new LamportClock(1);
    this.#minTime = options.minTime ?? 0;
    this.#seen = new SeenQueries({
      size: options.config.queryBuffer,
      maxIdsPerLTime: options.config.maxQueriesPerLTime,
      clock: this.clock,
    });
  }

  /** Query ids held for de-duplication: at most queryBuffer × maxQueriesPerLTime. */
  get idsHeld(): number {
    return this.#seen.idsHeld;
  }

  /**
   * Decides what to do with `query`, which arrived at `now` (monotonic ms), for the member
   * `self`. Never throws.
   */
  receive(query: QueryRequest, self: FilterSubject, now: number): QueryReception {
    // serf handleQuery witnesses first, before any check: even a query dropped as old or
    // repeated moves the clock.
    if (!this.clock.witness(query.ltime)) return { kind: 'dropped', reason: 'invalid' };
    if (query.ltime < this.#minTime) return { kind: 'dropped', reason: 'before-min-time' };
    const admission = this.#seen.admit(query.ltime, query.id);
    if (admission !== 'new') return { kind: 'dropped', reason: admission };

    const rebroadcast = !query.noBroadcast;
    const filters = evaluateFilters(Array.isArray(query.filters) ? query.filters : [], self);
    if (!filters.matched) return { kind: 'filtered', rebroadcast, filters };

    const ack: QueryResponse | undefined = query.requestAck
      ? { ltime: query.ltime, id: query.id, from: self.name, ack: true, payload: EMPTY }
      : undefined;
    // A negative or malformed timeout leaves no time to respond (a Go deadline in the past).
    const timeout = Number.isFinite(query.timeoutMs) && query.timeoutMs > 0 ? query.timeoutMs : 0;
    return { kind: 'accepted', rebroadcast, ack, respondBy: now + timeout, internal: isInternalQuery(query.name) };
  }
}
