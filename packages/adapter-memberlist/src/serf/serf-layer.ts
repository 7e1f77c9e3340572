import { realClock, TypedEventTarget, type AnnounceResult, type Clock, type JoinResult, type Member, type WaitOptions } from '@swim/runtime';
import { LamportClock } from './lamport-clock.js';
import { encodeJoinIntent, encodeLeaveIntent, encodeUserEvent, readPushPullClocks, readSerfMessage } from './serf-messages.js';

export interface SerfLayerOptions {
  /**
   * How long the leave intent spreads before memberlist's leave (the dead message from ourselves)
   * follows it; default two gossip intervals. Serf itself sends the dead about 0.2 s after its intent.
   */
  readonly leaveIntentLeadMs?: number;
  /** The member's clock (the simulator passes its virtual one); default the real clock. */
  readonly clock?: Clock;
}

/** A Serf user event (`serf event NAME PAYLOAD`), received or sent. */
export interface SerfUserEvent {
  readonly name: string;
  readonly payload: Uint8Array;
  readonly ltime: number;
  readonly coalesce: boolean;
}

export interface SerfLayerEventMap {
  'user-event': SerfUserEvent;
}

/** Serf messages seen, by kind. */
export interface SerfCounters {
  leaveIntents: number;
  joinIntents: number;
  userEvents: number;
  /** Serf queries (`serf query`, key commands): not answered, a member that is not a Serf agent has no handlers. */
  queries: number;
  /** Other Serf messages (query responses, relays) and user messages that are no Serf message. */
  other: number;
}

/**
 * What makes a @swim member on memberlist's wire a good citizen of a Serf cluster, beside the
 * codec and the tags: Serf's Lamport clocks, read from the intents and push-pull state it sends;
 * a join intent after joining and a leave intent before leaving, so that Serf lists a graceful
 * leave as "left" and not "failed" (serf Leave, handleNodeLeaveIntent); and Serf's user events
 * both ways (`serf event`). Queries are counted and not answered.
 */
export class SerfLayer extends TypedEventTarget<SerfLayerEventMap> {
  readonly counters: SerfCounters = { leaveIntents: 0, joinIntents: 0, userEvents: 0, queries: 0, other: 0 };
  readonly #member: Member;
  readonly #clock: Clock;
  readonly #leaveIntentLeadMs: number;
  /** Serf's membership clock (intents) and user event clock. */
  readonly #membershipTime = new LamportClock();
  readonly #eventTime = new LamportClock();
  readonly #stop: Array<() => void>;
  #leaving: Promise<AnnounceResult> | undefined;

  constructor(member: Member, options: SerfLayerOptions = {}) {
    super();
    const lead = options.leaveIntentLeadMs ?? 2 * member.config.gossipIntervalMs;
    if (!Number.isFinite(lead) || lead < 0) throw new RangeError(`leaveIntentLeadMs must be a non-negative number of milliseconds, got ${lead}`);
    this.#member = member;
    this.#clock = options.clock ?? realClock;
    this.#leaveIntentLeadMs = lead;
    this.#stop = [
      member.on('message', ({ payload, key }) => {
        // Our own broadcasts come back only as a key; memberlist user messages carry none.
        if (key === undefined) this.#onSerfBytes(payload);
      }),
      member.on('user-state', ({ state }) => {
        const clocks = readPushPullClocks(state);
        if (clocks === undefined) return;
        this.#membershipTime.witness(clocks.ltime);
        this.#eventTime.witness(clocks.eventLTime);
      }),
    ];
  }

  /** Serf's membership Lamport time as we know it. */
  get membershipTime(): number {
    return this.#membershipTime.time;
  }

  /** Join through seeds, then announce the join as Serf does (serf Join broadcasts a join intent). */
  async join(seeds: readonly string[], options: { readonly signal?: AbortSignal } = {}): Promise<JoinResult> {
    const result = await this.#member.join(seeds, options);
    // The push-pull reply taught us Serf's clock: the intent is stamped with its current time (serf broadcastJoin).
    this.#member.broadcast(`serf:join:${this.#member.name}`, encodeJoinIntent(this.#membershipTime.time, this.#member.name));
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

  /** Send a Serf user event to the cluster (`serf event`); `coalesce` lets Serf keep only the newest of a name. */
  sendEvent(name: string, payload: Uint8Array, options: { readonly coalesce?: boolean } = {}): void {
    const ltime = this.#eventTime.increment();
    this.#member.broadcast(`serf:event:${ltime}:${name}`, encodeUserEvent(ltime, name, payload, options.coalesce ?? true));
  }

  /** Stop listening to the member. */
  close(): void {
    for (const stop of this.#stop.splice(0)) stop();
  }

  async #leave(options: WaitOptions): Promise<AnnounceResult> {
    const member = this.#member;
    member.broadcast(`serf:leave:${member.name}`, encodeLeaveIntent(this.#membershipTime.increment(), member.name));
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

  #onSerfBytes(bytes: Uint8Array): void {
    const message = readSerfMessage(bytes);
    switch (message?.kind) {
      case 'leave':
        this.counters.leaveIntents++;
        this.#membershipTime.witness(message.ltime);
        return;
      case 'join':
        this.counters.joinIntents++;
        this.#membershipTime.witness(message.ltime);
        return;
      case 'user-event':
        this.counters.userEvents++;
        this.#eventTime.witness(message.ltime);
        this.dispatch('user-event', { name: message.name, payload: message.payload, ltime: message.ltime, coalesce: message.coalesce });
        return;
      case 'query':
        this.counters.queries++;
        return;
      default:
        this.counters.other++;
    }
  }
}
