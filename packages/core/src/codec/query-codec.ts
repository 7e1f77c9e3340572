/**
 * Queries on @swim's own wire (docs/design.md, "Queries"): a query rides on a user broadcast under
 * a reserved key, so the core gossips it as any broadcast; acks, responses and relays ride on user
 * messages whose payload starts with {@link QUERY_MESSAGE_MARKER}. Every body is a msgpack array
 * read by the strict reader: unknown trailing fields are skipped (a later version may add some),
 * and no length is trusted before it is checked against the bytes.
 */
import type { QueryFilter } from '../queries/filters.js';
import { decodeQueryFlags, encodeQueryFlags, type QueryRequest, type QueryResponse } from '../queries/messages.js';
import { DecodeFailure } from './decode-error.js';
import { MsgpackReader } from './msgpack-reader.js';
import { MsgpackWriter } from './msgpack-writer.js';
import { MAX_ADDRESS_BYTES, MAX_NAME_BYTES, MAX_UINT32 } from './wire-schema.js';

/** The broadcast keys of queries start with this; `member.broadcast` refuses it for application keys. */
export const QUERY_KEY_PREFIX = 'swim:query:';

/**
 * The first byte of an ack, a response or a relay sent as a user message: 0xC1, the one byte
 * msgpack never uses and that never starts valid UTF-8, so neither a msgpack nor a text payload
 * starts with it by accident. `member.send` refuses application payloads that start with it.
 */
export const QUERY_MESSAGE_MARKER = 0xc1;

/** The byte after the marker: what the message is. Other tags are a later version's, dropped. */
export const QUERY_MESSAGE_TAG = {
  /** An ack or a response to a query, sent to the asker ({@link encodeQueryResponseMessage}). */
  response: 1,
  /** An ack or a response wrapped for a relay to pass on ({@link encodeQueryRelayMessage}). */
  relay: 2,
} as const;

/** Filter type codes in a query's filter list (serf messages.go filterNodeType, filterTagType). */
const FILTER_NODES = 0;
const FILTER_TAG = 1;

/** Most filters read from one query; more is a hostile query. */
export const MAX_QUERY_FILTERS = 64;
/** Most names read from one node filter; more is a hostile query. */
export const MAX_FILTER_NODE_NAMES = 1024;
/** Longest query name read, UTF-8 bytes. */
export const MAX_QUERY_NAME_BYTES = 512;
/** Longest tag name and expression read, UTF-8 bytes (the filter code bounds expressions further). */
const MAX_TAG_BYTES = 512;
const MAX_EXPR_BYTES = 4096;

/** The broadcast key of `query`: one per query, so that no query replaces another in the gossip queue. */
export function queryBroadcastKey(query: Pick<QueryRequest, 'ltime' | 'id'>): string {
  return `${QUERY_KEY_PREFIX}${query.ltime}:${query.id}`;
}

/** Whether a broadcast key is one of a query's (reserved). */
export function isQueryBroadcastKey(key: string): boolean {
  return key.startsWith(QUERY_KEY_PREFIX);
}

/** Whether a user message payload is query traffic (starts with the marker; reserved). */
export function isQueryMessage(payload: Uint8Array): boolean {
  return payload.length > 0 && payload[0] === QUERY_MESSAGE_MARKER;
}

const writer = new MsgpackWriter();

/**
 * A query as its broadcast payload: [name, payload, filters, flags, id, ltime, timeoutMs,
 * relayFactor, sourceName, sourceAddress]. Throws a RangeError for what does not fit the wire.
 */
export function encodeQueryBroadcast(query: QueryRequest): Uint8Array {
  checkUint('ltime', query.ltime, Number.MAX_SAFE_INTEGER);
  checkUint('id', query.id, MAX_UINT32);
  checkUint('timeoutMs', query.timeoutMs, MAX_UINT32);
  checkUint('relayFactor', query.relayFactor, 255);
  writer.begin();
  try {
    writer.arrayHeader(10);
    writeString('name', query.name, MAX_QUERY_NAME_BYTES);
    writer.bin(query.payload);
    writer.arrayHeader(query.filters.length);
    for (const filter of query.filters) writeFilter(filter);
    writer.uint(encodeQueryFlags(query));
    writer.uint(query.id);
    writer.uint(query.ltime);
    writer.uint(query.timeoutMs);
    writer.uint(query.relayFactor);
    writeString('sourceName', query.sourceName, MAX_NAME_BYTES);
    writeString('sourceAddress', query.sourceAddress, MAX_ADDRESS_BYTES);
  } catch (error) {
    writer.discard();
    throw error;
  }
  return writer.finishCopy();
}

/** What {@link decodeQueryBroadcast} and {@link decodeQueryMessage} read, or why not. */
export type QueryDecodeResult<T> =
  | {
      /** The bytes decoded. */
      readonly ok: true;
      /** What they hold. */
      readonly value: T;
    }
  | {
      /** The bytes did not decode. */
      readonly ok: false;
      /** Why, for logs and counters (`code: detail`); never echoes the bytes. */
      readonly reason: string;
    };

