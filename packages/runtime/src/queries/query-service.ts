import {
  defaultQueryTimeoutMs,
  isDown,
  isInternalQuery,
  newQueryId,
  QueryCollector,
  QueryReceiver,
  querySizeProblem,
  resolveQueryConfig,
  responseSizeProblem,
  selectRelays,
  userQueryProblem,
  type LamportClock,
  type MemberView,
  type QueryConfig,
  type QueryFilter,
  type QueryRequest,
  type QueryResponse,
  type Rng,
} from '@swim/core';
import type { Clock } from '../clock.js';
import { labelledMetric, singleMetric, type MetricFamily } from '../metrics.js';
import { PendingQuery } from './query-handle.js';
import type { IncomingQuery, QueryCounters, QueryHandle, QueryHandler, QueryOptions } from './query-types.js';
import type { QueryDestination, QueryWire } from './query-wire.js';

/** What the query service needs from its member: names, the membership, the user-message paths, time. */
export interface QueryHost {
  /** Our node name. */
  readonly name: string;
  /** Our address, as the transport writes it. */
  readonly address: string;
  /** The member's clock: timers are virtual in the simulator. */
  readonly clock: Clock;
  /** The gossip interval in force (for the default timeout). */
  gossipIntervalMs(): number;
  /** Ourselves as the membership holds us (for our metadata, hence our tags). */
  self(): MemberView | undefined;
  /** The member of that name in any state, or undefined. */
  member(name: string): MemberView | undefined;
  /** Every member held (relay selection counts them all, as Serf's Members()). */
  allMembers(): MemberView[];
  /** Members neither dead nor left, ourselves included (memberlist NumMembers). */
  liveMembers(): number;
  /** Queue a broadcast, past the application's reserved-key check. */
  broadcast(key: string, bytes: Uint8Array): void;
  /** Send a user message to a member we hold, past the application's reserved-payload check. */
  send(to: string, bytes: Uint8Array): void;
  /** Dispatch the `query` event. */
  dispatchQuery(query: IncomingQuery): void;
  /** Report an exception the service survived (a handler's, a send's). */
  contained(error: unknown): void;
}

/** Bounds and tuning of a member's query service (`MemberOptions.queries`). */
export interface QueryServiceOptions {
  /** Serf's query tuning (sizes, buffer, timeout multiplier); validated by core resolveQueryConfig. */
  readonly config?: Partial<QueryConfig>;
  /** The wire queries travel on. Default: @swim's (swimQueryWire) with the native codec, none with another (SerfLayer installs Serf's). */
  readonly wire?: QueryWire;
  /** Most of our own queries collecting at once; `query()` throws beyond it. Default 64. */
  readonly maxPendingQueries?: number;
  /**
   * Most application handlers running at once; a query arriving beyond it is dropped (counted as
   * busy). Serf's internal handlers have as many slots of their own. Default 64.
   */
  readonly maxConcurrentHandlers?: number;
  /**
   * Longest a received query holds a handler slot, ms, whatever timeout it claims (a forged one
   * may claim 49 days). Default 300 000 (5 min).
   */
  readonly maxResponseWindowMs?: number;
  /**
   * Queries before this Lamport time are dropped (serf queryMinTime: a snapshot's last query time
   * + 1, so that a restarted member does not answer its previous life's queries again). Default 0.
   */
  readonly minTime?: number;
}

const DEFAULT_MAX_PENDING = 64;
const DEFAULT_MAX_HANDLERS = 64;
const DEFAULT_MAX_WINDOW_MS = 300_000;
const MAX_TIMEOUT_MS = 0xffff_ffff;
const EMPTY = new Uint8Array(0);
const utf8 = new TextEncoder();

/** One accepted query, as its respond() sees it. */
interface Delivery {
  readonly query: QueryRequest;
  readonly deadline: number;
  /** Our own query: replies go straight to its collector. */
  readonly local: boolean;
  responded: boolean;
}

