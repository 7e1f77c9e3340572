import type { CollectOutcome, QueryCollector, QueryResponse } from '@swim/core';
import type { QueryHandle, QueryReply, QuerySummary } from './query-types.js';

/**
 * One query we asked: its collector, the replies in arrival order, and the iterators waiting for
 * more. The replies kept are bounded by the collector (one ack and one response per member, at
 * most its capacity each).
 */
export class PendingQuery implements QueryHandle {
  readonly name: string;
  readonly ltime: number;
  readonly id: number;
  readonly finished: Promise<QuerySummary>;
  readonly #collector: QueryCollector;
  readonly #replies: QueryReply[] = [];
  readonly #waiters = new Set<() => void>();
  readonly #onEnd: () => void;
  #ended = false;
  #settle!: (summary: QuerySummary) => void;

  /** @param onEnd called once when collection ends (the service drops its timer and entry). */
  constructor(name: string, collector: QueryCollector, ltime: number, id: number, onEnd: () => void) {
    this.name = name;
    this.ltime = ltime;
    this.id = id;
    this.#collector = collector;
    this.#onEnd = onEnd;
    this.finished = new Promise<QuerySummary>((resolve) => {
      this.#settle = resolve;
    });
  }

  get deadline(): number {
    return this.#collector.deadline;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Takes one ack or response that arrived at `now`; a new one is handed to the iterators. */
  accept(reply: QueryResponse, now: number): CollectOutcome {
    if (this.#ended) return this.#collector.accept(reply, Infinity);
    const outcome = this.#collector.accept(reply, now);
    if (outcome === 'ack') this.#push({ kind: 'ack', from: reply.from });
    else if (outcome === 'response') this.#push({ kind: 'response', from: reply.from, payload: this.#collector.responses.get(reply.from)! });
    return outcome;
  }

  close(): void {
    this.end();
  }

  /** Ends collection: the deadline passed, close() or abort, or the member closed. Idempotent. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#collector.close();
    this.#wake();
    this.#onEnd();
    this.#settle({ acks: [...this.#collector.acks], responses: new Map(this.#collector.responses), totals: this.#collector.totals() });
  }

  [Symbol.asyncIterator](): AsyncIterator<QueryReply> {
    let next = 0;
    let stopped = false;
    return {
      next: async (): Promise<IteratorResult<QueryReply>> => {
        for (;;) {
          if (stopped) return { done: true, value: undefined };
          if (next < this.#replies.length) return { done: false, value: this.#replies[next++]! };
          if (this.#ended) return { done: true, value: undefined };
          await new Promise<void>((resolve) => this.#waiters.add(resolve));
        }
      },
      return: async (): Promise<IteratorResult<QueryReply>> => {
        stopped = true;
        return { done: true, value: undefined };
      },
    };
  }

  #push(reply: QueryReply): void {
    this.#replies.push(reply);
    this.#wake();
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }
}
