import {
  createRng,
  LEAVE_TOKEN,
  SwimCore,
  resumeIncarnation,
  type Counters,
  type Effect,
  type Coordinate,
  type MemberCounts,
  type MemberEventKind,
  type MemberView,
  type PreloadedMember,
  type PresetName,
  type ProtocolRange,
  type Rng,
  type SwimConfig,
  type VivaldiConfig,
  type WireCodec,
} from '@swim/core';
import { ChangeStream, checkKinds } from './changes.js';
import { describeError } from './describe-error.js';
import { realClock, type Clock, type Timer } from './clock.js';
import { TypedEventTarget, type ErrorSite, type MemberEventMap } from './events.js';
import type { StreamResult, Transport } from './transport.js';
import type { JoinResult } from './join-error.js';
import { joinWithRetry, validateJoinOptions, type JoinOptions } from './join-retry.js';
import { MemberMetrics, type MetricsSnapshot, type MetricsSource } from './metrics.js';
import { SnapshotError, parseSnapshot, snapshotOf, snapshotPreload, type MemberSnapshot } from './snapshot.js';
import { QueryService, type QueryHost, type QueryServiceOptions } from './queries/query-service.js';
import type { QueryHandle, QueryHandler, QueryOptions } from './queries/query-types.js';
import { swimQueryWire } from './queries/swim-query-wire.js';

/** Options of a new {@link Member}; only `name` and `transport` are required. */
export interface MemberOptions {
  /** Unique name in the cluster. */
  readonly name: string;
  /**
   * Carries the member's packets and streams; its `address` becomes the member's address. One
   * transport per member: the member listens on it at once and closes it in `close()`.
   */
  readonly transport: Transport;
  /** Defaults to the real clock; the simulator passes a virtual one. */
  readonly clock?: Clock;
  /**
   * Metadata gossiped with this member's alive messages (memberlist NodeMeta). Default empty; at
   * most `metaMaxBytes` (512 B by default) or the constructor throws. Change it with `updateMeta`.
   */
  readonly meta?: Uint8Array;
  /** Config preset (default `lan`) and overrides; `maxPacketBytes` defaults to the transport's and may not exceed it. */
  readonly preset?: PresetName;
  /**
   * Overrides on top of `preset`, validated together (every problem in one error). `fallbackStreamPing`
   * is turned off when the transport has no streams.
   */
  readonly config?: Partial<SwimConfig>;
  /** Seed of the core's randomness; defaults to a random one from `crypto.getRandomValues`. */
  readonly seed?: number;
  /** Randomness of your own (deterministic tests, replays); when given, `seed` is ignored. */
  readonly rng?: Rng;
  /** The wire format (default: the native one); memberlist's comes from @swim/adapter-memberlist. One instance per member. */
  readonly codec?: WireCodec;
  /**
   * The incarnation to start at, from 1 to 2^32 − 1 (default 1). `restore` sets it for you; give
   * one or the other.
   */
  readonly incarnation?: number;
  /**
   * Come back from a {@link MemberSnapshot} taken by `snapshot()` before a restart (Serf's
   * snapshot): the member starts one incarnation above the snapshot's, so that peers holding its
   * previous life dead take its alive as news, and holds the snapshot's members alive
   * (`preload`), minus any at its own new address. It still has to tell them it is back: join
   * {@link snapshotSeeds} unless `snapshot.left` says it left gracefully. A snapshot of another
   * name or a malformed one throws a {@link SnapshotError} listing every problem.
   */
  readonly restore?: MemberSnapshot;
  /**
   * Serf-style queries (`query`, `handleQuery`): their tuning, bounds and wire. With the native
   * codec queries ride on @swim's wire by default; with another codec none is installed until
   * one is (`member.queries.useWire`, as SerfLayer does).
   */
  readonly queries?: QueryServiceOptions;
  /**
   * Overrides of Serf's Vivaldi config for network coordinates (`config.coordinates`, on by
   * default). Leave them alone in a cluster with Serf agents or other members: all must agree.
   */
  readonly vivaldi?: Partial<VivaldiConfig>;
}

/** Options of `Member.changes()`. */
export interface ChangesOptions {
  /** Only these kinds of change (default: every kind). */
  readonly kinds?: readonly MemberEventKind[];
  /** Ends the iterator. */
  readonly signal?: AbortSignal;
}

