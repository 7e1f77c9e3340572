import type { MemberView, QueryRelayDestination, QueryRequest, QueryResponse } from '@swim/core';

/**
 * Where a relayed ack or response goes (serf messages.go relayHeader): the asker's name and
 * address, as the query named them. The same on every wire: @swim/core's QueryRelayDestination.
 */
export type QueryDestination = QueryRelayDestination;

/**
 * Query traffic read from a user message or a user broadcast ({@link QueryWire.read}).
 * Anything that is no query traffic is `undefined` there, and goes on to the application.
 */
export type QueryTraffic =
  | {
      /** A query (serf messageQuery). */
      readonly kind: 'query';
      /** What it asks. */
      readonly query: QueryRequest;
      /** The bytes as received: what a wire that gossips queries itself passes on unchanged (serf handleQuery's rebroadcast). */
      readonly bytes: Uint8Array;
    }
  | {
      /** An ack or a response to a query (serf messageQueryResponse). */
      readonly kind: 'response';
      /** The reply. */
      readonly response: QueryResponse;
    }
  | {
      /** An ack or a response to pass on to the asker (serf messageRelay): sent on unchanged. */
      readonly kind: 'relay';
      /** Whom to pass it to. */
      readonly destination: QueryDestination;
      /** The whole inner message, as {@link QueryWire.encodeResponse} wrote it: sent as it is. */
      readonly inner: Uint8Array;
    }
  | {
      /** Query traffic that does not decode: counted and dropped. */
      readonly kind: 'malformed';
      /** What was wrong, for logs; never echoes the bytes. */
      readonly reason: string;
    };

/**
 * How queries, acks, responses and relays are written on one wire. @swim's own wire
 * (`swimQueryWire`) carries them on user broadcasts (queries) and user messages (acks, responses,
 * relays); memberlist's wire carries Serf's messages (serf messages.go messageQuery,
 * messageQueryResponse, messageRelay) in memberlist user messages (`SerfLayer`).
 *
 * Encoders throw a RangeError for what the wire cannot carry; the query service checks sizes
 * against its limits (serf QuerySizeLimit, QueryResponseSizeLimit) on the encoded bytes.
 */
export interface QueryWire {
  /** Short name for errors and logs ('swim', 'serf'). */
  readonly name: string;
  /**
   * True when the member's core gossips a received query on by itself (@swim's user broadcasts
   * are epidemic); false when the query service must broadcast it again (Serf's rebroadcast).
   */
  readonly coreForwardsQueries: boolean;
  /** The broadcast key a query is queued under: one per query, so that no query replaces another. */
  queryKey(query: QueryRequest): string;
  /** The query as gossiped. */
  encodeQuery(query: QueryRequest): Uint8Array;
  /** An ack or a response, as sent to the asker. */
  encodeResponse(response: QueryResponse): Uint8Array;
  /** An ack or a response (as {@link encodeResponse} wrote it) wrapped to be passed on to `destination` by a relay. */
  encodeRelay(inner: Uint8Array, destination: QueryDestination): Uint8Array;
  /**
   * What a user message (`key` undefined) or a user broadcast (its key) is, when it is query
   * traffic of this wire; undefined for anything else, which goes on to the application. Never throws.
   */
  read(payload: Uint8Array, key: string | undefined): QueryTraffic | undefined;
  /**
   * Optional: a member's tags as its metadata carries them, for the tag filters (Serf's tags,
   * serf DecodeTags). Without it every member is taken to have no tags: tag filters then match
   * only expressions that match the empty string. Must not throw (a malformed meta has no tags).
   */
  tagsOf?(meta: Uint8Array): ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  /**
   * Optional: whether `member` may relay acks and responses (Serf's rule: it speaks memberlist
   * protocol 5 or later, serf query.go kRandomMembers). Without it every alive member may.
   */
  relayEligible?(member: MemberView): boolean;
}
