import type { QueryResponse } from './messages.js';

/** A query we sent, as its collector needs it. */
export interface CollectorOptions {
  /** The query's Lamport time. */
  readonly ltime: number;
  /** The query's id. */
  readonly id: number;
  /** When collection ends, monotonic ms: the time it was sent plus its timeout. */
  readonly deadline: number;
  /** Whether the query asked for acks; acks to a query that did not are refused. */
  readonly requestAck: boolean;
  /**
   * Most distinct responders kept, acks and responses each. Serf sizes its channels to the
   * members alive when the query starts (memberlist NumMembers), and drops what does not fit.
   */
  readonly capacity: number;
  /**
   * Longest response payload kept, bytes: a responder's whole encoded response must fit its
   * QueryResponseSizeLimit, so a longer payload did not come from a member with our limit.
   * Default 1024, Serf's.
   */
  readonly maxPayloadBytes?: number;
}

/** What {@link QueryCollector.accept} did with a reply. */
export type CollectOutcome =
  /** A first ack from this member: counted. */
  | 'ack'
  /** A first response from this member: kept. */
  | 'response'
  /** This member's ack or response was counted already (a relayed copy, usually): only counted as a duplicate. */
  | 'duplicate'
  /** Past the deadline, or after {@link QueryCollector.close}: dropped. */
  | 'late'
  /** Its ltime or id is not this query's: dropped (serf "query reply ID mismatch"). */
  | 'mismatch'
  /** An ack to a query that asked for none: dropped. */
  | 'unrequested-ack'
  /** `capacity` distinct members have answered already: dropped. */
  | 'full'
  /** A response payload longer than `maxPayloadBytes`, or a reply whose sender or payload is malformed: dropped. */
  | 'refused';

/** The counts a {@link QueryCollector} keeps. */
export interface CollectorTotals {
  /** Distinct members that acked. */
  readonly acks: number;
  /** Distinct members that responded. */
  readonly responses: number;
  /** Repeated acks and responses (serf metrics query_duplicate_acks, query_duplicate_responses). */
  readonly duplicates: number;
  /** Replies after the deadline or the close. */
  readonly late: number;
  /** Replies dropped as mismatched, unrequested, over capacity or refused. */
  readonly dropped: number;
}

/**
 * The asker's side of one query (serf query.go QueryResponse and serf.go handleQueryResponse): it
 * counts each member's first ack and first response, separately, and nothing after the deadline.
 * Time is a parameter: the shell closes it at the deadline, or just stops asking.
 */
export class QueryCollector {
  readonly #options: CollectorOptions;
  readonly #maxPayload: number;
  readonly #acks = new Set<string>();
  readonly #responses = new Map<string, Uint8Array>();
  #closed = false;
  #duplicates = 0;
  #late = 0;
  #dropped = 0;

  constructor(options: CollectorOptions) {
    this.#options = options;
    this.#maxPayload = options.maxPayloadBytes ?? 1024;
  }

  /** When collection ends, monotonic ms. */
  get deadline(): number {
    return this.#options.deadline;
  }

  /** The members that acked, in the order their first ack came. */
  get acks(): ReadonlySet<string> {
    return this.#acks;
  }

  /** Each responding member's first response payload, in the order they came. */
  get responses(): ReadonlyMap<string, Uint8Array> {
    return this.#responses;
  }

  /** Whether collection is over: closed, or past the deadline (serf QueryResponse.Finished). */
  finished(now: number): boolean {
    return this.#closed || !(now <= this.#options.deadline);
  }

  /** Ends collection early (serf QueryResponse.Close); later replies are late. */
  close(): void {
    this.#closed = true;
  }

  /** The counts so far. */
  totals(): CollectorTotals {
    return {
      acks: this.#acks.size,
      responses: this.#responses.size,
      duplicates: this.#duplicates,
      late: this.#late,
      dropped: this.#dropped,
    };
  }

  /** Takes one ack or response that arrived at `now` (serf serf.go handleQueryResponse). Never throws. */
  accept(reply: QueryResponse, now: number): CollectOutcome {
    const outcome = this.#classify(reply, now);
    if (outcome === 'duplicate') this.#duplicates++;
    else if (outcome === 'late') this.#late++;
    else if (outcome !== 'ack' && outcome !== 'response') this.#dropped++;
    return outcome;
  }

  #classify(reply: QueryResponse, now: number): CollectOutcome {
    const { ltime, id, requestAck, capacity } = this.#options;
    if (reply.ltime !== ltime || reply.id !== id) return 'mismatch';
    if (this.finished(now)) return 'late';
    if (typeof reply.from !== 'string') return 'refused';
    if (reply.ack) {
      if (!requestAck) return 'unrequested-ack';
      if (this.#acks.has(reply.from)) return 'duplicate';
      if (this.#acks.size >= capacity) return 'full';
      this.#acks.add(reply.from);
      return 'ack';
    }
    if (this.#responses.has(reply.from)) return 'duplicate';
    if (!(reply.payload instanceof Uint8Array) || reply.payload.length > this.#maxPayload) return 'refused';
    if (this.#responses.size >= capacity) return 'full';
    // A copy: a decoder's payload may be a view into a whole packet, which we would keep alive.
    this.#responses.set(reply.from, reply.payload.slice());
    return 'response';
  }
}
