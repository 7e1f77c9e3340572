import type { Rng } from '../support/rng.js';
import type { QueryFilter } from './filters.js';

/**
 * A query as it travels, whatever the wire (serf messages.go messageQuery). The codecs of @swim's
 * wire and of Serf's encode and decode this; a decoder hands over what it read, and the receiving
 * side ({@link QueryReceiver}) checks it.
 */
export interface QueryRequest {
  /** The query's name. Names starting with `_serf_` are Serf's own ({@link isInternalQuery}). */
  readonly name: string;
  /** Opaque bytes for the handlers. */
  readonly payload: Uint8Array;
  /** Who must process it; ANDed, empty for everyone. */
  readonly filters: readonly QueryFilter[];
  /** serf queryFlagAck: members that pass the filters ack at once, before any handler runs. */
  readonly requestAck: boolean;
  /** serf queryFlagNoBroadcast: receivers do not gossip it on. */
  readonly noBroadcast: boolean;
  /** Random, uint32 (Serf draws it with rand.Int31, so below 2^31); with `ltime` it names the query. */
  readonly id: number;
  /** The asker's query Lamport time when it sent the query. */
  readonly ltime: number;
  /** How long the asker collects replies, ms; a receiver's deadline to respond. */
  readonly timeoutMs: number;
  /** How many extra copies of each ack and response go back through other members, uint8 (§ relays). */
  readonly relayFactor: number;
  /** The asker's node name. */
  readonly sourceName: string;
  /** Where acks and responses go: the asker's address, opaque here (each wire writes its own form). */
  readonly sourceAddress: string;
}

/** An ack or a response to a query (serf messages.go messageQueryResponse). */
export interface QueryResponse {
  /** The query's Lamport time, copied from it. */
  readonly ltime: number;
  /** The query's id, copied from it. */
  readonly id: number;
  /** The responder's node name; the asker counts each name once. */
  readonly from: string;
  /** An ack (Serf's flag 1), or a response with a payload. */
  readonly ack: boolean;
  /** The answer; empty for an ack. */
  readonly payload: Uint8Array;
}

/** serf messages.go queryFlagAck: bit 0 of a query's `Flags`, and of an ack's. */
export const QUERY_FLAG_ACK = 1;
/** serf messages.go queryFlagNoBroadcast: bit 1 of a query's `Flags`. */
export const QUERY_FLAG_NO_BROADCAST = 2;

/** A query's uint32 `Flags` as Serf writes them. */
export function encodeQueryFlags(query: Pick<QueryRequest, 'requestAck' | 'noBroadcast'>): number {
  return (query.requestAck ? QUERY_FLAG_ACK : 0) | (query.noBroadcast ? QUERY_FLAG_NO_BROADCAST : 0);
}

/** A query's `Flags` read as Serf reads them: other bits are ignored (serf messages.go Ack, NoBroadcast). */
export function decodeQueryFlags(flags: number): Pick<QueryRequest, 'requestAck' | 'noBroadcast'> {
  return { requestAck: (flags & QUERY_FLAG_ACK) !== 0, noBroadcast: (flags & QUERY_FLAG_NO_BROADCAST) !== 0 };
}

/** A new query id: 31 random bits, as Serf's `uint32(rand.Int31())` (serf serf.go Query). */
export function newQueryId(rng: Rng): number {
  return rng.nextUint32() >>> 1;
}

/** The prefix of Serf's internal queries (serf internal_query.go InternalQueryPrefix). */
export const INTERNAL_QUERY_PREFIX = '_serf_';

/**
 * Whether a query is one of Serf's own (`_serf_ping`, `_serf_conflict`, the key queries): Serf
 * answers those itself and never hands them to the application (serf internal_query.go).
 */
export function isInternalQuery(name: string): boolean {
  return typeof name === 'string' && name.startsWith(INTERNAL_QUERY_PREFIX);
}

/**
 * Why an application may not send this query, or undefined when it may. The Serf agent refuses
 * `_serf_` names from its clients, except `_serf_ping` without a payload, which
 * `serf reachability` sends (serf cmd/serf/command/agent/agent.go Agent.Query; Go tells a nil
 * payload from an empty one, we take both as none).
 */
export function userQueryProblem(name: string, payload: Uint8Array): string | undefined {
  if (!isInternalQuery(name)) return undefined;
  if (name === `${INTERNAL_QUERY_PREFIX}ping` && payload.length === 0) return undefined;
  return `Queries cannot contain the '${INTERNAL_QUERY_PREFIX}' prefix`;
}
