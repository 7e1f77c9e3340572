import {
  decodeQueryBroadcast,
  decodeQueryMessage,
  encodeQueryBroadcast,
  encodeQueryRelayMessage,
  encodeQueryResponseMessage,
  isQueryBroadcastKey,
  isQueryMessage,
  queryBroadcastKey,
} from '@swim/core';
import type { QueryTraffic, QueryWire } from './query-wire.js';

/** Options of {@link swimQueryWire}. */
export interface SwimQueryWireOptions {
  /** A member's tags from its metadata, for tag filters (the CLI passes Serf's decodeTags). Default: no tags. */
  readonly tagsOf?: QueryWire['tagsOf'];
}

/**
 * Queries on @swim's own wire (docs/design.md, "Queries"): a query is a user broadcast under the
 * reserved key `swim:query:<ltime>:<id>`, which the core gossips on by itself; acks, responses and
 * relays are user messages that start with the reserved byte 0xC1 (@swim/core query-codec.ts).
 * A member with the native codec uses it by default.
 */
export function swimQueryWire(options: SwimQueryWireOptions = {}): QueryWire {
  const wire: QueryWire = {
    name: 'swim',
    coreForwardsQueries: true,
    queryKey: queryBroadcastKey,
    encodeQuery: encodeQueryBroadcast,
    encodeResponse: encodeQueryResponseMessage,
    encodeRelay: encodeQueryRelayMessage,
    read(payload: Uint8Array, key: string | undefined): QueryTraffic | undefined {
      if (key !== undefined) {
        if (!isQueryBroadcastKey(key)) return undefined;
        const decoded = decodeQueryBroadcast(key, payload);
        return decoded.ok ? { kind: 'query', query: decoded.value, bytes: payload } : { kind: 'malformed', reason: `query: ${decoded.reason}` };
      }
      if (!isQueryMessage(payload)) return undefined;
      const decoded = decodeQueryMessage(payload);
      if (!decoded.ok) return { kind: 'malformed', reason: decoded.reason };
      const message = decoded.value;
      return message.kind === 'response' ? { kind: 'response', response: message.response } : { kind: 'relay', destination: message.destination, inner: message.inner };
    },
  };
  if (options.tagsOf !== undefined) wire.tagsOf = options.tagsOf;
  return wire;
}
