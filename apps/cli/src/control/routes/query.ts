/**
 * `POST /query`: a query sent by the agent's member, its acks and responses streamed back to
 * `swim query` as they come (one JSON object per line), as Serf's agent streams a query's records
 * over its RPC (serf-protocol.md §6.5). The body is JSON and guarded like every POST; what is
 * buffered for one client is bounded (a client that stops reading is dropped and its query
 * closed), only so many stream at once, and a client that goes away closes its query.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Member, QueryHandle, QueryOptions } from '@swim/runtime';
import { readJsonBody } from '../guard.js';
import { reply } from '../server.js';

export const QUERY_ROUTE = 'POST /query';
/** Queries streaming at once; the next is refused (503). */
export const MAX_QUERY_STREAMS = 16;
/** Bytes written to one client and not yet taken by its socket: past this the client is dropped. */
export const MAX_QUERY_BUFFERED_BYTES = 256 * 1024;
/** Longest timeout a client may ask for. Serf sets none; an hour keeps a forgotten stream from living for days. */
export const MAX_QUERY_TIMEOUT_MS = 3_600_000;
/** Most node names in a node filter sent through the endpoint. */
const MAX_FILTER_NODES = 1024;
const MAX_FILTER_TAGS = 64;

/** The body of `POST /query` (payload in base64). */
export interface QueryRequestBody {
  readonly name: string;
  readonly payload?: string;
  readonly filterNodes?: readonly string[];
  readonly filterTags?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly requestAck?: boolean;
  readonly relayFactor?: number;
}

/** One line of the stream. */
export type QueryRecord =
  | { readonly type: 'dispatched'; readonly name: string; readonly ltime: number; readonly id: number; readonly timeoutMs: number }
  | { readonly type: 'ack'; readonly from: string }
  | { readonly type: 'response'; readonly from: string; readonly payload: string }
  | { readonly type: 'done'; readonly acks: number; readonly responses: number };

export interface QueryStreamStats {
  readonly streaming: number;
  readonly opened: number;
  readonly refused: number;
  readonly dropped: number;
}

const KEYS = ['name', 'payload', 'filterNodes', 'filterTags', 'timeoutMs', 'requestAck', 'relayFactor'];

/** The query a body asks for, or why it cannot be sent. */
export function queryFromBody(body: unknown): { name: string; payload: Uint8Array; options: QueryOptions } | { error: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: 'expected a JSON object {"name": ..., "payload": base64, ...}' };
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).find((key) => !KEYS.includes(key));
  if (unknown !== undefined) return { error: `unknown field '${unknown.slice(0, 40)}' (expected ${KEYS.join(', ')})` };
  if (typeof b['name'] !== 'string' || b['name'] === '') return { error: 'name: expected a non-empty string' };
  const payloadText = b['payload'] ?? '';
  if (typeof payloadText !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(payloadText) || payloadText.length % 4 !== 0) return { error: 'payload: expected base64' };
  const options: { -readonly [K in keyof QueryOptions]: QueryOptions[K] } = {};
  const nodes = b['filterNodes'];
  if (nodes !== undefined) {
    if (!Array.isArray(nodes) || nodes.length > MAX_FILTER_NODES || nodes.some((n) => typeof n !== 'string' || n === '')) return { error: `filterNodes: expected at most ${MAX_FILTER_NODES} node names` };
    options.filterNodes = nodes as string[];
  }
  const tags = b['filterTags'];
  if (tags !== undefined) {
    if (typeof tags !== 'object' || tags === null || Array.isArray(tags)) return { error: 'filterTags: expected an object of tag name to regular expression' };
    const entries = Object.entries(tags as Record<string, unknown>);
    if (entries.length > MAX_FILTER_TAGS || entries.some(([, v]) => typeof v !== 'string')) return { error: `filterTags: expected at most ${MAX_FILTER_TAGS} tag names, each with a regular expression` };
    options.filterTags = Object.fromEntries(entries) as Record<string, string>;
  }
  const timeout = b['timeoutMs'];
  if (timeout !== undefined) {
    if (!Number.isInteger(timeout) || (timeout as number) < 1 || (timeout as number) > MAX_QUERY_TIMEOUT_MS) return { error: `timeoutMs: expected an integer from 1 to ${MAX_QUERY_TIMEOUT_MS}` };
    options.timeoutMs = timeout as number;
  }
  const ack = b['requestAck'];
  if (ack !== undefined) {
    if (typeof ack !== 'boolean') return { error: 'requestAck: expected a boolean' };
    options.requestAck = ack;
  }
  const relay = b['relayFactor'];
  if (relay !== undefined) {
    if (!Number.isInteger(relay) || (relay as number) < 0 || (relay as number) > 255) return { error: 'relayFactor: expected an integer from 0 to 255' };
    options.relayFactor = relay as number;
  }
  return { name: b['name'], payload: new Uint8Array(Buffer.from(payloadText, 'base64')), options };
}

