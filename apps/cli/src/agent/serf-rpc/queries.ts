/**
 * Serf queries for the RPC: `query` over member.query (its acks and responses streamed as Serf's
 * records until the deadline), and every user query the member accepts (member.on('query'))
 * streamed to `stream` clients, who answer with `respond` (IncomingQuery.respond).
 */
import type { IncomingQuery, Member, QueryHandle } from '@swim/runtime';
import type { RpcIncomingQuery, RpcQueryParams, RpcQueryReply, RpcQueryStream } from '../../serf-rpc/backend.js';

/** The member clock's time (performance.now) as Date.now() time. */
function wallTime(memberTime: number): number {
  return Date.now() + (memberTime - performance.now());
}

/** Throws with the member's reason (a RangeError: size, name, parameters), which the client is told. */
export function startQuery(member: Member, params: RpcQueryParams): RpcQueryStream {
  let handle: QueryHandle;
  try {
    handle = member.query(params.name, params.payload, {
      filterNodes: params.filterNodes,
      filterTags: Object.fromEntries(params.filterTags),
      requestAck: params.requestAck,
      relayFactor: params.relayFactor,
      ...(params.timeoutMs > 0 ? { timeoutMs: params.timeoutMs } : {}),
    });
  } catch (error) {
    throw new Error((error as Error).message);
  }
  return {
    deadline: wallTime(handle.deadline),
    replies: (async function* (): AsyncGenerator<RpcQueryReply> {
      for await (const reply of handle) yield reply.kind === 'ack' ? { type: 'ack', from: reply.from } : { type: 'response', from: reply.from, payload: reply.payload };
    })(),
    close: () => handle.close(),
  };
}

/** Every user query the member accepts, for `stream` clients. */
export function onIncomingQuery(member: Member, listener: (query: RpcIncomingQuery) => void): () => void {
  return member.on('query', (query: IncomingQuery) =>
    listener({ kind: 'query', name: query.name, payload: query.payload, ltime: query.ltime, deadline: wallTime(query.deadline), respond: (payload) => query.respond(payload) }),
  );
}