export { JoinError, NameConflictError, type JoinResult } from './join-error.js';
export type { JoinOptions, RetryOptions, RetryNotice } from './join-retry.js';

/** Options of {@link Member.forceLeave}. */
export interface ForceLeaveOptions {
  /** Forget the member at once rather than at the reap (Serf's `-prune`); default false. */
  readonly prune?: boolean;
}

/** How long `Member.leave()` and `Member.updateMeta()` wait for their announcement to spread. */
export interface WaitOptions {
  /** Give up waiting after this long (the announcement keeps spreading). Default 5 s. */
  readonly timeoutMs?: number;
  /** Rejects the wait with the signal's reason when it aborts (the announcement keeps spreading). */
  readonly signal?: AbortSignal;
}

/** Whether an announcement (leave, new metadata) was fully retransmitted before the wait ended. */
export interface AnnounceResult {
  /**
   * True when the announcement was fully retransmitted (or superseded by a newer one) in time;
   * false when `timeoutMs` ran out first.
   */
  readonly spread: boolean;
}

const asyncDispose: typeof Symbol.asyncDispose = Symbol.asyncDispose ?? (Symbol.for('Symbol.asyncDispose') as typeof Symbol.asyncDispose);

/**
 * A running member: the shell around one {@link @swim/core!SwimCore | SwimCore}. It feeds the core incoming traffic and
 * timer ticks, carries out the effects it returns on the transport, and turns events into
 * `EventTarget` events, an async iterator of changes and promises for join and leave.
 */
export class Member extends TypedEventTarget<MemberEventMap> {
  readonly #core: SwimCore;
  readonly #transport: Transport;
  readonly #clock: Clock;
  readonly #timer: Timer;
  readonly #streamReplies = new Map<number, (bytes: Uint8Array | undefined) => void>();
  readonly #joins = new Map<number, (result: JoinResult) => void>();
  /** What must not outlive the member: joins waiting for the core, timers between join attempts. */
  readonly #onClose = new Set<() => void>();
  readonly #announcements = new Map<string, Array<() => void>>();
  readonly #changeStreams = new Set<ChangeStream>();
  readonly #metrics = new MemberMetrics();
  readonly #queries: QueryService;
  #nextStreamId = 1;
  #nextJoinId = 1;
  #closing: Promise<void> | undefined;
  #errors = 0;
  /** After a tick threw: no tick before this time, whatever deadline the core reports. */
  #retryTickAt: number | undefined;

