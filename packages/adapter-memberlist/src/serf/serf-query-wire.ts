import type { QueryRequest } from '@swim/core';
import type { QueryTraffic, QueryWire } from '@swim/runtime';
import { DecodeFailure } from '../codec/decode-failure.js';
import { SERF_MESSAGE } from './serf-messages.js';
import { decodeTags } from './tags.js';
import { decodeSerfQuery, decodeSerfQueryResponse, decodeSerfRelay, encodeSerfQuery, encodeSerfQueryResponse, encodeSerfRelay } from './serf-query-messages.js';

const wire = {
  name: 'serf',
  coreForwardsQueries: false,
  queryKey: (query: QueryRequest) => `serf:query:${query.ltime}:${query.id}`,
  encodeQuery: encodeSerfQuery,
  encodeResponse: encodeSerfQueryResponse,
  encodeRelay: encodeSerfRelay,
  tagsOf: decodeTags,
  read(payload: Uint8Array, _key: string | undefined): QueryTraffic | undefined {
    if (payload.length === 0) return undefined;
    try {
      switch (payload[0]) {
        case SERF_MESSAGE.query:
          return { kind: 'query', query: decodeSerfQuery(payload), bytes: payload };
        case SERF_MESSAGE.queryResponse:
          return { kind: 'response', response: decodeSerfQueryResponse(payload) };
        case SERF_MESSAGE.relay:
          return { kind: 'relay', ...decodeSerfRelay(payload) };
        default:
          return undefined;
      }
    } catch (failure) {
      if (failure instanceof DecodeFailure) return { kind: 'malformed', reason: `Serf message type ${payload[0]}: ${failure.detail}` };
      // Anything else is a bug of ours; still never throw on a peer's bytes.
      return { kind: 'malformed', reason: `Serf message type ${payload[0]}: ${String(failure)}` };
    }
  },
};

/**
 * Queries on memberlist's wire, as Serf writes them (serf messages.go messageQuery,
 * messageQueryResponse, messageRelay): every one travels in a memberlist user message, whose
 * bytes alone say what it is (memberlist carries no broadcast key), so the key is not looked at:
 * an application broadcast that starts like a query is refused, as peers would read it as one.
 * Tag filters read Serf's tags from the member's meta. Serf gossips a query again from its own handleQuery
 * (the query broadcast queue), not from memberlist: `coreForwardsQueries` is false and the query
 * service broadcasts the received bytes again.
 */
export const serfQueryWire: QueryWire = Object.freeze(wire);
