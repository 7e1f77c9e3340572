/**
 * Serf's query messages, as they travel in memberlist user messages (serf messages.go):
 * messageQuery (type 4, gossiped), messageQueryResponse (type 5, sent straight to the asker) and
 * messageRelay (type 9, a response passed on through another member), with the query filters
 * (serf messages.go filterNode, filterTag). Written in go-msgpack's gossip dialect (structs as
 * maps with sorted keys, []byte and strings as raw strings, nil for an empty slice), read as
 * leniently as Go reads them (docs/memberlist-interop.md, "Queries").
 *
 * Addresses: Serf carries the asker's address as raw IP bytes (4 or 16) and a port; the query
 * model carries it as "ip:port", as the member's transport writes addresses.
 */
import { MAX_NAME_BYTES, decodeQueryFlags, encodeQueryFlags, type QueryFilter, type QueryRequest, type QueryResponse } from '@swim/core';
import { invalidField, malformed, unlessMalformed } from '../codec/decode-failure.js';
import { GoMsgpackWriter } from '../codec/go-msgpack-writer.js';
import { formatIpPort, parseIpPort, type IpPort } from '../codec/ip.js';
import { MsgpackReader } from '../codec/msgpack-reader.js';
import { SERF_MESSAGE, writeSerfText } from './serf-messages.js';

/**
 * Largest query message read, type byte included: a UDP datagram's payload over IPv4. Serf sets
 * no limit on what it receives; its askers refuse queries over QuerySizeLimit (1024 by default).
 */
export const MAX_QUERY_MESSAGE_BYTES = 65_507;
/** Most filters read from one query; Serf writes one node filter and one per tag. */
export const MAX_QUERY_FILTERS = 64;

/** serf messages.go filterType. */
export const SERF_FILTER = {
  /** filterNodeType: a msgpack array of node names. */
  node: 0,
  /** filterTagType: a msgpack map {Expr, Tag}. */
  tag: 1,
} as const;

/** A relayed message's destination (serf messages.go relayHeader: DestAddr, DestName). */
export interface SerfRelayDestination {
  /** The asker's node name (DestName). */
  readonly name: string;
  /** The asker's address, "ip:port" (DestAddr, a net.UDPAddr). */
  readonly address: string;
}

const NANOS_PER_MS = 1_000_000;

/** `[4]{Addr, Filters, Flags, ID, LTime, Name, Payload, Port, RelayFactor, SourceNode, Timeout}` (serf messageQuery). */
export function encodeSerfQuery(query: QueryRequest): Uint8Array {
  const address = askerIpPort(query.sourceAddress, 'query');
  if (!Number.isInteger(query.relayFactor) || query.relayFactor < 0 || query.relayFactor > 255) {
    throw new RangeError(`relayFactor must be an integer in 0..255 (a Go uint8), got ${query.relayFactor}`);
  }
  const timeoutNs = Math.round(query.timeoutMs * NANOS_PER_MS);
  if (!Number.isSafeInteger(timeoutNs) || timeoutNs < 0) throw new RangeError(`timeoutMs must be a non-negative number of milliseconds, got ${query.timeoutMs}`);
  const filters = query.filters.map(encodeSerfFilter);
  const writer = new GoMsgpackWriter(160 + query.name.length * 3 + query.payload.length + filters.reduce((n, f) => n + f.length + 5, 0));
  writer.byte(SERF_MESSAGE.query);
  writer.mapHeader(11);
  writer.key('Addr');
  writer.rawString(address.ip);
  writer.key('Filters');
  if (filters.length === 0) writer.nil();
  else {
    writer.arrayHeader(filters.length);
    for (const filter of filters) writer.rawString(filter);
  }
  writer.key('Flags');
  writer.uint(encodeQueryFlags(query));
  writer.key('ID');
  writer.uint(query.id >>> 0);
  writer.key('LTime');
  writer.uint(query.ltime);
  writer.key('Name');
  writeSerfText(writer, query.name, 'query name');
  writer.key('Payload');
  writer.rawString(query.payload, true);
  writer.key('Port');
  writer.uint(address.port);
  writer.key('RelayFactor');
  writer.uint(query.relayFactor);
  writer.key('SourceNode');
  writeSerfText(writer, query.sourceName, 'source node');
  writer.key('Timeout');
  writer.uint(timeoutNs);
  return writer.finish();
}

/** `[5]{Flags, From, ID, LTime, Payload}` (serf messageQueryResponse): an ack (Flags 1, Payload nil) or a response. */
export function encodeSerfQueryResponse(response: QueryResponse): Uint8Array {
  const writer = new GoMsgpackWriter(64 + response.from.length * 3 + response.payload.length);
  writer.byte(SERF_MESSAGE.queryResponse);
  writer.mapHeader(5);
  writer.key('Flags');
  writer.uint(response.ack ? 1 : 0);
  writer.key('From');
  writeSerfText(writer, response.from, 'responder name');
  writer.key('ID');
  writer.uint(response.id >>> 0);
  writer.key('LTime');
  writer.uint(response.ltime);
  writer.key('Payload');
  writer.rawString(response.payload, true);
  return writer.finish();
}

