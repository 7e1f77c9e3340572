/**
 * Serf queries for the RPC (`query`, and received queries streamed for `respond`), over the
 * runtime's query API (member.query / member.on('query'), the API agreed in issue 30). Until the
 * running member has it, `query` answers Serf's text for an operation it cannot do.
 */
import type { Member } from '@swim/runtime';
import type { RpcIncomingQuery, RpcQueryParams, RpcQueryReply, RpcQueryStream } from '../../serf-rpc/backend.js';
import { UNSUPPORTED_OPERATION } from '../../serf-rpc/protocol.js';

/** The parts of the agreed runtime API used here. */
interface QueryHandle extends AsyncIterable<{ readonly kind: 'ack'; readonly from: string } | { readonly kind: 'response'; readonly from: string; readonly payload: Uint8Array }> {
  readonly deadline: number;
  close(): void;
}
interface IncomingQuery {
  readonly name: string;
  readonly payload: Uint8Array;
  readonly ltime: number;
  readonly deadline: number;
  respond(payload: Uint8Array): void;
}
interface QueryingMember {
  query?(
    name: string,
    payload?: Uint8Array,
    options?: { filterNodes?: readonly string[]; filterTags?: Readonly<Record<string, string>>; timeoutMs?: number; requestAck?: boolean; relayFactor?: number },
  ): QueryHandle;
}

/** The member clock's time (performance.now) as Date.now() time. */
function wallTime(memberTime: number): number {
  return Date.now() + (memberTime - performance.now());
}

export function startQuery(member: Member, params: RpcQueryParams): RpcQueryStream {
  const querying = member as unknown as QueryingMember;
  if (typeof querying.query !== 'function') throw new Error(UNSUPPORTED_OPERATION);
  let handle: QueryHandle;
  try {
    handle = querying.query(params.name, params.payload, {
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

/** Every user query the member accepts, for `stream` clients; a no-op until the member has queries. */
export function onIncomingQuery(member: Member, listener: (query: RpcIncomingQuery) => void): () => void {
  const on = (member as unknown as { on(type: string, listener: (query: IncomingQuery) => void): () => void }).on.bind(member);
  if (typeof (member as unknown as QueryingMember).query !== 'function') return () => {};
  return on('query', (query) =>
    listener({ kind: 'query', name: query.name, payload: query.payload, ltime: query.ltime, deadline: wallTime(query.deadline), respond: (payload) => query.respond(payload) }),
  );
}
