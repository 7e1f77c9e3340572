import { LamportClock } from '@swim/core';
import { realClock, TypedEventTarget, type AnnounceResult, type Clock, type ForceLeaveOptions, type IncomingQuery, type JoinOptions, type JoinResult, type Member, type WaitOptions } from '@swim/runtime';
import { SERF_VSN } from '../codec/vsn.js';
import { encodeConflictResponse, SERF_INTERNAL_QUERY, SERF_MEMBER_STATUS } from './serf-internal-messages.js';
import { collectKeyResponses, keyRequestPayload, type SerfKeyReport } from './serf-key-manager.js';
import { answerKeyQuery, KEY_QUERY_NAMES, type SerfKeyOp, type SerfKeyring } from './serf-keyring.js';
import { encodeSerfQueryResponse } from './serf-query-messages.js';
import { serfQueryWire } from './serf-query-wire.js';
import { decodeTags } from './tags.js';
import { encodeJoinIntent, encodeLeaveIntent, encodeUserEvent, readPushPullClocks, readSerfMessage } from './serf-messages.js';

/** Options of the {@link SerfLayer} constructor. */
export interface SerfLayerOptions {
  /**
   * How long the leave intent spreads before memberlist's leave (the dead message from ourselves)
   * follows it; default two gossip intervals. Serf itself sends the dead about 0.2 s after its intent.
   */
  readonly leaveIntentLeadMs?: number;
  /** The member's clock (the simulator passes its virtual one); default the real clock. */
  readonly clock?: Clock;
  /**
   * Lamport times to start from: the last ones a previous life of this member saw, kept in a
   * snapshot ({@link SerfLayer.clocks}). Each clock witnesses its time, as Serf does with its
   * snapshot's (serf Create), so that what this member stamps is newer than anything it sent or
   * saw before; old user events and queries are not taken as new. Non-negative safe integers.
   */
  readonly clocks?: SerfClocks;
  /**
   * The keyring Serf's key queries (`serf keys`, {@link SerfLayer.keyCommand}) list and change;
   * undefined when the member runs without encryption (every key query is then answered with
   * Serf's "encryption not enabled" failure).
   */
  readonly keyring?: SerfKeyring;
  /** Called with a warning a member sent along with its success (a truncated key list), as Serf logs it. */
  readonly onKeyWarning?: (message: string) => void;
}

/** Serf's three Lamport clocks (serf Serf.clock, eventClock, queryClock), as its snapshot keeps them. */
export interface SerfClocks {
  /** The membership clock: join and leave intents (serf clock). */
  readonly clock: number;
  /** The user event clock (serf eventClock). */
  readonly eventClock: number;
  /** The query clock (serf queryClock). */
  readonly queryClock: number;
}

/** A Serf user event (`serf event NAME PAYLOAD`), received or sent. */
export interface SerfUserEvent {
  /** The event's name (serf messageUserEvent Name). */
  readonly name: string;
  /** The event's payload, as sent (serf messageUserEvent Payload). */
  readonly payload: Uint8Array;
  /** Serf's user event Lamport time the event was stamped with (serf messageUserEvent LTime). */
  readonly ltime: number;
  /** Serf's CC flag: agents may deliver only the newest event of this name from a burst. */
  readonly coalesce: boolean;
}

/** The events a {@link SerfLayer} dispatches, by name. */
export interface SerfLayerEventMap {
  /** A Serf user event from another member, the first time it arrives; copies, events too old and our own are not dispatched. */
  'user-event': SerfUserEvent;
}

/** Serf messages seen, by kind. */
export interface SerfCounters {
  /** Leave intents new to us: handled, and passed on as Serf does. */
  leaveIntents: number;
  /** Join intents new to us: passed on as Serf does. */
  joinIntents: number;
  /** Leave intents about ourselves while we are not leaving (a force-leave of us): refuted with a join intent, as Serf does. */
  refutedLeaveIntents: number;
  /** User events new to us: dispatched as `user-event` and passed on as Serf does. */
  userEvents: number;
  /** Copies of intents and events we already had (gossip delivers most things several times), or too old. */
  duplicates: number;
  /** Serf queries seen here rather than by the query service (none while its Serf wire is installed). */
  queries: number;
  /** Serf's internal queries answered: `_serf_ping` (by its ack), `_serf_conflict` and the key queries. */
  internalQueries: number;
  /** Other Serf messages (query responses, relays) and user messages that are no Serf message. */
  other: number;
}