  constructor(options: MemberOptions) {
    super((error, type) => this.#contained(error, 'listener', type));
    const transport = options.transport;
    const clock = options.clock ?? realClock;
    this.#transport = transport;
    this.#clock = clock;
    const config: Partial<SwimConfig> = {
      maxPacketBytes: transport.maxPacketBytes,
      ...options.config,
      ...(transport.supportsStreams ? {} : { fallbackStreamPing: false }),
    };
    // The core fills packets up to maxPacketBytes; more than the transport carries would be
    // dropped on send (an encrypting transport, for one, carries less than the socket under it).
    if (config.maxPacketBytes !== undefined && config.maxPacketBytes > transport.maxPacketBytes) {
      throw new RangeError(`config.maxPacketBytes ${config.maxPacketBytes} is more than the transport carries (${transport.maxPacketBytes}); leave it unset to use the transport's`);
    }
    const restored = options.restore === undefined ? undefined : restoredSnapshot(options);
    const seed = options.rng === undefined ? (options.seed ?? randomSeed()) : undefined;
    this.#core = new SwimCore({
      name: options.name,
      address: transport.address,
      ...(options.meta === undefined ? {} : { meta: options.meta }),
      ...(options.preset === undefined ? {} : { preset: options.preset }),
      config,
      ...(seed !== undefined ? { seed } : { rng: options.rng! }),
      now: clock.now(),
      ...(options.codec === undefined ? {} : { codec: options.codec }),
      ...(options.vivaldi === undefined ? {} : { vivaldi: options.vivaldi }),
      ...(restored !== undefined ? { incarnation: resumeIncarnation(restored.incarnation) } : options.incarnation === undefined ? {} : { incarnation: options.incarnation }),
    });
    this.#timer = clock.timer(() => this.#onTimer());
    // Queries draw from their own stream, derived from the seed, so that the core's draws stay as
    // they were; a caller's own rng is shared (it is only drawn from when queries are used).
    const queryRng = seed !== undefined ? createRng((createRng(seed).nextUint32() ^ 0x9e37_79b9) >>> 0) : options.rng!;
    const wire = options.queries?.wire ?? (options.codec === undefined || options.codec.protocol !== undefined ? swimQueryWire() : undefined);
    this.#queries = new QueryService(this.#queryHost(), queryRng, { ...options.queries, ...(wire === undefined ? {} : { wire }) });
    this.#metrics.addSource(() => this.#queries.metricFamilies());
    if (restored !== undefined) {
      // Before listening: a snapshot the core refuses (more than maxMembers, say) leaves the transport untouched.
      const members = snapshotPreload(restored).filter((m) => m.address !== transport.address);
      this.#run(this.#core.preload(members, clock.now()));
    }
    transport.listen({
      packet: (from, bytes) => {
        if (this.#closing === undefined) this.#step('packet', () => this.#core.receivePacket(from, bytes, this.#clock.now()));
      },
      stream: (from, bytes, reply) => this.#onStream(from, bytes, reply),
    });
    // A transport whose address changes (Transport.onAddressChange): the member moves with it.
    const unsubscribe = transport.onAddressChange?.((address) => this.#onAddressChange(address));
    if (unsubscribe !== undefined) this.#onClose.add(unsubscribe);
    this.#arm();
  }

  /**
   * Exceptions caught and survived since the member started: each was also dispatched as an
   * `error` event (except those thrown by `error` listeners themselves, which are only counted).
   */
  get errors(): number {
    return this.#errors;
  }

  /** This member's name, unique in the cluster. */
  get name(): string {
    return this.#core.name;
  }

  /**
   * The address peers reach this member at: the transport's (advertise) address, the latest one
   * when the transport's changed ({@link Transport.onAddressChange}).
   */
  get address(): string {
    return this.#core.address;
  }

  /**
   * This member's incarnation number: 1 at start, raised each time it refutes a suspicion or death
   * claim about itself and at each `updateMeta` (SWIM paper, section 4.2).
   */
  get incarnation(): number {
    return this.#core.incarnation;
  }

  /** Local health score, 0 = healthy (Lifeguard). */
  get healthScore(): number {
    return this.#core.healthScore;
  }

  /**
   * The version of @swim's wire protocol this member writes: the newest every live member it
   * knows speaks (docs/compatibility.md). Undefined with a codec of another wire (memberlist's).
   */
  get protocolVersion(): number | undefined {
    return this.#core.protocolVersion;
  }

  /** The protocol versions member `name` announced; undefined while it has announced none (a member of 0.1.0 never does). */
  protocolOf(name: string): ProtocolRange | undefined {
    return this.#core.protocolOf(name);
  }

  /**
   * The next reconnect tick (Serf reconnect: each tick push-pulls one failed member with
   * probability failed / alive): in how many ms it is due and how many failed members it may try.
   * Undefined when reconnects are off (`reconnectIntervalMs` 0, memberlist's behaviour).
   */
  nextReconnect():
    | {
        /** Milliseconds until the tick is due (0 when it is already due). */
        readonly inMs: number;
        /** Dead members (not left ones) that died less than `reconnectTimeoutMs` ago, still held or already reaped. */
        readonly candidates: number;
      }
    | undefined {
    const schedule = this.#core.reconnectSchedule();
    if (schedule === undefined) return undefined;
    return { inMs: Math.max(0, schedule.at - this.#clock.now()), candidates: schedule.candidates };
  }

  /**
   * This member's Vivaldi network coordinate (docs/design.md, "Network coordinates"), learnt from
   * the RTTs of its direct probes; undefined when `config.coordinates` is off. Frozen.
   */
  coordinate(): Coordinate | undefined {
    return this.#core.coordinate();
  }

  /**
   * Member `name`'s coordinate as it last sent it in a direct ack to our probes (Serf's coordinate
   * cache); ours for our own name; undefined when it has sent none we accepted.
   */
  coordinateOf(name: string): Coordinate | undefined {
    return this.#core.coordinateOf(name);
  }

  /**
   * The round trip time to member `name` (or between `name` and `other`) that the coordinates
   * predict, in ms (Serf's DistanceTo, what `serf rtt` prints); undefined when either has no
   * coordinate.
   */
  estimateRtt(name: string, other?: string): number | undefined {
    return other === undefined ? this.#core.estimateRtt(name) : this.#core.estimateRtt(name, other);
  }

  /** A copy of the core's counters since the member started (probes, packets, bytes, refutations...). */
  get counters(): Readonly<Counters> {
    return this.#core.counters;
  }

  /**
   * Counters and gauges for exporters (@swim/adapter-prometheus, @swim/adapter-opentelemetry):
   * members by state, health, traffic, probes by result, dead verdicts by cause, and the families
   * of every added source. Built when called; cheap enough for every scrape.
   */
  metrics(): MetricsSnapshot {
    const core = this.#core;
    return this.#metrics.snapshot({
      counters: core.counters,
      memberCounts: core.memberCounts(),
      healthScore: core.healthScore,
      incarnation: core.incarnation,
      protocolVersion: core.protocolVersion,
      coordinateError: core.coordinate()?.error,
      queuedBroadcasts: core.queuedBroadcasts,
      containedErrors: this.#errors,
    });
  }

  /**
   * Add `source`'s families (a transport's drops, an encryption wrapper's decrypt failures) to every
   * `metrics()` snapshot; returns a function that removes it.
   */
  addMetricsSource(source: MetricsSource): () => void {
    return this.#metrics.addSource(source);
  }

  /** The configuration in force: the preset with `MemberOptions.config` applied and validated. */
  get config(): SwimConfig {
    return this.#core.config;
  }

  /** Alive and suspect members, ourselves included. */
  members(): MemberView[] {
    return this.#core.members();
  }

  /** How many members are held in each state, this one and unreaped dead/left ones included, without a view per member. */
  memberCounts(): MemberCounts {
    return this.#core.memberCounts();
  }

  /** Every member held, dead and left ones not yet reaped included. */
  allMembers(): MemberView[] {
    return this.#core.allMembers();
  }

  /** The member of that name in any state (ourselves included, dead and left ones until reaped), or undefined. */
  member(name: string): MemberView | undefined {
    return this.#core.member(name);
  }

  /**
   * Join the cluster through seed addresses; rejects with {@link JoinError} if none answered, with
   * {@link NameConflictError} (never retried) if a seed's cluster has a member of our name elsewhere.
   * When the transport resolves names, every seed is resolved at every attempt and every address
   * tried. `retry` keeps trying every `intervalMs` until a seed answers or `max` attempts were made
   * ({@link JoinOptions}); `signal` aborts at any point. Invalid retry options throw a RangeError.
   */
  join(seeds: readonly string[], options: JoinOptions = {}): Promise<JoinResult> {
    this.#assertOpen();
    validateJoinOptions(options);
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    const transport = this.#transport;
    return joinWithRetry(seeds, options, {
      name: this.name,
      address: this.address,
      resolve: transport.resolve === undefined ? undefined : (address) => transport.resolve!(address),
      attempt: (addresses) => this.#joinOnce(addresses),
      sleep: (ms, signal) => this.#sleep(ms, signal),
    });
  }

  /** One join through `addresses` (the core's push-pull with each); settles with its result whatever it is. */
  #joinOnce(addresses: readonly string[]): Promise<JoinResult> {
    if (this.#closing !== undefined) return Promise.reject(new Error(`member ${this.name} is closed`));
    const joinId = this.#nextJoinId++;
    return new Promise<JoinResult>((resolve, reject) => {
      const closed = () => reject(new Error(`member ${this.name} closed during the join`));
      this.#onClose.add(closed);
      this.#joins.set(joinId, (result) => {
        this.#onClose.delete(closed);
        resolve(result);
      });
      this.#run(this.#core.join(addresses, joinId, this.#clock.now()));
    });
  }

  /**
   * Wait `ms` on the member's clock (between join attempts); rejects if the member closes or
   * `signal` aborts first, and then cancels its timer: a real timer would keep a process alive.
   */
  #sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.#closing !== undefined) return Promise.reject(new Error(`member ${this.name} is closed`));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const stop = () => {
        timer.cancel();
        this.#onClose.delete(closed);
        stopAbort();
      };
      const timer = this.#clock.timer(() => {
        stop();
        resolve();
      });
      const closed = () => {
        stop();
        reject(new Error(`member ${this.name} closed while waiting to retry the join`));
      };
      const stopAbort = onAbort(signal, (reason) => {
        stop();
        reject(reason);
      });
      this.#onClose.add(closed);
      timer.arm(this.#clock.now() + ms);
    });
  }

  /**
   * Hold `members` alive from now on without gossiping them: members of a cluster that formed
   * before this one started (the simulator's pre-formed clusters, a member list kept across a
   * restart). A `join` event fires for each. It tells no one about this member, which must still
   * join a cluster that does not hold it; ourselves and names already held are skipped. Throws a
   * RangeError listing every problem (bad names, addresses, incarnations, meta, duplicates, more
   * than maxMembers) before it changes anything.
   */
  preload(members: readonly PreloadedMember[]): void {
    this.#assertOpen();
    this.#run(this.#core.preload(members, this.#clock.now()));
  }

  /**
   * What this member needs to come back after a restart: its incarnation, the members it holds
   * alive or suspect, and whether it left (Serf's snapshot). Plain JSON-serialisable data; save it
   * whenever it changes (a `change` event, an incarnation change) and give it back as
   * `MemberOptions.restore`. Works after `close()` too.
   */
  snapshot(): MemberSnapshot {
    const core = this.#core;
    return snapshotOf(core.member(core.name)!, core.allMembers());
  }

  /**
   * Announce a graceful leave and wait (bounded) until it has been fully retransmitted, as
   * memberlist Leave does. The member keeps answering probes until `close()`.
   */
  leave(options: WaitOptions = {}): Promise<AnnounceResult> {
    this.#assertOpen();
    const done = this.#waitFor(LEAVE_TOKEN, options);
    this.#run(this.#core.leave(this.#clock.now()));
    return done;
  }

  /**
   * Mark the failed member `name` left, so that no member reconnects to it (Serf RemoveFailedNode,
   * `serf force-leave`): a member we hold dead becomes left (a `left` event here and on every member
   * the leave reaches) and `prune` forgets it at once, as Serf's `-prune`. Returns true when the
   * call changed something: a failed member marked left, or with `prune` a dead or left member
   * forgotten. Returns false and changes nothing for a member alive or suspect to us (it is not
   * failed: Serf's target refutes the leave) and for a name we do not hold, where Serf's RPC
   * returns no error either. Throws a RangeError for an empty name, and once closed.
   */
  forceLeave(name: string, options: ForceLeaveOptions = {}): boolean {
    this.#assertOpen();
    if (typeof name !== 'string' || name.length === 0) throw new RangeError('forceLeave: name must be a non-empty string');
    const prune = options.prune ?? false;
    const target = this.#core.forceLeaveTarget(name);
    if (target === 'unknown') return false;
    // Run for `up` too: the core counts the ignored force-leave.
    this.#run(this.#core.forceLeave(name, { prune }, this.#clock.now()));
    return target === 'failed' || (target === 'left' && prune);
  }

  /** Gossip new metadata under a higher incarnation and wait (bounded) until it has spread. */
  updateMeta(meta: Uint8Array, options: WaitOptions = {}): Promise<AnnounceResult> {
    this.#assertOpen();
    const done = this.#waitFor(`meta:${this.#core.incarnation + 1}`, options);
    this.#run(this.#core.updateMeta(meta, this.#clock.now()));
    return done;
  }

  /**
   * Spread `payload` to every member; a newer broadcast under the same key replaces it. Keys
   * starting with `swim:query:` are reserved for queries (a RangeError).
   */
  broadcast(key: string, payload: Uint8Array): void {
    this.#assertOpen();
    const refused = this.#queries.refusal(payload, key);
    if (refused !== undefined) throw new RangeError(refused);
    this.#run(this.#core.broadcast(key, payload, this.#clock.now()));
  }

  /**
   * Send `payload` to one member: one packet, or a stream when `reliable`. Payloads starting with
   * the byte 0xC1 (never valid msgpack nor UTF-8) are reserved for query replies (a RangeError).
   */
  send(to: string, payload: Uint8Array, options: { readonly reliable?: boolean } = {}): void {
    this.#assertOpen();
    const refused = this.#queries.refusal(payload, undefined);
    if (refused !== undefined) throw new RangeError(refused);
    this.#run(this.#core.sendUser(to, payload, options.reliable ?? false, this.#clock.now()));
  }

  /**
   * Ask the cluster `name` (serf Serf.Query): the query is gossiped to every member; those its
   * filters select ack it (when `requestAck`) and answer it through their handlers. The handle
   * iterates acks and responses until the deadline. This member handles its own query first.
   * Throws a RangeError for bad options, a `_serf_` name (except `_serf_ping` without payload), a
   * query over `querySizeLimit` encoded, or a member with no query wire; an Error when
   * `maxPendingQueries` queries are collecting already.
   */
  query(name: string, payload?: Uint8Array, options?: QueryOptions): QueryHandle {
    this.#assertOpen();
    return this.#queries.query(name, payload, options);
  }

  /**
   * Answer the queries named `name` (`'*'`: every query without a handler of its own) that reach
   * this member: what `handler` returns (bytes, or a string as UTF-8) is the response; undefined
   * sends none. Returns a function that removes the handler. A handler that throws is contained
   * (an `error` event); one still running at the query's deadline frees its slot and its answer is dropped.
   */
  handleQuery(name: string, handler: QueryHandler): () => void {
    return this.#queries.handle(name, handler);
  }

  /** The query service: counters, the wire in use (`useWire`), Serf's internal queries (`handleInternal`, `queryInternal`). */
  get queries(): QueryService {
    return this.#queries;
  }

  /** Application state shared with peers in every push-pull (memberlist Delegate.LocalState). */
  setUserState(state: Uint8Array): void {
    this.#assertOpen();
    this.#run(this.#core.step({ type: 'set-user-state', state }, this.#clock.now()));
  }

  /**
   * Membership changes as an async iterator, until `signal` aborts or the member closes. A slow
   * consumer gets the latest change per member rather than an ever-growing backlog. `kinds` keeps
   * only those kinds of change (an unknown kind throws a RangeError naming it).
   */
  changes(options: ChangesOptions = {}): AsyncIterableIterator<import('./events.js').MembershipChange> {
    const kinds = options.kinds === undefined ? undefined : checkKinds(options.kinds);
    const stream = new ChangeStream(options.signal, (s) => this.#changeStreams.delete(s), kinds);
    if (this.#closing === undefined) this.#changeStreams.add(stream);
    else stream.end();
    return stream;
  }

  /** Stop at once, without a leave message (memberlist Shutdown). Idempotent. */
  close(): Promise<void> {
    if (this.#closing === undefined) {
      // Mark closed first: a transport may complete pending requests while closing.
      let settle!: (closed: Promise<void>) => void;
      this.#closing = new Promise<void>((resolve) => {
        settle = resolve;
      });
      this.#timer.cancel();
      this.#guard('effect', () => this.#queries.close());
      for (const stop of [...this.#onClose]) stop();
      this.#onClose.clear();
      for (const stream of [...this.#changeStreams]) stream.end();
      for (const reply of this.#streamReplies.values()) this.#guard('effect', () => reply(undefined));
      this.#streamReplies.clear();
      settle(this.#transport.close());
    }
    return this.#closing;
  }

  /** `close()`, for `await using member = new Member(...)`. */
  [asyncDispose](): Promise<void> {
    return this.close();
  }

  /** What the query service may do with this member. */
  #queryHost(): QueryHost {
    const core = this.#core;
    return {
      name: core.name,
      // Read at each use: a move changes it.
      get address() {
        return core.address;
      },
      clock: this.#clock,
      gossipIntervalMs: () => core.config.gossipIntervalMs,
      self: () => core.member(core.name),
      member: (name) => core.member(name),
      allMembers: () => core.allMembers(),
      liveMembers: () => {
        const counts = core.memberCounts();
        return counts.alive + counts.suspect;
      },
      broadcast: (key, bytes) => this.#run(core.broadcast(key, bytes, this.#clock.now())),
      send: (to, bytes) => this.#run(core.sendUser(to, bytes, false, this.#clock.now())),
      dispatchQuery: (query) => this.dispatch('query', query),
      contained: (error) => this.#contained(error, 'effect'),
    };
  }

  /** The transport's address changed: move there (the core's `move` input), unless closed or left. */
  #onAddressChange(address: string): void {
    if (this.#closing !== undefined) return;
    this.#step('move', () => this.#core.move(address, this.#clock.now()));
  }

  #assertOpen(): void {
    if (this.#closing !== undefined) throw new Error(`member ${this.name} is closed`);
  }

  #waitFor(token: string, options: WaitOptions): Promise<AnnounceResult> {
    return new Promise<AnnounceResult>((resolve, reject) => {
      let timer: Timer | undefined;
      const finish = (spread: boolean) => {
        timer?.cancel();
        stopAbort();
        const waiters = this.#announcements.get(token);
        waiters?.splice(waiters.indexOf(onFinished) >>> 0, 1);
        resolve({ spread });
      };
      const onFinished = () => finish(true);
      const stopAbort = onAbort(options.signal, (reason) => {
        timer?.cancel();
        reject(reason);
      });
      const list = this.#announcements.get(token) ?? [];
      list.push(onFinished);
      this.#announcements.set(token, list);
      timer = this.#clock.timer(() => finish(false));
      timer.arm(this.#clock.now() + (options.timeoutMs ?? 5_000));
    });
  }

  /** The timer fired: tick the core. A tick that throws is retried no sooner than a probe interval later. */
  #onTimer(): void {
    if (this.#closing !== undefined) return;
    this.#retryTickAt = undefined;
    if (!this.#step('timer', () => this.#core.tick(this.#clock.now()))) {
      // The deadline that threw is still due: re-arming at it would spin the event loop.
      this.#retryTickAt = this.#clock.now() + this.#core.config.probeIntervalMs;
      this.#arm();
    }
  }

  #onStream(from: string, bytes: Uint8Array, reply: (bytes: Uint8Array | undefined) => void): void {
    if (this.#closing !== undefined) return this.#guard('effect', () => reply(undefined));
    const streamId = this.#nextStreamId++;
    this.#streamReplies.set(streamId, reply);
    if (this.#step('stream', () => this.#core.receiveStream(streamId, from, bytes, this.#clock.now()))) return;
    // The core threw before answering: close the stream rather than leave the peer waiting.
    const pending = this.#streamReplies.get(streamId);
    this.#streamReplies.delete(streamId);
    if (pending !== undefined) this.#guard('effect', () => pending(undefined));
  }

  /**
   * Feed the core one input from a callback (timer, transport) and carry out its effects. What the
   * core throws is contained and reported as `where`; returns false when it threw.
   */
  #step(where: ErrorSite, input: () => Effect[]): boolean {
    let effects: Effect[];
    try {
      effects = input();
    } catch (error) {
      this.#contained(error, where);
      this.#arm();
      return false;
    }
    this.#run(effects);
    return true;
  }

  /** Carry out every effect, each on its own: one that throws does not stop those after it. */
  #run(effects: Effect[]): void {
    for (const effect of effects) this.#guard('effect', () => this.#execute(effect));
    this.#arm();
  }

  /** Run `action`, containing what it throws. */
  #guard(where: ErrorSite, action: () => void): void {
    try {
      action();
    } catch (error) {
      this.#contained(error, where);
    }
  }

  /**
   * Count an exception the member survives and dispatch it as an `error` event. What an `error`
   * listener throws is only counted: reporting it would call the same listener again.
   */
  #contained(error: unknown, where: ErrorSite, eventType?: string): void {
    this.#errors++;
    if (eventType !== 'error') this.dispatch('error', { error, where });
  }

  /** Keep the one timer armed at the core's next deadline (not before a retry after a failed tick). */
  #arm(): void {
    if (this.#closing !== undefined) return;
    let next: number | undefined;
    try {
      next = this.#core.nextDeadline();
    } catch (error) {
      this.#contained(error, 'timer');
      next = this.#clock.now() + this.#core.config.probeIntervalMs;
    }
    const notBefore = this.#retryTickAt;
    if (notBefore !== undefined) next = Math.max(next ?? notBefore, notBefore);
    if (next === undefined) this.#timer.cancel();
    else this.#timer.arm(next);
  }

  #execute(effect: Effect): void {
    this.#metrics.observe(effect);
    switch (effect.type) {
      case 'send-packet':
        this.#transport.sendPacket(effect.to, effect.bytes);
        return;
      case 'stream-request': {
        const { requestId, expectReply } = effect;
        let finished = false;
        const finish = (result: StreamResult): void => {
          if (finished) return;
          finished = true;
          if (this.#closing !== undefined || !expectReply) return;
          this.#step('stream-result', () =>
            result.ok
              ? this.#core.step({ type: 'stream-response', requestId, bytes: result.bytes ?? new Uint8Array(0) }, this.#clock.now())
              : this.#core.step({ type: 'stream-failed', requestId, reason: result.reason }, this.#clock.now()),
          );
        };
        try {
          this.#transport.request(effect.to, effect.bytes, { timeoutMs: effect.timeoutMs, expectReply }, finish);
        } catch (error) {
          // The core waits for every request's result: a transport that threw will not send one.
          this.#contained(error, 'effect');
          queueMicrotask(() => finish({ ok: false, reason: `transport threw: ${describeError(error)}` }));
        }
        return;
      }
      case 'stream-reply': {
        const reply = this.#streamReplies.get(effect.streamId);
        this.#streamReplies.delete(effect.streamId);
        reply?.(effect.bytes);
        return;
      }
      case 'member': {
        const { type: _, ...change } = effect;
        for (const stream of this.#changeStreams) stream.push(change);
        this.dispatch('change', change);
        this.dispatch(effect.event, change);
        return;
      }
      case 'join-finished': {
        const resolve = this.#joins.get(effect.joinId);
        this.#joins.delete(effect.joinId);
        resolve?.({ contacted: effect.contacted, failed: effect.failed });
        return;
      }
      case 'broadcast-finished': {
        const waiters = this.#announcements.get(effect.token);
        this.#announcements.delete(effect.token);
        waiters?.forEach((w) => w());
        return;
      }
      case 'user-message':
        // Query traffic is the query service's alone.
        if (this.#queries.intercept(effect.payload, effect.key)) return;
        if (this.isListened('message')) this.dispatch('message', { from: effect.from, payload: effect.payload, key: effect.key });
        return;
      default: {
        // Events that are only reported: probe, health, user-state, conflict, decode-error.
        // A member reports every probe; copying the effect without its type (an object rest) is
        // skipped when nobody listens.
        const event = REPORTED_EVENTS[effect.type];
        if (!this.isListened(event)) return;
        const { type, ...detail } = effect;
        this.dispatch(event, detail as MemberEventMap[(typeof REPORTED_EVENTS)[typeof type]]);
        return;
      }
    }
  }
}

/** The event dispatched for each effect that is only reported to listeners. */
const REPORTED_EVENTS = {
  probe: 'probe',
  health: 'health',
  'user-state': 'user-state',
  conflict: 'conflict',
  'decode-error': 'decode-error',
} as const satisfies Record<string, keyof MemberEventMap>;

/** Run `onAborted` when `signal` aborts; returns a function that stops listening. */
function onAbort(signal: AbortSignal | undefined, onAborted: (reason: unknown) => void): () => void {
  if (signal === undefined) return () => {};
  if (signal.aborted) {
    onAborted(signal.reason);
    return () => {};
  }
  const listener = () => onAborted(signal.reason);
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

/** `options.restore`, checked against the other options; throws a {@link SnapshotError} listing every problem. */
function restoredSnapshot(options: MemberOptions): MemberSnapshot {
  const conflict = options.incarnation === undefined ? [] : ["give incarnation or restore, not both: restore starts above the snapshot's incarnation"];
  let snapshot: MemberSnapshot;
  try {
    snapshot = parseSnapshot(options.restore, { name: options.name });
  } catch (error) {
    throw error instanceof SnapshotError ? new SnapshotError([...error.problems, ...conflict]) : error;
  }
  if (conflict.length > 0) throw new SnapshotError(conflict);
  return snapshot;
}

function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]!;
}