export class QueryStreams {
  readonly #open = new Set<QueryHandle>();
  readonly #limits: { readonly maxStreams: number; readonly maxBufferedBytes: number };
  #opened = 0;
  #refused = 0;
  #dropped = 0;
  #closed = false;

  constructor(limits = { maxStreams: MAX_QUERY_STREAMS, maxBufferedBytes: MAX_QUERY_BUFFERED_BYTES }) {
    this.#limits = limits;
  }

  get stats(): QueryStreamStats {
    return { streaming: this.#open.size, opened: this.#opened, refused: this.#refused, dropped: this.#dropped };
  }

  /** Read and check the body, send the query, stream its records until its deadline. */
  async serve(req: IncomingMessage, res: ServerResponse, member: Member, stopping: boolean): Promise<void> {
    const read = await readJsonBody(req);
    if ('status' in read) return reply(res, read.status, { error: read.error }, { connection: 'close' });
    const asked = queryFromBody(read.body);
    if ('error' in asked) return reply(res, 400, asked);
    if (stopping || this.#closed) return reply(res, 409, { error: 'the agent is leaving' });
    if (member.queries.wire === undefined) return reply(res, 409, { error: 'this agent carries no queries: with --wire memberlist they need the Serf layer' });
    if (this.#open.size >= this.#limits.maxStreams) {
      this.#refused++;
      return reply(res, 503, { error: `${this.#limits.maxStreams} queries are streaming already, the most this agent serves at once` });
    }
    let handle: QueryHandle;
    try {
      handle = member.query(asked.name, asked.payload, asked.options);
    } catch (error) {
      // RangeError: the query itself (size, name, options); anything else: the member's bounds.
      return reply(res, error instanceof RangeError ? 400 : 503, { error: (error as Error).message });
    }
    this.#open.add(handle);
    this.#opened++;
    res.once('close', () => handle.close());
    res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    const write = (record: QueryRecord): boolean => {
      const line = `${JSON.stringify(record)}\n`;
      if (res.writableLength + Buffer.byteLength(line) > this.#limits.maxBufferedBytes) {
        this.#dropped++;
        handle.close();
        res.destroy();
        return false;
      }
      res.write(line);
      return true;
    };
    write({ type: 'dispatched', name: handle.name, ltime: handle.ltime, id: handle.id, timeoutMs: Math.round(handle.deadline - performance.now()) });
    try {
      for await (const r of handle) {
        const ok = write(r.kind === 'ack' ? { type: 'ack', from: r.from } : { type: 'response', from: r.from, payload: Buffer.from(r.payload).toString('base64') });
        if (!ok) break;
      }
      const summary = await handle.finished;
      if (!res.destroyed) {
        write({ type: 'done', acks: summary.acks.length, responses: summary.responses.size });
        res.end();
      }
    } finally {
      this.#open.delete(handle);
    }
  }

  /** End every query (the agent is stopping): clients get their `done` line. */
  close(): void {
    this.#closed = true;
    for (const handle of this.#open) handle.close();
  }
}