/**
 * What makes a `@swim` member on memberlist's wire a good citizen of a Serf cluster, beside the
 * codec and the tags: Serf's Lamport clocks, read from the intents and push-pull state it sends;
 * a join intent after joining and a leave intent before leaving, so that Serf lists a graceful
 * leave as "left" and not "failed" (serf Leave, handleNodeLeaveIntent); Serf's user events
 * both ways (`serf event`); and Serf's queries: the layer installs Serf's query wire on the
 * member's query service (`member.query`, `member.handleQuery` then speak Serf's), answers Serf's
 * internal queries (`_serf_ping`, `_serf_conflict`, the key queries of `serf keys`) and sends key
 * commands as Serf's KeyManager does ({@link keyCommand}).
 */
export class SerfLayer extends TypedEventTarget<SerfLayerEventMap> {
  /** Serf messages seen since the layer was made, by kind (live: read it, do not change it). */
  readonly counters: SerfCounters = { leaveIntents: 0, joinIntents: 0, refutedLeaveIntents: 0, userEvents: 0, duplicates: 0, queries: 0, internalQueries: 0, other: 0 };
  readonly #member: Member;
  readonly #clock: Clock;
  readonly #leaveIntentLeadMs: number;
  /** Serf's membership clock (intents) and user event clock. */
  readonly #membershipTime = new LamportClock();
  readonly #eventTime = new LamportClock();
  /** Serf's query clock: the query service's (one clock for queries sent, received and push-pulled). */
  readonly #queryTime: LamportClock;
  readonly #keyring: SerfKeyring | undefined;
  readonly #onKeyWarning: ((message: string) => void) | undefined;
  /** Newest intent time per node (serf recentIntents), bounded, oldest dropped first. */
  readonly #intentTimes = new Map<string, number>();
  /** User events seen (serf eventBuffer), by time, name and payload; bounded. */
  readonly #eventsSeen = new Map<string, number>();
  readonly #stop: Array<() => void>;
  #leaving: Promise<AnnounceResult> | undefined;

