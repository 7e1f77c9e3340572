import type { CollectorTotals } from '@swim/core';

/** Options of `member.query()` (serf QueryParam). */
export interface QueryOptions {
  /** Only these members process the query (serf FilterNodes). */
  readonly filterNodes?: readonly string[];
  /** Only members whose tag matches each RE2 expression process it (serf FilterTags: tag -> regexp, unanchored). */
  readonly filterTags?: Readonly<Record<string, string>>;
  /** How long to collect replies, ms. Default: core defaultQueryTimeoutMs from the live member count and the gossip interval. */
  readonly timeoutMs?: number;
  /** Ask every member the query reaches for an ack (serf RequestAck). Default false. */
  readonly requestAck?: boolean;
  /** Extra copies of each ack and response sent back through this many random members, 0..255 (serf RelayFactor). Default 0. */
  readonly relayFactor?: number;
  /** Ends collection early, as `close()` does. */
  readonly signal?: AbortSignal;
}

/** One ack or response collected by a query. */
export type QueryReply =
  | {
      /** A member acked: the query reached it and passed its filters. */
      readonly kind: 'ack';
      /** The member's name. */
      readonly from: string;
    }
  | {
      /** A member's answer. */
      readonly kind: 'response';
      /** The member's name. */
      readonly from: string;
      /** What its handler returned. */
      readonly payload: Uint8Array;
    };

/** What a query collected by its end. */
export interface QuerySummary {
  /** The members that acked, in the order their acks came. */
  readonly acks: string[];
  /** Each responding member's response, in the order they came. */
  readonly responses: Map<string, Uint8Array>;
  /** The collector's counts: distinct acks and responses, duplicates, late and dropped replies. */
  readonly totals: CollectorTotals;
}

/**
 * A query in flight (serf QueryResponse): iterate it for acks and responses as they come; the
 * iteration ends at the deadline, at `close()`, when the signal aborts or the member closes.
 * Every iteration sees every reply from the start.
 */
export interface QueryHandle extends AsyncIterable<QueryReply> {
  /** The query's name. */
  readonly name: string;
  /** Its Lamport time. */
  readonly ltime: number;
  /** Its id. */
  readonly id: number;
  /** When collection ends, ms on the member's clock. */
  readonly deadline: number;
  /** Settles with what was collected once collection has ended; never rejects. */
  readonly finished: Promise<QuerySummary>;
  /** Ends collection now (serf QueryResponse.Close); later replies are dropped as late. Idempotent. */
  close(): void;
}

/** A query this member received and accepted (its filters matched), as handlers and `query` listeners see it (serf Query event). */
export interface IncomingQuery {
  /** The query's name. */
  readonly name: string;
  /** Its payload. */
  readonly payload: Uint8Array;
  /** The asker's name. */
  readonly from: string;
  /** Its Lamport time. */
  readonly ltime: number;
  /** Its id. */
  readonly id: number;
  /** Respond by then, ms on the member's clock. */
  readonly deadline: number;
  /** Whether a response was sent already. */
  readonly responded: boolean;
  /**
   * Sends `payload` (bytes, or a string as UTF-8) to the asker, and through relays when it asked
   * for them (serf Query.Respond). Throws 'response already sent', 'response is past the
   * deadline' or 'response exceeds limit of N bytes', as Serf.
   */
  respond(payload: Uint8Array | string): void;
}

/** Answers a query: the bytes (or a string, as UTF-8) it returns are the response; undefined sends none. */
export type QueryHandler = (
  query: IncomingQuery,
) => Uint8Array | string | undefined | void | Promise<Uint8Array | string | undefined | void>;

/** Why the query service dropped a query it received. */
export type QueryDropCounters = Record<
  /** core QueryReceiver reasons: */
  | 'invalid'
  | 'before-min-time'
  | 'too-old'
  | 'full'
  /** every handler slot was taken (`maxConcurrentHandlers`): */
  | 'busy'
  /** the asker is not a member we hold at the address the query names: no reply is sent (no reflection to arbitrary addresses). */
  | 'unknown-asker',
  number
>;

/** What the query service counted since the member started. */
export interface QueryCounters {
  /** Queries this member asked. */
  sent: number;
  /** Queries received from the wire (our own are not counted here). */
  received: number;
  /** Received queries seen already (gossip brings several copies). */
  duplicate: number;
  /** Received queries whose filters did not select us. */
  filtered: number;
  /** Received queries accepted: acked if asked and delivered. */
  accepted: number;
  /** Received queries dropped, by reason. */
  dropped: QueryDropCounters;
  /** Acks sent to askers (relayed copies not counted). */
  acksSent: number;
  /** Acks received for our queries and counted. */
  acksReceived: number;
  /** Responses sent to askers. */
  responsesSent: number;
  /** Handler answers not sent: past the deadline, or over the response size limit. */
  responsesUnsent: number;
  /** Responses received for our queries and kept. */
  responsesReceived: number;
  /** Acks and responses for our queries dropped: duplicates, late, mismatched, refused, or for no query of ours. */
  repliesDropped: number;
  /** Copies of our acks and responses sent through relays. */
  relaysSent: number;
  /** Relay messages we passed on to their destination. */
  relaysForwarded: number;
  /** Relay messages we refused: a destination we do not hold at that address, or an inner message that is no reply. */
  relaysRefused: number;
  /** Query traffic that did not decode. */
  malformed: number;
  /** Handlers that threw or rejected (a `query` listener that throws is contained as any listener is: an `error` event). */
  handlerErrors: number;
}