/**
 * The query in a broadcast under `key`; the key must be the query's own ({@link queryBroadcastKey}),
 * so that one key never carries two queries. Never throws.
 */
export function decodeQueryBroadcast(key: string, bytes: Uint8Array): QueryDecodeResult<QueryRequest> {
  return guarded(() => {
    const reader = new MsgpackReader(bytes, 0);
    const length = reader.readArrayHeader('query');
    if (length < 10) throw new DecodeFailure('malformed', `a query has 10 fields, got ${length}`);
    const name = reader.readString('name', MAX_QUERY_NAME_BYTES);
    const payload = reader.readBin('payload');
    const filterCount = reader.readArrayHeader('filters');
    if (filterCount > MAX_QUERY_FILTERS) throw new DecodeFailure('too-many', `more than ${MAX_QUERY_FILTERS} filters`);
    const filters: QueryFilter[] = [];
    for (let i = 0; i < filterCount; i++) filters.push(readFilter(reader));
    const flags = reader.readUint('flags', MAX_UINT32, 'a uint32');
    const id = reader.readUint('id', MAX_UINT32, 'a uint32');
    const ltime = reader.readUint('ltime', Number.MAX_SAFE_INTEGER, 'a safe integer');
    const timeoutMs = reader.readUint('timeoutMs', MAX_UINT32, 'a uint32');
    const relayFactor = reader.readUint('relayFactor', 255, 'a uint8');
    const sourceName = reader.readString('sourceName', MAX_NAME_BYTES);
    const sourceAddress = reader.readString('sourceAddress', MAX_ADDRESS_BYTES);
    reader.skipValues(length - 10, 'query');
    if (!reader.atEnd) throw new DecodeFailure('malformed', 'trailing bytes after the query');
    const query: QueryRequest = { name, payload, filters, ...decodeQueryFlags(flags), id, ltime, timeoutMs, relayFactor, sourceName, sourceAddress };
    if (key !== queryBroadcastKey(query)) throw new DecodeFailure('malformed', "the broadcast key is not the query's");
    return query;
  });
}

/** An ack or a response as a user message: marker, tag 1, [ltime, id, from, ack, payload]. */
export function encodeQueryResponseMessage(response: QueryResponse): Uint8Array {
  checkUint('ltime', response.ltime, Number.MAX_SAFE_INTEGER);
  checkUint('id', response.id, MAX_UINT32);
  writer.begin();
  try {
    writer.byte(QUERY_MESSAGE_MARKER);
    writer.byte(QUERY_MESSAGE_TAG.response);
    writer.arrayHeader(5);
    writer.uint(response.ltime);
    writer.uint(response.id);
    writeString('from', response.from, MAX_NAME_BYTES);
    writer.bool(response.ack);
    writer.bin(response.payload);
  } catch (error) {
    writer.discard();
    throw error;
  }
  return writer.finishCopy();
}

/** Where a relay passes its inner message on: the asker, as its query named it (serf relayHeader). */
export interface QueryRelayDestination {
  /** The asker's node name (serf relayHeader DestName). */
  readonly name: string;
  /** The asker's address, as the transports write addresses (serf relayHeader DestAddr). */
  readonly address: string;
}

/** `inner` (an encoded response message) wrapped for a relay: marker, tag 2, [destName, destAddress, inner]. */
export function encodeQueryRelayMessage(inner: Uint8Array, destination: QueryRelayDestination): Uint8Array {
  writer.begin();
  try {
    writer.byte(QUERY_MESSAGE_MARKER);
    writer.byte(QUERY_MESSAGE_TAG.relay);
    writer.arrayHeader(3);
    writeString('destName', destination.name, MAX_NAME_BYTES);
    writeString('destAddress', destination.address, MAX_ADDRESS_BYTES);
    writer.bin(inner);
  } catch (error) {
    writer.discard();
    throw error;
  }
  return writer.finishCopy();
}

/** A user message that {@link isQueryMessage} says is query traffic, decoded. */
export type QueryMessage =
  | {
      /** An ack or a response to one of our queries (tag {@link QUERY_MESSAGE_TAG}.response). */
      readonly kind: 'response';
      /** The ack or response. */
      readonly response: QueryResponse;
    }
  | {
      /** An ack or a response to pass on to its asker (tag {@link QUERY_MESSAGE_TAG}.relay). */
      readonly kind: 'relay';
      /** Whom to pass it to. */
      readonly destination: QueryRelayDestination;
      /** The whole inner response message, passed on as it is. */
      readonly inner: Uint8Array;
    };