  constructor(member: Member, options: SerfLayerOptions = {}) {
    super();
    const lead = options.leaveIntentLeadMs ?? 2 * member.config.gossipIntervalMs;
    if (!Number.isFinite(lead) || lead < 0) throw new RangeError(`leaveIntentLeadMs must be a non-negative number of milliseconds, got ${lead}`);
    this.#member = member;
    this.#clock = options.clock ?? realClock;
    this.#leaveIntentLeadMs = lead;
    this.#keyring = options.keyring;
    this.#onKeyWarning = options.onKeyWarning;
    // Queries speak Serf's wire from now on; the query service keeps the query clock.
    member.queries.useWire(serfQueryWire);
    this.#queryTime = member.queries.clock;
    if (options.clocks !== undefined) {
      const problems = clocksProblems(options.clocks);
      if (problems.length > 0) throw new RangeError(`clocks: ${problems.join('; ')}`);
      this.#membershipTime.witness(options.clocks.clock);
      this.#eventTime.witness(options.clocks.eventClock);
      this.#queryTime.witness(options.clocks.queryClock);
    }
    this.#stop = [
      member.on('message', ({ payload, key }) => {
        // memberlist user messages carry no key (a key is a native @swim broadcast: not Serf's).
        if (key === undefined) this.#onSerfBytes(payload);
      }),
      member.on('user-state', ({ state }) => {
        const clocks = readPushPullClocks(state);
        if (clocks === undefined) return;
        this.#membershipTime.witness(clocks.ltime);
        this.#eventTime.witness(clocks.eventLTime);
        this.#queryTime.witness(clocks.queryLTime);
      }),
      ...this.#answerInternalQueries(member),
      () => {
        if (member.queries.wire === serfQueryWire) member.queries.useWire(undefined);
      },
    ];
  }

  /**
   * Run Serf's key command `op` on the whole cluster (serf keymanager.go handleKeyRequest): the
   * internal key query with Serf's defaults (no ack, the default timeout, no relays), answered by
   * every member, this one included; the answers counted as Serf's KeyManager counts them. Ends
   * as soon as every live member answered, else at the timeout.
   * @param key the key in standard base64 (install, use, remove); a RangeError when it is not base64.
   */
  async keyCommand(op: SerfKeyOp, key?: string): Promise<SerfKeyReport> {
    if (typeof op !== 'string' || !Object.hasOwn(KEY_QUERY_NAMES, op)) throw new RangeError(`a key command is one of ${Object.keys(KEY_QUERY_NAMES).join(', ')}, got ${String(op)}`);
    const payload = keyRequestPayload(op, key);
    const counts = this.#member.memberCounts();
    // memberlist NumMembers when the query starts: alive and suspect members, ourselves included.
    const numNodes = counts.alive + counts.suspect;
    const handle = this.#member.queries.queryInternal(KEY_QUERY_NAMES[op], payload);
    return collectKeyResponses(op, handle, numNodes, this.#onKeyWarning);
  }

  /** serf internal_query.go serfQueries: `_serf_ping` is answered by its ack alone; the others here. */
  #answerInternalQueries(member: Member): Array<() => void> {
    const queries = member.queries;
    const count = () => void this.counters.internalQueries++;
    const stops = [
      queries.handleInternal(SERF_INTERNAL_QUERY.ping, () => {
        count();
        return undefined;
      }),
      queries.handleInternal(SERF_INTERNAL_QUERY.conflict, (query) => {
        count();
        return this.#conflictAnswer(query);
      }),
    ];
    for (const op of Object.keys(KEY_QUERY_NAMES) as SerfKeyOp[]) {
      stops.push(
        queries.handleInternal(KEY_QUERY_NAMES[op], async (query) => {
          count();
          const limit = queries.config.queryResponseSizeLimit;
          const fits = (payload: Uint8Array) => encodeSerfQueryResponse({ ltime: query.ltime, id: query.id, from: member.name, ack: false, payload }).length <= limit;
          return (await answerKeyQuery(op, query.payload, this.#keyring, fits, limit))?.payload;
        }),
      );
    }
    return stops;
  }

  /**
   * serf handleConflict: the member we hold under the contested name, as Serf describes one (or
   * nil when we hold none); no answer when the name is ours. Peers' Vsn are not kept by the
   * member: the record carries ours (the asker compares addresses only).
   */
  #conflictAnswer(query: IncomingQuery): Uint8Array | undefined {
    const name = new TextDecoder().decode(query.payload);
    if (name === this.#member.name) return undefined;
    const view = this.#member.member(name);
    if (view === undefined) return encodeConflictResponse(undefined);
    const status = view.state === 'dead' ? SERF_MEMBER_STATUS.failed : view.state === 'left' ? SERF_MEMBER_STATUS.left : SERF_MEMBER_STATUS.alive;
    return encodeConflictResponse({ name: view.name, address: view.address, tags: decodeTags(view.meta), status, vsn: SERF_VSN });
  }

  /** Serf's membership Lamport time as we know it. */
  get membershipTime(): number {
    return this.#membershipTime.time();
  }

  /**
   * Serf's three Lamport times as this member knows them now; save them in a snapshot and give
   * them back as {@link SerfLayerOptions.clocks} after a restart.
   */
  get clocks(): SerfClocks {
    return { clock: this.#membershipTime.time(), eventClock: this.#eventTime.time(), queryClock: this.#queryTime.time() };
  }

  /** Join through seeds (with Member.join's retry and resolution), then announce the join as Serf does (serf Join broadcasts a join intent). */
  async join(seeds: readonly string[], options: JoinOptions = {}): Promise<JoinResult> {
    const result = await this.#member.join(seeds, options);
    // The push-pull reply taught us Serf's clock: the intent is stamped with its current time (serf broadcastJoin).
    const ltime = this.#membershipTime.time();
    this.#intentTimes.set(this.#member.name, ltime);
    this.#member.broadcast(intentKey(this.#member.name), encodeJoinIntent(ltime, this.#member.name));
    return result;
  }

  /**
   * Leave as a Serf agent does: a leave intent newer than any Lamport time seen, then, once it
   * had time to spread, memberlist's leave (a dead message from ourselves), waited for as
   * {@link Member.leave} does. Called twice, the second call gets the first one's result.
   */
  leave(options: WaitOptions = {}): Promise<AnnounceResult> {
    this.#leaving ??= this.#leave(options);
    return this.#leaving;
  }

  /**
   * Serf's force-leave (serf RemoveFailedNode, `serf force-leave [-prune] NAME`): a leave intent for
   * `name`, stamped with the membership clock's current time as Serf stamps it, goes to the whole
   * cluster, and {@link Member.forceLeave} applies it here. Serf agents that hold the node failed
   * move it to left and stop reconnecting to it (serf handleNodeLeaveIntent); with `prune` they
   * erase it at once, and so do @swim members with this layer. Like Serf, the intent goes out
   * whatever we hold about the node (a member that knows it failed takes it; a live node refutes it
   * with a join intent). Returns {@link Member.forceLeave}'s answer: true when it changed something here.
   */
  forceLeave(name: string, options: ForceLeaveOptions = {}): boolean {
    if (typeof name !== 'string' || name.length === 0) throw new RangeError('forceLeave: name must be a non-empty string');
    const prune = options.prune ?? false;
    const changed = this.#member.forceLeave(name, { prune });
    // serf forceLeave: LTime is clock.Time(), then the clock is incremented.
    const ltime = this.#membershipTime.time();
    stamp(this.#membershipTime, 'leave intent');
    remember(this.#intentTimes, name, ltime, MAX_INTENTS_KEPT);
    this.#member.broadcast(intentKey(name), encodeLeaveIntent(ltime, name, prune));
    return changed;
  }

  /** Send a Serf user event to the cluster (`serf event`); `coalesce` lets Serf keep only the newest of a name. */
  sendEvent(name: string, payload: Uint8Array, options: { readonly coalesce?: boolean } = {}): void {
    const ltime = stamp(this.#eventTime, 'user event');
    const bytes = encodeUserEvent(ltime, name, payload, options.coalesce ?? true);
    if (bytes.length > MAX_USER_EVENT_BYTES) throw new RangeError(`a Serf user event is at most ${MAX_USER_EVENT_BYTES} bytes encoded (serf UserEventSizeLimit), this one is ${bytes.length}`);
    this.#rememberEvent(ltime, name, payload);
    this.#member.broadcast(eventKey(ltime, name), bytes);
  }

  /** Stop listening to the member. */
  close(): void {
    for (const stop of this.#stop.splice(0)) stop();
  }

  async #leave(options: WaitOptions): Promise<AnnounceResult> {
    const member = this.#member;
    const ltime = stamp(this.#membershipTime, 'leave intent');
    this.#intentTimes.set(member.name, ltime);
    member.broadcast(intentKey(member.name), encodeLeaveIntent(ltime, member.name));
    await this.#sleep(this.#leaveIntentLeadMs, options.signal);
    return member.leave(options);
  }

  #sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.#clock.timer(() => {
        signal?.removeEventListener('abort', wake);
        resolve();
      });
      const wake = () => {
        timer.cancel();
        resolve();
      };
      signal?.addEventListener('abort', wake, { once: true });
      timer.arm(this.#clock.now() + ms);
    });
  }

  /**
   * serf handleNodeLeaveIntent on another node's leave intent: a node we hold failed (dead, or reaped
   * and still a reconnect candidate) moves to left, as a `serf force-leave` from a Serf agent wants;
   * with Prune a down node is forgotten at once. A live node's intent is its graceful leave, whose
   * memberlist dead message follows: nothing to do here.
   */
  #onLeaveIntent(node: string, prune: boolean): void {
    const state = this.#member.member(node)?.state;
    if (state === undefined || state === 'dead' || (state === 'left' && prune)) this.#member.forceLeave(node, { prune });
  }

  /**
   * A leave intent about us that we did not send (a force-leave of a live node, or an old one of
   * ours): serf handleNodeLeaveIntent refutes it with a join intent at the current time, and does
   * not pass it on. Once we are leaving, it is true and ignored.
   */
  #refuteLeave(ltime: number): void {
    if (this.#leaving !== undefined) return;
    this.counters.refutedLeaveIntents++;
    const joinTime = this.#membershipTime.time();
    remember(this.#intentTimes, this.#member.name, Math.max(ltime, joinTime), MAX_INTENTS_KEPT);
    this.#member.broadcast(intentKey(this.#member.name), encodeJoinIntent(joinTime, this.#member.name));
  }

  /** False when this event was already seen. */
  #rememberEvent(ltime: number, name: string, payload: Uint8Array): boolean {
    const id = `${ltime}\u0000${name}\u0000${bytesId(payload)}`;
    if (this.#eventsSeen.has(id)) return false;
    remember(this.#eventsSeen, id, ltime, MAX_EVENTS_KEPT);
    return true;
  }

  #onSerfBytes(bytes: Uint8Array): void {
    const message = readSerfMessage(bytes);
    switch (message?.kind) {
      case 'leave':
      case 'join': {
        this.#membershipTime.witness(message.ltime);
        // serf handleNodeJoinIntent / handleNodeLeaveIntent: only an intent newer than the node's last one counts, and is passed on.
        const known = this.#intentTimes.get(message.node);
        if (known !== undefined && message.ltime <= known) {
          this.counters.duplicates++;
          return;
        }
        if (message.kind === 'leave' && message.node === this.#member.name) {
          this.#refuteLeave(message.ltime);
          return;
        }
        remember(this.#intentTimes, message.node, message.ltime, MAX_INTENTS_KEPT);
        this.counters[message.kind === 'leave' ? 'leaveIntents' : 'joinIntents']++;
        this.#member.broadcast(intentKey(message.node), bytes);
        if (message.kind === 'leave') this.#onLeaveIntent(message.node, message.prune);
        return;
      }
      case 'user-event': {
        this.#eventTime.witness(message.ltime);
        // serf handleUserEvent: too old for the event buffer, or already in it, is dropped.
        if (message.ltime + MAX_EVENTS_KEPT < this.#eventTime.time() || !this.#rememberEvent(message.ltime, message.name, message.payload)) {
          this.counters.duplicates++;
          return;
        }
        this.counters.userEvents++;
        this.#member.broadcast(eventKey(message.ltime, message.name), bytes);
        this.dispatch('user-event', { name: message.name, payload: message.payload, ltime: message.ltime, coalesce: message.coalesce });
        return;
      }
      case 'query':
        this.#queryTime.witness(message.ltime);
        this.counters.queries++;
        return;
      default:
        this.counters.other++;
    }
  }
}

/** A new Lamport time from `clock`; a RangeError once it is exhausted (2^53 - 1, core LamportClock). */
function stamp(clock: LamportClock, what: string): number {
  const ltime = clock.increment();
  if (ltime === undefined) throw new RangeError(`cannot stamp a ${what}: the Lamport clock is exhausted`);
  return ltime;
}

/** What is wrong with restored clocks: each must be a non-negative safe integer. */
function clocksProblems(clocks: SerfClocks): string[] {
  if (typeof clocks !== 'object' || clocks === null) return ['must be an object'];
  const problems: string[] = [];
  for (const field of ['clock', 'eventClock', 'queryClock'] as const) {
    const value = clocks[field];
    if (!Number.isSafeInteger(value) || value < 0) problems.push(`${field} must be a non-negative safe integer, got ${String(value)}`);
  }
  return problems;
}

/** serf UserEventSizeLimit: the largest user event Serf sends. */
const MAX_USER_EVENT_BYTES = 512;
/** serf EventBuffer: how many recent user events are remembered (and how far back in Lamport time). */
const MAX_EVENTS_KEPT = 512;
/** Nodes whose latest intent time we keep; past it the oldest is forgotten. */
const MAX_INTENTS_KEPT = 4096;

/** One queue entry per node: a newer intent replaces an older one still being gossiped. */
const intentKey = (node: string) => `serf:intent:${node}`;
const eventKey = (ltime: number, name: string) => `serf:event:${ltime}:${name}`;

/** Set `key` as the newest entry of `map`, dropping the oldest beyond `limit`. */
function remember<V>(map: Map<string, V>, key: string, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value as string);
}

/** A short identity of a payload: its length and FNV-1a hash (events with the same time and name rarely differ). */
function bytesId(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193);
  return `${bytes.length}:${(hash >>> 0).toString(36)}`;
}