/**
 * `[9]{DestAddr: {IP, Port, Zone}, DestName}` followed by the inner message as it is (serf
 * query.go relayResponse): what a responder sends to a relay, which passes `inner` on to the asker.
 */
export function encodeSerfRelay(inner: Uint8Array, destination: SerfRelayDestination): Uint8Array {
  const address = askerIpPort(destination.address, 'relay');
  const writer = new GoMsgpackWriter(64 + destination.name.length * 3 + inner.length);
  writer.byte(SERF_MESSAGE.relay);
  writer.mapHeader(2);
  writer.key('DestAddr');
  writer.mapHeader(3);
  writer.key('IP');
  writer.rawString(address.ip);
  writer.key('Port');
  writer.uint(address.port);
  writer.key('Zone');
  writer.rawString(EMPTY);
  writer.key('DestName');
  writeSerfText(writer, destination.name, 'destination name');
  writer.raw(inner);
  return writer.finish();
}

/** One filter's bytes: its type byte, then a msgpack array of names or a map {Expr, Tag} (serf query.go encodeFilters). */
export function encodeSerfFilter(filter: QueryFilter): Uint8Array {
  const writer = new GoMsgpackWriter(32);
  switch (filter.kind) {
    case 'nodes':
      writer.byte(SERF_FILTER.node);
      writer.arrayHeader(filter.names.length);
      for (const name of filter.names) writeSerfText(writer, name, 'node filter name');
      break;
    case 'tag':
      writer.byte(SERF_FILTER.tag);
      writer.mapHeader(2);
      writer.key('Expr');
      writeSerfText(writer, filter.expr, 'tag filter expression');
      writer.key('Tag');
      writeSerfText(writer, filter.tag, 'tag filter tag');
      break;
    default:
      throw new RangeError(`a filter of unknown type ${String((filter as { type?: unknown }).type)} cannot be sent`);
  }
  return writer.finish();
}

/**
 * A filter read from its bytes. One that does not decode, or of a type Serf does not know, is
 * `unknown`: it matches nobody, as Serf's shouldProcessQuery treats it. Never throws.
 */
export function decodeSerfFilter(bytes: Uint8Array): QueryFilter {
  const type = bytes[0] ?? -1;
  const read = type === SERF_FILTER.node ? readNodeFilter : type === SERF_FILTER.tag ? readTagFilter : undefined;
  const filter = read === undefined ? undefined : unlessMalformed(() => read(new MsgpackReader(bytes, 1)));
  return filter ?? { kind: 'unknown', type };
}

function readNodeFilter(reader: MsgpackReader): QueryFilter {
  const count = reader.arrayHeader('node filter');
  const names: string[] = [];
  for (let i = 0; i < count; i++) names.push(reader.text('node filter name', MAX_NAME_BYTES));
  return { kind: 'nodes', names };
}

function readTagFilter(reader: MsgpackReader): QueryFilter {
  let expr = '';
  let tag = '';
  const count = reader.mapHeader('tag filter');
  for (let i = 0; i < count; i++) {
    const key = reader.key();
    if (key === 'Expr') expr = reader.text('Expr', MAX_QUERY_MESSAGE_BYTES);
    else if (key === 'Tag') tag = reader.text('Tag', MAX_QUERY_MESSAGE_BYTES);
    else reader.skip();
  }
  return { kind: 'tag', tag, expr };
}

/** A messageQuery (type byte included) as the query model; throws the codec's DecodeFailure (which {@link serfQueryWire} reports as malformed). */
export function decodeSerfQuery(bytes: Uint8Array): QueryRequest {
  checkMessage(bytes, SERF_MESSAGE.query);
  const reader = new MsgpackReader(bytes, 1);
  let ip: Uint8Array = EMPTY;
  let port = 0;
  let filters: QueryFilter[] = [];
  let flags = 0;
  let id = 0;
  let ltime = 0;
  let name = '';
  let payload: Uint8Array = EMPTY;
  let relayFactor = 0;
  let sourceName = '';
  let timeoutNs = 0;
  const count = reader.mapHeader('query');
  for (let i = 0; i < count; i++) {
    switch (reader.key()) {
      case 'Addr':
        ip = reader.bytes('Addr', 16);
        break;
      case 'Filters': {
        const n = reader.arrayHeader('Filters');
        if (n > MAX_QUERY_FILTERS) throw invalidField('Filters', `holds at most ${MAX_QUERY_FILTERS} filters, got ${n}`);
        filters = [];
        for (let f = 0; f < n; f++) filters.push(decodeSerfFilter(reader.bytes('Filters', MAX_QUERY_MESSAGE_BYTES)));
        break;
      }
      case 'Flags':
        flags = reader.uint('Flags', 0xffff_ffff);
        break;
      case 'ID':
        id = reader.uint('ID', 0xffff_ffff);
        break;
      case 'LTime':
        ltime = reader.uint('LTime', Number.MAX_SAFE_INTEGER);
        break;
      case 'Name':
        name = reader.text('Name', MAX_QUERY_MESSAGE_BYTES);
        break;
      case 'Payload':
        payload = reader.bytes('Payload', MAX_QUERY_MESSAGE_BYTES);
        break;
      case 'Port':
        port = reader.uint('Port', 0xffff);
        break;
      case 'RelayFactor':
        relayFactor = reader.uint('RelayFactor', 0xff);
        break;
      case 'SourceNode':
        sourceName = reader.text('SourceNode', MAX_NAME_BYTES);
        break;
      case 'Timeout':
        timeoutNs = reader.uint('Timeout', Number.MAX_SAFE_INTEGER);
        break;
      default:
        reader.skip();
    }
  }
  const sourceAddress = askerAddress(ip, port, 'Addr');
  return { name, payload, filters, ...decodeQueryFlags(flags), id, ltime, timeoutMs: timeoutNs / NANOS_PER_MS, relayFactor, sourceName, sourceAddress };
}