/**
 * Serf's queries in a member (serf serf.go Query, handleQuery, handleQueryResponse; query.go
 * relayResponse; event.go Query.Respond), on whatever wire is installed: it asks (handling its own
 * query first, then gossiping it), receives (de-duplicates, witnesses the query clock, checks the
 * filters, acks, delivers to handlers), answers (straight to the asker and through relays) and
 * collects (acks and responses until the deadline). Every bound is counted (docs/design.md, "Queries").
 */
export class QueryService {
  readonly #host: QueryHost;
  readonly #rng: Rng;
  readonly #config: QueryConfig;
  readonly #receiver: QueryReceiver;
  readonly #maxPending: number;
  readonly #maxHandlers: number;
  readonly #maxWindowMs: number;
  readonly #pending = new Map<string, PendingQuery>();
  readonly #handlers = new Map<string, QueryHandler>();
  readonly #internalHandlers = new Map<string, QueryHandler>();
  readonly #handlerSlots = new Set<() => void>();
  /** Serf's internal handlers have slots of their own: slow application handlers must not starve a key rotation. */
  readonly #internalSlots = new Set<() => void>();
  #wire: QueryWire | undefined;
  #closed = false;
  readonly #counters: QueryCounters = {
    sent: 0,
    received: 0,
    duplicate: 0,
    filtered: 0,
    accepted: 0,
    dropped: { invalid: 0, 'before-min-time': 0, 'too-old': 0, full: 0, busy: 0, 'unknown-asker': 0 },
    acksSent: 0,
    acksReceived: 0,
    responsesSent: 0,
    responsesReceived: 0,
    responsesUnsent: 0,
    repliesDropped: 0,
    relaysSent: 0,
    relaysForwarded: 0,
    relaysRefused: 0,
    malformed: 0,
    handlerErrors: 0,
  };

  /** @throws RangeError (ConfigError) for a bad config or bound. */
  constructor(host: QueryHost, rng: Rng, options: QueryServiceOptions = {}) {
    this.#host = host;
    this.#rng = rng;
    this.#config = resolveQueryConfig(options.config);
    const minTime = options.minTime ?? 0;
    if (!(Number.isSafeInteger(minTime) && minTime >= 0)) throw new RangeError(`queries.minTime must be a non-negative integer, got ${minTime}`);
    this.#receiver = new QueryReceiver({ config: this.#config, minTime });
    this.#maxPending = positiveInteger('maxPendingQueries', options.maxPendingQueries ?? DEFAULT_MAX_PENDING);
    this.#maxHandlers = positiveInteger('maxConcurrentHandlers', options.maxConcurrentHandlers ?? DEFAULT_MAX_HANDLERS);
    this.#maxWindowMs = positiveInteger('maxResponseWindowMs', options.maxResponseWindowMs ?? DEFAULT_MAX_WINDOW_MS);
    this.#wire = options.wire;
  }

  /** The wire queries travel on, or undefined when none is installed (the member then carries no queries). */
  get wire(): QueryWire | undefined {
    return this.#wire;
  }

  /** Install the wire queries travel on (SerfLayer installs Serf's); undefined removes it. */
  useWire(wire: QueryWire | undefined): void {
    this.#wire = wire;
  }

  /** The query tuning in force. */
  get config(): QueryConfig {
    return this.#config;
  }

  /** The query Lamport clock (serf queryClock): Serf's push-pull carries and witnesses its time. */
  get clock(): LamportClock {
    return this.#receiver.clock;
  }

  /** A copy of what was counted since the member started. */
  get counters(): QueryCounters {
    return { ...this.#counters, dropped: { ...this.#counters.dropped } };
  }

  /** Our own queries still collecting. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Handlers running now. */
  get handlersRunning(): number {
    return this.#handlerSlots.size;
  }

  /**
   * Ask `name` of the cluster (serf Serf.Query): what `member.query()` does, without its refusal
   * of `_serf_` names. For Serf's own queries (key queries, `_serf_ping`), sent by SerfLayer.
   */
  queryInternal(name: string, payload: Uint8Array = EMPTY, options: QueryOptions = {}): QueryHandle {
    if (!isInternalQuery(name)) throw new RangeError(`an internal query's name starts with '_serf_', got '${name}'`);
    return this.#ask(name, payload, options);
  }

  /** `member.query()`: an application's query. */
  query(name: string, payload: Uint8Array = EMPTY, options: QueryOptions = {}): QueryHandle {
    if (typeof name !== 'string' || name.length === 0) throw new RangeError('a query needs a name');
    if (!(payload instanceof Uint8Array)) throw new RangeError('a query payload must be a Uint8Array');
    const problem = userQueryProblem(name, payload);
    if (problem !== undefined) throw new RangeError(problem);
    return this.#ask(name, payload, options);
  }

  /**
   * Answer every accepted application query named `name` (`'*'`: every one with no handler of its
   * own); returns a function that removes the handler. One handler per name.
   */
  handle(name: string, handler: QueryHandler): () => void {
    if (typeof name !== 'string' || name.length === 0) throw new RangeError('a query handler needs a name, or * for every query');
    if (isInternalQuery(name)) throw new RangeError(`queries named '_serf_...' are Serf's own: use handleInternal`);
    return this.#register(this.#handlers, name, handler);
  }

  /** Answer Serf's own query `name` (`_serf_ping`, `_serf_conflict`, key queries): SerfLayer's. Never seen by application handlers. */
  handleInternal(name: string, handler: QueryHandler): () => void {
    if (!isInternalQuery(name)) throw new RangeError(`an internal query's name starts with '_serf_', got '${name}'`);
    return this.#register(this.#internalHandlers, name, handler);
  }

  /**
   * Why the application may not send `payload` (as a user message, `key` undefined, or a
   * broadcast under `key`): the installed wire would read it as query traffic. Undefined when it may.
   */
  refusal(payload: Uint8Array, key: string | undefined): string | undefined {
    const wire = this.#wire;
    if (wire === undefined || wire.read(payload, key) === undefined) return undefined;
    return key === undefined
      ? `the payload would read as query traffic on the ${wire.name} wire (payloads starting with 0xC1 are reserved on @swim's)`
      : `the broadcast key '${key}' is reserved for queries on the ${wire.name} wire`;
  }

  /**
   * Takes a user message (`key` undefined) or a user broadcast: true when it was query traffic,
   * handled here, and must not reach the application's `message` event.
   */
  intercept(payload: Uint8Array, key: string | undefined): boolean {
    const wire = this.#wire;
    if (wire === undefined) return false;
    const traffic = wire.read(payload, key);
    if (traffic === undefined) return false;
    if (this.#closed) return true;
    switch (traffic.kind) {
      case 'query':
        this.#counters.received++;
        this.#receive(traffic.query, traffic.bytes, false);
        return true;
      case 'response':
        this.#onReply(traffic.response);
        return true;
      case 'relay':
        this.#onRelay(traffic.destination, traffic.inner);
        return true;
      case 'malformed':
        this.#counters.malformed++;
        return true;
    }
  }

  /** Metric families for `member.metrics()`. */
  metricFamilies(): MetricFamily[] {
    const c = this.#counters;
    return [
      labelledMetric('counter', 'queries', 'Queries asked by this member (sent) and received from others, by what became of them.', '{query}', 'event', {
        sent: c.sent,
        received: c.received,
        duplicate: c.duplicate,
        filtered: c.filtered,
        accepted: c.accepted,
      }),
      labelledMetric('counter', 'queries_dropped', 'Received queries dropped, by reason.', '{query}', 'reason', {
        invalid: c.dropped.invalid,
        before_min_time: c.dropped['before-min-time'],
        too_old: c.dropped['too-old'],
        full: c.dropped.full,
        busy: c.dropped.busy,
        unknown_asker: c.dropped['unknown-asker'],
      }),
      labelledMetric('counter', 'query_replies', 'Acks and responses sent and received, and replies to our queries dropped.', '{message}', 'event', {
        acks_sent: c.acksSent,
        acks_received: c.acksReceived,
        responses_sent: c.responsesSent,
        responses_received: c.responsesReceived,
        responses_unsent: c.responsesUnsent,
        dropped: c.repliesDropped,
      }),
      labelledMetric('counter', 'query_relays', 'Relayed acks and responses: copies we sent through relays, and relays we forwarded or refused.', '{message}', 'result', {
        sent: c.relaysSent,
        forwarded: c.relaysForwarded,
        refused: c.relaysRefused,
      }),
      singleMetric('counter', 'query_malformed', 'Query traffic that did not decode.', '{message}', c.malformed),
      singleMetric('counter', 'query_handler_errors', 'Query handlers that threw or rejected.', '{error}', c.handlerErrors),
      singleMetric('gauge', 'queries_pending', 'Queries of this member still collecting replies.', '{query}', this.#pending.size),
      singleMetric('gauge', 'query_handlers_running', 'Query handlers running now.', '{handler}', this.#handlerSlots.size),
    ];
  }

  /** The member closed: every query ends, every handler slot is freed, traffic is ignored. */
  close(): void {
    this.#closed = true;
    for (const pending of [...this.#pending.values()]) pending.end();
    for (const release of [...this.#handlerSlots, ...this.#internalSlots]) release();
  }

  #register(map: Map<string, QueryHandler>, name: string, handler: QueryHandler): () => void {
    if (typeof handler !== 'function') throw new TypeError('a query handler must be a function');
    if (map.has(name)) throw new Error(`a handler for query '${name}' is registered already`);
    map.set(name, handler);
    return () => {
      if (map.get(name) === handler) map.delete(name);
    };
  }

  #ask(name: string, payload: Uint8Array, options: QueryOptions): QueryHandle {
    if (this.#closed) throw new Error(`member ${this.#host.name} is closed`);
    const wire = this.#wire;
    if (wire === undefined) throw new RangeError(`member ${this.#host.name} carries no queries: its codec has no query wire installed`);
    const filters = queryFilters(options);
    const relayFactor = options.relayFactor ?? 0;
    if (!(Number.isInteger(relayFactor) && relayFactor >= 0 && relayFactor <= 255)) throw new RangeError(`relayFactor must be an integer in [0, 255], got ${relayFactor}`);
    const timeoutMs = options.timeoutMs ?? defaultQueryTimeoutMs(this.#host.gossipIntervalMs(), this.#host.liveMembers(), this.#config.queryTimeoutMult);
    if (!(Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_TIMEOUT_MS)) throw new RangeError(`timeoutMs must be an integer in [1, ${MAX_TIMEOUT_MS}], got ${timeoutMs}`);
    if (options.requestAck !== undefined && typeof options.requestAck !== 'boolean') throw new RangeError('requestAck must be a boolean');
    if (this.#pending.size >= this.#maxPending) throw new Error(`${this.#pending.size} queries are collecting already (maxPendingQueries)`);
    const clock = this.#receiver.clock;
    if (clock.exhausted) throw new RangeError('the query clock is exhausted');

    const query: QueryRequest = {
      name,
      payload,
      filters,
      requestAck: options.requestAck ?? false,
      noBroadcast: false,
      id: newQueryId(this.#rng),
      ltime: clock.time(),
      timeoutMs,
      relayFactor,
      sourceName: this.#host.name,
      sourceAddress: this.#host.address,
    };
    const bytes = wire.encodeQuery(query);
    const tooBig = querySizeProblem(bytes.length, this.#config);
    if (tooBig !== undefined) throw new RangeError(tooBig);

    const now = this.#host.clock.now();
    const key = pendingKey(query.ltime, query.id);
    const collector = new QueryCollector({
      ltime: query.ltime,
      id: query.id,
      deadline: now + timeoutMs,
      requestAck: query.requestAck,
      capacity: Math.max(1, this.#host.liveMembers()),
      maxPayloadBytes: this.#config.queryResponseSizeLimit,
    });
    const timer = this.#host.clock.timer(() => pending.end());
    let stopAbort = () => {};
    const pending = new PendingQuery(name, collector, query.ltime, query.id, () => {
      timer.cancel();
      stopAbort();
      this.#pending.delete(key);
    });
    // Gossip first: a query the member cannot broadcast (too big for a packet) throws before anything happened.
    this.#host.broadcast(wire.queryKey(query), bytes);
    this.#counters.sent++;
    this.#pending.set(key, pending);
    timer.arm(collector.deadline);
    stopAbort = onAbort(options.signal, () => pending.end());
    // serf Query: the asker handles its own query (acks itself, runs its own handlers).
    this.#receive(query, bytes, true);
    return pending;
  }

  /** A query from the wire, or our own (`local`): serf handleQuery. */
  #receive(query: QueryRequest, bytes: Uint8Array, local: boolean): void {
    const host = this.#host;
    const now = host.clock.now();
    const self = host.self();
    const tags = self === undefined ? {} : this.#tagsOf(self.meta);
    const reception = this.#receiver.receive(query, { name: host.name, tags }, now);
    if (reception.kind === 'dropped') {
      if (local) return;
      if (reception.reason === 'duplicate') this.#counters.duplicate++;
      else this.#counters.dropped[reception.reason]++;
      return;
    }
    const wire = this.#wire!;
    if (!local && reception.rebroadcast && !wire.coreForwardsQueries) this.#guard(() => host.broadcast(wire.queryKey(query), bytes));
    if (reception.kind === 'filtered') {
      if (!local) this.#counters.filtered++;
      return;
    }
    if (!local && !this.#askerHeld(query)) {
      // No reply goes to an address that is no member of ours: a forged query must not turn us into a reflector.
      this.#counters.dropped['unknown-asker']++;
      return;
    }
    if (!local) this.#counters.accepted++;
    const delivery: Delivery = { query, deadline: Math.min(reception.respondBy, now + this.#maxWindowMs), local, responded: false };
    if (reception.ack !== undefined) {
      this.#counters.acksSent++;
      this.#reply(delivery, reception.ack, undefined);
    }
    const incoming = this.#incoming(delivery);
    if (reception.internal) {
      const handler = this.#internalHandlers.get(query.name);
      if (handler !== undefined) this.#run(handler, incoming, delivery, this.#internalSlots);
      return;
    }
    try {
      host.dispatchQuery(incoming);
    } catch (error) {
      this.#counters.handlerErrors++;
      host.contained(error);
    }
    const handler = this.#handlers.get(query.name) ?? this.#handlers.get('*');
    if (handler !== undefined) this.#run(handler, incoming, delivery, this.#handlerSlots);
  }

  #incoming(delivery: Delivery): IncomingQuery {
    const { query } = delivery;
    return {
      name: query.name,
      payload: query.payload,
      from: query.sourceName,
      ltime: query.ltime,
      id: query.id,
      deadline: delivery.deadline,
      get responded() {
        return delivery.responded;
      },
      respond: (payload: Uint8Array | string): void => this.#respond(delivery, payload),
    };
  }

  /** serf Query.Respond: once, before the deadline, within the size limit; throws why not. */
  #respond(delivery: Delivery, payload: Uint8Array | string): void {
    const bytes = responseBytes(payload);
    if (delivery.responded) throw new Error('response already sent');
    if (this.#closed) throw new Error(`member ${this.#host.name} is closed`);
    const problem = this.#sendResponse(delivery, bytes);
    if (problem !== undefined) throw new Error(problem);
  }

  /**
   * Send a response straight to the asker and through relays, unless it is past the deadline or
   * too big once encoded: returns why not (what a handler's answer may run into, counted as unsent).
   */
  #sendResponse(delivery: Delivery, bytes: Uint8Array): string | undefined {
    if (this.#host.clock.now() > delivery.deadline) return 'response is past the deadline';
    const { query } = delivery;
    const response: QueryResponse = { ltime: query.ltime, id: query.id, from: this.#host.name, ack: false, payload: bytes };
    const encoded = this.#wire!.encodeResponse(response);
    const tooBig = responseSizeProblem(encoded.length, this.#config);
    if (tooBig !== undefined) return tooBig;
    const relayed = delivery.local || query.relayFactor === 0 ? undefined : this.#wire!.encodeRelay(encoded, destinationOf(query));
    if (relayed !== undefined) {
      const relayTooBig = responseSizeProblem(relayed.length, this.#config, true);
      if (relayTooBig !== undefined) return relayTooBig;
    }
    delivery.responded = true;
    this.#counters.responsesSent++;
    this.#reply(delivery, response, encoded, relayed);
    return undefined;
  }

  /** Send an ack or a response: into our own collector for our query, else to the asker and through relays. */
  #reply(delivery: Delivery, response: QueryResponse, encoded: Uint8Array | undefined, relayed?: Uint8Array): void {
    const { query } = delivery;
    if (delivery.local) {
      this.#onReply(response);
      return;
    }
    const wire = this.#wire!;
    const bytes = encoded ?? wire.encodeResponse(response);
    this.#guard(() => this.#host.send(query.sourceName, bytes));
    if (query.relayFactor === 0) return;
    const relays = selectRelays(this.#rng, this.#relayCandidates(), { relayFactor: query.relayFactor, self: this.#host.name, querier: query.sourceName }, (m) => m.eligible);
    if (relays.length === 0) return;
    const relay = relayed ?? wire.encodeRelay(bytes, destinationOf(query));
    if (responseSizeProblem(relay.length, this.#config, true) !== undefined) return;
    for (const member of relays) {
      this.#counters.relaysSent++;
      this.#guard(() => this.#host.send(member.name, relay));
    }
  }

  #relayCandidates(): { name: string; alive: boolean; eligible: boolean }[] {
    const eligible = this.#wire?.relayEligible;
    return this.#host.allMembers().map((m) => ({ name: m.name, alive: m.state === 'alive', eligible: eligible === undefined || safely(() => eligible(m), false) }));
  }

  /** serf handleQueryResponse: an ack or a response to one of our queries. */
  #onReply(response: QueryResponse): void {
    const key = pendingKey(response.ltime, response.id);
    const pending = this.#pending.get(key);
    if (pending === undefined) {
      this.#counters.repliesDropped++;
      return;
    }
    const outcome = pending.accept(response, this.#host.clock.now());
    if (outcome === 'ack') this.#counters.acksReceived++;
    else if (outcome === 'response') this.#counters.responsesReceived++;
    else this.#counters.repliesDropped++;
  }

  /** serf handleRelay: pass the inner reply on to the asker, if it is a member we hold at that address. */
  #onRelay(destination: QueryDestination, inner: Uint8Array): void {
    const host = this.#host;
    const reply = inner.length <= this.#config.queryResponseSizeLimit ? this.#wire!.read(inner, undefined) : undefined;
    if (reply?.kind !== 'response') {
      this.#counters.relaysRefused++;
      return;
    }
    if (destination.name === host.name) {
      if (destination.address !== host.address) this.#counters.relaysRefused++;
      else this.#onReply(reply.response);
      return;
    }
    const target = host.member(destination.name);
    if (target === undefined || target.address !== destination.address || isDown(target.state)) {
      this.#counters.relaysRefused++;
      return;
    }
    this.#counters.relaysForwarded++;
    this.#guard(() => host.send(target.name, inner));
  }

  #askerHeld(query: QueryRequest): boolean {
    const asker = this.#host.member(query.sourceName);
    return asker !== undefined && asker.address === query.sourceAddress && !isDown(asker.state);
  }

  #tagsOf(meta: Uint8Array): ReadonlyMap<string, string> | Readonly<Record<string, string>> {
    const tagsOf = this.#wire?.tagsOf;
    return tagsOf === undefined ? {} : safely(() => tagsOf(meta), {});
  }

  /** Run a handler in one of the bounded slots; the slot is freed when it settles or at the deadline. */
  #run(handler: QueryHandler, incoming: IncomingQuery, delivery: Delivery, slots: Set<() => void>): void {
    if (slots.size >= this.#maxHandlers) {
      this.#counters.dropped.busy++;
      return;
    }
    const timer = this.#host.clock.timer(() => release());
    const release = () => {
      timer.cancel();
      slots.delete(release);
    };
    slots.add(release);
    timer.arm(delivery.deadline);
    const answer = (value: unknown) => {
      const held = slots.has(release);
      release();
      if (value === undefined || delivery.responded || this.#closed) return;
      if (!held) {
        // The deadline passed while the handler ran.
        this.#counters.responsesUnsent++;
        return;
      }
      try {
        // Past the deadline or too big: the handler's answer is unsent, nothing went wrong here.
        if (this.#sendResponse(delivery, responseBytes(value)) !== undefined) this.#counters.responsesUnsent++;
      } catch (error) {
        this.#counters.responsesUnsent++;
        this.#host.contained(error);
      }
    };
    const failed = (error: unknown) => {
      release();
      this.#counters.handlerErrors++;
      this.#host.contained(error);
    };
    let result: ReturnType<QueryHandler>;
    try {
      result = handler(incoming);
    } catch (error) {
      failed(error);
      return;
    }
    if (isThenable(result)) result.then(answer, failed);
    else answer(result);
  }

  #guard(action: () => void): void {
    try {
      action();
    } catch (error) {
      this.#host.contained(error);
    }
  }
}

/** serf Query: the node filter first, then one filter per tag. */
function queryFilters(options: QueryOptions): QueryFilter[] {
  const filters: QueryFilter[] = [];
  const nodes = options.filterNodes;
  if (nodes !== undefined) {
    if (!Array.isArray(nodes) || nodes.some((n) => typeof n !== 'string')) throw new RangeError('filterNodes must be an array of node names');
    if (nodes.length > 0) filters.push({ kind: 'nodes', names: [...nodes] });
  }
  const tags = options.filterTags;
  if (tags !== undefined) {
    if (typeof tags !== 'object' || tags === null) throw new RangeError('filterTags must map tag names to regular expressions');
    for (const [tag, expr] of Object.entries(tags)) {
      if (typeof expr !== 'string') throw new RangeError(`filterTags['${tag}'] must be a regular expression string`);
      filters.push({ kind: 'tag', tag, expr });
    }
  }
  return filters;
}

/** A response's bytes: a string as UTF-8; a TypeError for anything else. */
function responseBytes(payload: unknown): Uint8Array {
  const bytes = typeof payload === 'string' ? utf8.encode(payload) : payload;
  if (!(bytes instanceof Uint8Array)) throw new TypeError('a response is a Uint8Array or a string');
  return bytes;
}

function destinationOf(query: QueryRequest): QueryDestination {
  return { name: query.sourceName, address: query.sourceAddress };
}

function pendingKey(ltime: number, id: number): string {
  return `${ltime}:${id}`;
}

function positiveInteger(name: string, value: number): number {
  if (!(Number.isSafeInteger(value) && value >= 1)) throw new RangeError(`queries.${name} must be a positive integer, got ${value}`);
  return value;
}

function safely<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

/** Run `onAborted` when `signal` aborts; returns a function that stops listening. */
function onAbort(signal: AbortSignal | undefined, onAborted: () => void): () => void {
  if (signal === undefined) return () => {};
  if (signal.aborted) {
    queueMicrotask(onAborted);
    return () => {};
  }
  signal.addEventListener('abort', onAborted, { once: true });
  return () => signal.removeEventListener('abort', onAborted);
}