/** The ack, response or relay in a user message that starts with the marker. Never throws. */
export function decodeQueryMessage(bytes: Uint8Array): QueryDecodeResult<QueryMessage> {
  return guarded((): QueryMessage => {
    if (!isQueryMessage(bytes)) throw new DecodeFailure('malformed', 'no query marker');
    if (bytes.length < 2) throw new DecodeFailure('malformed', 'no tag after the query marker');
    const tag = bytes[1]!;
    const reader = new MsgpackReader(bytes, 2);
    if (tag === QUERY_MESSAGE_TAG.response) {
      const length = reader.readArrayHeader('response');
      if (length < 5) throw new DecodeFailure('malformed', `a response has 5 fields, got ${length}`);
      const ltime = reader.readUint('ltime', Number.MAX_SAFE_INTEGER, 'a safe integer');
      const id = reader.readUint('id', MAX_UINT32, 'a uint32');
      const from = reader.readString('from', MAX_NAME_BYTES);
      const ack = reader.readBool('ack');
      const payload = reader.readBin('payload');
      reader.skipValues(length - 5, 'response');
      if (!reader.atEnd) throw new DecodeFailure('malformed', 'trailing bytes after the response');
      return { kind: 'response', response: { ltime, id, from, ack, payload } };
    }
    if (tag === QUERY_MESSAGE_TAG.relay) {
      const length = reader.readArrayHeader('relay');
      if (length < 3) throw new DecodeFailure('malformed', `a relay has 3 fields, got ${length}`);
      const name = reader.readString('destName', MAX_NAME_BYTES);
      const address = reader.readString('destAddress', MAX_ADDRESS_BYTES);
      const inner = reader.readBin('inner');
      reader.skipValues(length - 3, 'relay');
      if (!reader.atEnd) throw new DecodeFailure('malformed', 'trailing bytes after the relay');
      return { kind: 'relay', destination: { name, address }, inner };
    }
    throw new DecodeFailure('unknown-type', `unknown query message tag ${tag}`);
  });
}

function writeFilter(filter: QueryFilter): void {
  if (filter.kind === 'nodes') {
    writer.arrayHeader(2);
    writer.uint(FILTER_NODES);
    writer.arrayHeader(filter.names.length);
    for (const name of filter.names) writeString('filter node', name, MAX_NAME_BYTES);
  } else if (filter.kind === 'tag') {
    writer.arrayHeader(3);
    writer.uint(FILTER_TAG);
    writeString('filter tag', filter.tag, MAX_TAG_BYTES);
    writeString('filter expression', filter.expr, MAX_EXPR_BYTES);
  } else {
    throw new RangeError(`a filter of unknown type ${String(filter.type)} cannot be sent`);
  }
}

/** One filter: [type, ...]; a type this version does not know is read as `unknown` (it matches nobody). */
function readFilter(reader: MsgpackReader): QueryFilter {
  const length = reader.readArrayHeader('filter');
  if (length < 1) throw new DecodeFailure('malformed', 'a filter with no type');
  const type = reader.readUint('filter type', MAX_UINT32, 'a uint32');
  if (type === FILTER_NODES && length >= 2) {
    const count = reader.readArrayHeader('filter nodes');
    if (count > MAX_FILTER_NODE_NAMES) throw new DecodeFailure('too-many', `a node filter of more than ${MAX_FILTER_NODE_NAMES} names`);
    const names: string[] = [];
    for (let i = 0; i < count; i++) names.push(reader.readString('filter node', MAX_NAME_BYTES));
    reader.skipValues(length - 2, 'filter');
    return { kind: 'nodes', names };
  }
  if (type === FILTER_TAG && length >= 3) {
    const tag = reader.readString('filter tag', MAX_TAG_BYTES);
    const expr = reader.readString('filter expression', MAX_EXPR_BYTES);
    reader.skipValues(length - 3, 'filter');
    return { kind: 'tag', tag, expr };
  }
  reader.skipValues(length - 1, 'filter');
  return { kind: 'unknown', type };
}

function writeString(field: string, text: string, maxBytes: number): void {
  if (typeof text !== 'string') throw new RangeError(`${field} must be a string`);
  const bytes = writer.str(text);
  if (bytes < 0) throw new RangeError(`${field} holds a lone surrogate`);
  if (bytes > maxBytes) throw new RangeError(`${field} is ${bytes} UTF-8 bytes; at most ${maxBytes}`);
}

function checkUint(field: string, value: number, max: number): void {
  if (!(Number.isInteger(value) && value >= 0 && value <= max)) throw new RangeError(`${field} must be an integer in [0, ${max}], got ${value}`);
}

function guarded<T>(decode: () => T): QueryDecodeResult<T> {
  try {
    return { ok: true, value: decode() };
  } catch (failure) {
    if (failure instanceof DecodeFailure) return { ok: false, reason: `${failure.code}: ${failure.detail}` };
    return { ok: false, reason: 'undecodable' };
  }
}