/** A messageQueryResponse (type byte included); throws the codec's DecodeFailure (which {@link serfQueryWire} reports as malformed). */
export function decodeSerfQueryResponse(bytes: Uint8Array): QueryResponse {
  checkMessage(bytes, SERF_MESSAGE.queryResponse);
  const reader = new MsgpackReader(bytes, 1);
  let flags = 0;
  let from = '';
  let id = 0;
  let ltime = 0;
  let payload: Uint8Array = EMPTY;
  const count = reader.mapHeader('query response');
  for (let i = 0; i < count; i++) {
    switch (reader.key()) {
      case 'Flags':
        flags = reader.uint('Flags', 0xffff_ffff);
        break;
      case 'From':
        from = reader.text('From', MAX_NAME_BYTES);
        break;
      case 'ID':
        id = reader.uint('ID', 0xffff_ffff);
        break;
      case 'LTime':
        ltime = reader.uint('LTime', Number.MAX_SAFE_INTEGER);
        break;
      case 'Payload':
        payload = reader.bytes('Payload', MAX_QUERY_MESSAGE_BYTES);
        break;
      default:
        reader.skip();
    }
  }
  // serf messages.go messageQueryResponse.Ack: bit 0 of Flags.
  return { ltime, id, from, ack: (flags & 1) !== 0, payload };
}

/**
 * A messageRelay: its header and the inner message, which must be a query response (Serf passes
 * on whatever follows the header; we relay acks and responses only, so a forged relay cannot
 * make us send anything else). Throws the codec's DecodeFailure (which {@link serfQueryWire} reports as malformed).
 */
export function decodeSerfRelay(bytes: Uint8Array): {
  /** Whom the relay passes the response to (relayHeader). */
  destination: SerfRelayDestination;
  /** The query response to pass on, type byte included, as it came. */
  inner: Uint8Array;
} {
  checkMessage(bytes, SERF_MESSAGE.relay);
  const reader = new MsgpackReader(bytes, 1);
  let ip: Uint8Array = EMPTY;
  let port = 0;
  let name = '';
  const count = reader.mapHeader('relay header');
  for (let i = 0; i < count; i++) {
    switch (reader.key()) {
      case 'DestAddr': {
        const fields = reader.mapHeader('DestAddr');
        for (let f = 0; f < fields; f++) {
          const key = reader.key();
          if (key === 'IP') ip = reader.bytes('IP', 16);
          else if (key === 'Port') port = reader.uint('Port', 0xffff);
          else reader.skip();
        }
        break;
      }
      case 'DestName':
        name = reader.text('DestName', MAX_NAME_BYTES);
        break;
      default:
        reader.skip();
    }
  }
  const address = askerAddress(ip, port, 'DestAddr');
  const inner = bytes.slice(reader.position);
  if (inner[0] !== SERF_MESSAGE.queryResponse) throw malformed('a relay passes on a query response (type 5) only');
  // The inner response must itself decode: a relay passes on nothing we would not accept.
  decodeSerfQueryResponse(inner);
  return { destination: { name, address }, inner };
}

/** The asker's IP and port to write; a RangeError when `address` is not "ip:port". */
function askerIpPort(address: string, message: 'query' | 'relay'): IpPort {
  const parsed = parseIpPort(address);
  if (typeof parsed === 'string') throw new RangeError(`a Serf ${message} carries the asker's IP and port: ${parsed}`);
  return parsed;
}

/** The asker's "ip:port" read from `field`; a DecodeFailure unless the IP is 4 or 16 bytes and the port set. */
function askerAddress(ip: Uint8Array, port: number, field: string): string {
  const address = formatIpPort(ip, port);
  if (address === undefined || port === 0) throw invalidField(field, `must be a 4 or 16 byte IP with a port, got ${ip.length} bytes and port ${port}`);
  return address;
}

function checkMessage(bytes: Uint8Array, type: number): void {
  if (bytes.length > MAX_QUERY_MESSAGE_BYTES) throw malformed(`a query message is at most ${MAX_QUERY_MESSAGE_BYTES} bytes, got ${bytes.length}`);
  if (bytes[0] !== type) throw malformed(`expected Serf message type ${type}`);
}

const EMPTY = new Uint8Array(0);
