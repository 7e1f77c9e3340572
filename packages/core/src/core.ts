import type { SwimConfig } from './config/config.js';
import type { PresetName } from './config/presets.js';
import { ConfigError, resolveConfig } from './config/validate.js';
import { MAX_NAME_BYTES, PROTOCOL_VERSION, type DecodeLimits, type DecodeResult } from './codec/codec.js';
import { swimCodec, type WireCodec } from './codec/wire-codec.js';
import type { Message } from './codec/messages.js';
import type { ProtocolRange } from './codec/protocol-range.js';
import { zeroCounters, type Counters } from './counters.js';
import type { Effect } from './effects.js';
import type { Input, PreloadedMember } from './inputs.js';
import { isDown, type MemberCounts, type MemberView } from './members/member.js';
import { NO_MEMBER } from './members/member-table.js';
import { EMPTY_BYTES, utf8ByteLength } from './support/bytes.js';
import { createRng, type Rng } from './support/rng.js';
import { AntiEntropy } from './anti-entropy/anti-entropy.js';
import { CoreContext } from './context.js';
import { Gossiper } from './dissemination/gossiper.js';
import { Membership, memberKey } from './members/membership.js';
import { MAX_INCARNATION } from './members/merge.js';
import { Prober } from './probe/prober.js';
import { isLateCall, lateSuspicionGraceMs } from './lifeguard/late-tick.js';
import { HEALTH_DELTA } from './lifeguard/awareness.js';
import { UserMessages } from './dissemination/user-messages.js';
import type { Coordinate } from './coordinates/coordinate.js';
import { resolveVivaldiConfig, type VivaldiConfig } from './coordinates/vivaldi-config.js';

/** What {@link SwimCore} is built from; every problem with them is reported at once, as one {@link ConfigError}. */
export interface SwimCoreOptions {
  /** Unique name of this member in the cluster. */
  readonly name: string;
  /** Address peers reach us at, as the transport understands it (the advertise address). */
  readonly address: string;
  /** Our metadata, gossiped with our alive messages; at most `metaMaxBytes` (default: empty). */
  readonly meta?: Uint8Array;
  /** Preset the config starts from (default `lan`). */
  readonly preset?: PresetName;
  /** Overrides on top of the preset; validated together, every problem reported at once. */
  readonly config?: Partial<SwimConfig>;
  /** Injected randomness: a seed, or a generator of your own. Same seed + same inputs = same run. */
  readonly seed?: number;
  /** A generator of your own ({@link createRng} makes one); used instead of `seed` when both are given. */
  readonly rng?: Rng;
  /** Monotonic time (ms) at creation. */
  readonly now: number;
  /**
   * The wire format: {@link swimCodec} by default, or another (memberlist's, from
   * @swim/adapter-memberlist). One instance per member: a codec may keep state.
   */
  readonly codec?: WireCodec;
  /**
   * The incarnation to start at (default 1): an integer from 1 to {@link MAX_INCARNATION}. A member
   * restarted from a snapshot starts at {@link resumeIncarnation} of its last one, so that peers
   * that hold its previous life dead or suspect take its first alive as news, not as stale.
   */
  readonly incarnation?: number;
  /**
   * Overrides of Serf's Vivaldi config (coordinates/vivaldi-config.ts), used when `coordinates`
   * is on. Change them only in a cluster of @swim members that all agree: Serf's defaults are
   * what Serf agents send and accept.
   */
  readonly vivaldi?: Partial<VivaldiConfig>;
}


/**
 * One SWIM + Lifeguard member as a pure state machine (docs/design.md, "The core"). Every call takes
 * `now` (monotonic ms) and returns the effects to carry out; the shell arms one timer at
 * `nextDeadline()` and calls `tick(now)`. No clock, timers, randomness or I/O inside.
 */
export class SwimCore {
  /** The config in use: the preset with `options.config` on top, validated and frozen. */
  readonly config: SwimConfig;
  readonly #ctx: CoreContext;
  readonly #counters: Counters = zeroCounters();
  readonly #membership: Membership;
  readonly #prober: Prober;
  readonly #gossiper: Gossiper;
  readonly #antiEntropy: AntiEntropy;
  readonly #user: UserMessages;
  /** A push-pull above maxPushPullEntries is refused at its array header, before any entry is decoded. */
  readonly #streamLimits: DecodeLimits;

  constructor(options: SwimCoreOptions) {
    const problems: string[] = [];
    let config: SwimConfig | undefined;
    try {
      config = resolveConfig(options.config, options.preset);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
    const codec = options.codec ?? swimCodec;
    problems.push(...identityProblems(options, config, codec));
    if (!Number.isFinite(options.now)) problems.push(`now must be a finite number of milliseconds, got ${String(options.now)}`);
    if (options.rng === undefined && options.seed === undefined) problems.push('give either seed or rng: the core has no randomness of its own');
    const incarnation = options.incarnation ?? 1;
    if (!Number.isInteger(incarnation) || incarnation < 1 || incarnation > MAX_INCARNATION) {
      problems.push(`incarnation must be an integer from 1 to ${MAX_INCARNATION}, got ${String(options.incarnation)}`);
    }
    try {
      resolveVivaldiConfig(options.vivaldi);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems.map((p) => `vivaldi: ${p}`));
    }
    if (problems.length > 0 || config === undefined) throw new ConfigError(problems);
    // Before anything is encoded: a codec may write its own member differently from the others.
    codec.attach?.({ name: options.name });
    this.config = config;
    this.#streamLimits = Object.freeze({ maxPushPullEntries: config.maxPushPullEntries });
    const self = { name: options.name, address: options.address, meta: options.meta ?? EMPTY_BYTES };
    const rng = options.rng ?? createRng(options.seed!);
    this.#ctx = new CoreContext(config, self, rng, this.#counters, options.now, codec, incarnation, options.vivaldi);
    this.#membership = new Membership(this.#ctx);
    this.#prober = new Prober(this.#ctx, this.#membership, (reaped) => this.#forgetReaped(reaped));
    this.#gossiper = new Gossiper(this.#ctx);
    this.#antiEntropy = new AntiEntropy(this.#ctx, this.#membership);
    this.#membership.onDeclaredDead = (address) => this.#antiEntropy.pushPullWithDeclarer(address);
    // A leave about a failed member we reaped: no more reconnects to it (Serf leftMembers, synced).
    this.#membership.onLeaveOfUnknown = (name, incarnation) => void this.#antiEntropy.forgetLeftFailed(name, incarnation);
    this.#user = new UserMessages(this.#ctx);
    // memberlist setAlive: our own alive is gossiped like any other update once we have peers.
    this.#ctx.broadcast(memberKey(self.name), this.#membership.selfAlive());
    this.#askedFor = this.#ctx.deadlines.next();
  }

  // --- driving the core ----------------------------------------------------------------------

  /**
   * Apply one input (the serialisable form of every method below). Inputs from the network never
   * throw: bad bytes are counted and dropped. A call the application makes with bad arguments
   * (meta too large, unknown member) throws before it changes anything. Should a bug throw
   * anyway, the call's effects are dropped (all or none), its timers are re-armed so nothing is
   * wedged, `internalErrors` counts it, and the error propagates to the shell.
   */
  step(input: Input, now: number): Effect[] {
    try {
      this.#begin(now);
      this.#apply(input);
      return this.#end();
    } catch (error) {
      this.#ctx.takeEffects(); // dropped: all or none
      this.#ctx.inboundPacketBytes = 0;
      this.#ctx.inboundPacketVersion = 0;
      this.#ctx.inboundMessages = undefined;
      this.#antiEntropy.endStep();
      this.#counters.internalErrors++;
      this.#repairTimers();
      this.#askedFor = this.#ctx.deadlines.next();
      throw error;
    }
  }

  #apply(input: Input): void {
    switch (input.type) {
      case 'packet':
        this.#onPacket(input.from, input.bytes);
        break;
      case 'stream-request':
        this.#onStreamRequest(input.streamId, input.from, input.bytes);
        break;
      case 'stream-response':
        this.#onStreamResult(input.requestId, input.bytes, undefined);
        break;
      case 'stream-failed':
        this.#onStreamResult(input.requestId, undefined, input.reason);
        break;
      case 'tick':
        break;
      case 'join':
        this.#antiEntropy.join(input.seeds, input.joinId);
        break;
      case 'leave':
        this.#leave();
        break;
      case 'force-leave':
        this.#forceLeave(input.name, input.prune ?? false);
        break;
      case 'update-meta':
        this.#updateMeta(input.meta);
        break;
      case 'move':
        this.#move(input.address);
        break;
      case 'broadcast':
        this.#user.broadcast(input.key, input.payload);
        break;
      case 'send-user':
        this.#user.send(input.to, input.payload, input.reliable);
        break;
      case 'set-user-state':
        this.#antiEntropy.userState = input.state;
        break;
      case 'preload':
        this.#preload(input.members);
        break;
    }
  }

  /** After a throw: every periodic timer is pending again. */
  #repairTimers(): void {
    this.#prober.repair();
    this.#gossiper.repair();
    this.#antiEntropy.repair();
  }

  /** Run every deadline that is due. */
  tick(now: number): Effect[] {
    return this.step(TICK, now);
  }

  /** The earliest time the core wants `tick`; undefined when nothing is scheduled. */
  nextDeadline(): number | undefined {
    return this.#ctx.deadlines.next();
  }

  /**
   * When the next reconnect tick is due (core time) and how many failed members it may try
   * (Serf reconnect); undefined when `reconnectIntervalMs` is 0. For display and operations.
   */
  reconnectSchedule():
    | {
        /** When the next reconnect tick is due, monotonic ms (the core's clock). */
        readonly at: number;
        /** Failed members it may try: dead ones, not left, within `reconnectTimeoutMs` of their death. */
        readonly candidates: number;
      }
    | undefined {
    return this.#antiEntropy.reconnectSchedule();
  }

  /** A packet arrived from the transport address `from` (the `packet` input). Bad bytes give a `decode-error` effect. */
  receivePacket(from: string, bytes: Uint8Array, now: number): Effect[] {
    return this.step({ type: 'packet', from, bytes }, now);
  }

  /** A peer opened a stream and sent `bytes`; answer with the `stream-reply` effect for `streamId`. */
  receiveStream(streamId: number, from: string, bytes: Uint8Array, now: number): Effect[] {
    return this.step({ type: 'stream-request', streamId, from, bytes }, now);
  }

  /** Join through seed addresses (memberlist Join); `join-finished` reports the outcome under `joinId`. */
  join(seeds: readonly string[], joinId: number, now: number): Effect[] {
    return this.step({ type: 'join', seeds, joinId }, now);
  }

  /** Hold `members` alive without gossiping them (the `preload` input). */
  preload(members: readonly PreloadedMember[], now: number): Effect[] {
    return this.step({ type: 'preload', members }, now);
  }

  /**
   * Our address changed to `address` (the `move` input): announced at our incarnation + 1 with the
   * address we left, so peers take the new one (docs/design.md, "A member moves"). Ignored after
   * leave or when the address is the one we have; throws a RangeError for an address the codec
   * cannot carry.
   */
  move(address: string, now: number): Effect[] {
    return this.step({ type: 'move', address }, now);
  }

  /** Announce a graceful leave; `broadcast-finished` with token `leave` says it has spread. */
  leave(now: number): Effect[] {
    return this.step({ type: 'leave' }, now);
  }

  /**
   * Mark the failed member `name` left (the `force-leave` input; Serf RemoveFailedNode): a dead
   * member becomes left, with a `left` event, is no longer a reconnect candidate, and its leave is
   * gossiped so that every member marks it left; `prune` forgets it at once (Serf's `-prune`). A
   * member alive or suspect to us is not touched (counted in `forceLeavesIgnored`): it is not
   * failed. Throws a RangeError for a name we hold neither in the table nor among the reaped
   * failed members ({@link forceLeaveTarget} says which case a name is).
   */
  forceLeave(name: string, options: { readonly prune?: boolean }, now: number): Effect[] {
    return this.step({ type: 'force-leave', name, prune: options.prune ?? false }, now);
  }

  /** Re-announce ourselves with new metadata at a higher incarnation (memberlist UpdateNode). */
  updateMeta(meta: Uint8Array, now: number): Effect[] {
    return this.step({ type: 'update-meta', meta }, now);
  }

  /**
   * Spread `payload` to every member under `key` (the `broadcast` input); a newer broadcast under
   * the same key replaces older ones in every queue. Throws a RangeError when the encoded broadcast
   * does not fit one packet (`maxPacketBytes`).
   */
  broadcast(key: string, payload: Uint8Array, now: number): Effect[] {
    return this.step({ type: 'broadcast', key, payload }, now);
  }

  /**
   * Send `payload` to the member named `to` (the `send-user` input): over a stream when `reliable`,
   * else in one packet. Throws a RangeError for a name we do not hold, or an unreliable message
   * that does not fit one packet.
   */
  sendUser(to: string, payload: Uint8Array, reliable: boolean, now: number): Effect[] {
    return this.step({ type: 'send-user', to, payload, reliable }, now);
  }

  // --- reading the state ---------------------------------------------------------------------

  /** Our name ({@link SwimCoreOptions.name}). */
  get name(): string {
    return this.#ctx.self.name;
  }

  /** Our address: {@link SwimCoreOptions.address} at start, then the latest {@link move}. */
  get address(): string {
    return this.#ctx.self.address;
  }

  /** Our incarnation: {@link SwimCoreOptions.incarnation} (1) at start, raised by each refutation and {@link updateMeta}. */
  get incarnation(): number {
    return this.#ctx.table.incarnation(this.#ctx.self.id);
  }

  /** Local health score, 0 = healthy (Lifeguard LHM; memberlist GetHealthScore). */
  get healthScore(): number {
    return this.#ctx.awareness.score;
  }

  /**
   * The protocol version we write (docs/compatibility.md): the newest every live member we hold
   * speaks, a member that announced none counting as version 1. Undefined for a codec without
   * @swim's versions (memberlist's wire, which has its own).
   */
  get protocolVersion(): number | undefined {
    return this.#ctx.wireVersion;
  }

  /** The protocol versions member `name` announced (protocol-range.ts); undefined while it announced none, or for a name we do not hold. */
  protocolOf(name: string): ProtocolRange | undefined {
    const id = this.#ctx.table.idOf(name);
    return id === NO_MEMBER ? undefined : this.#ctx.table.protocol(id);
  }

  /**
   * How long the next probe of `name` would wait for its direct ack before asking helpers:
   * `probeTimeoutMs`, or with `probeTimeoutMode` 'adaptive' the wait derived from its RTTs
   * once it has enough of them.
   */
  probeTimeoutFor(name: string): number {
    const { config, rtts } = this.#ctx;
    return config.probeTimeoutMode === 'adaptive' ? rtts.timeoutFor(name, config.probeTimeoutMs) : config.probeTimeoutMs;
  }

  /**
   * Our Vivaldi network coordinate (docs/design.md, "Network coordinates"); undefined when
   * `coordinates` is off or the codec carries no coordinates. Frozen.
   */
  coordinate(): Coordinate | undefined {
    return this.#ctx.coordinates?.coordinate();
  }

  /**
   * The last coordinate member `name` sent in a direct ack to our probes that we accepted (Serf's
   * coordinate cache); ours for our own name; undefined when none, or coordinates are off.
   */
  coordinateOf(name: string): Coordinate | undefined {
    return this.#ctx.coordinates?.coordinateOf(name);
  }

  /**
   * The round trip time between members `a` and `b` (default: us) that their coordinates
   * predict, ms, to the nanosecond (Serf's DistanceTo, what `serf rtt` prints); undefined when
   * either has no coordinate.
   */
  estimateRtt(a: string, b: string = this.#ctx.self.name): number | undefined {
    return this.#ctx.coordinates?.estimateRttMs(a, b);
  }

  /** A copy of the running counters. */
  get counters(): Readonly<Counters> {
    return { ...this.#counters };
  }

  /** Members that are alive or suspect, ourselves included (memberlist Members). */
  members(): MemberView[] {
    const { table } = this.#ctx;
    const views: MemberView[] = [];
    for (const id of table.all()) if (!table.isDown(id)) views.push(table.view(id));
    return views;
  }

  /** Every member we hold, dead and left ones not yet reaped included. */
  allMembers(): MemberView[] {
    const { table } = this.#ctx;
    return Array.from(table.all(), (id) => table.view(id));
  }

  /**
   * How many members we hold in each state, ourselves and unreaped dead/left ones included: the
   * counts of {@link allMembers} without building a view per member (memberlist NumMembers is
   * alive + suspect).
   */
  memberCounts(): MemberCounts {
    return this.#ctx.table.countByState();
  }

  /** The member `name` as we hold it, in any state; undefined when we hold none (never heard of, or reaped). */
  member(name: string): MemberView | undefined {
    const { table } = this.#ctx;
    const id = table.idOf(name);
    return id === NO_MEMBER ? undefined : table.view(id);
  }

  /**
   * What a `force-leave` of `name` would find: `failed` (held dead, or reaped and still a
   * reconnect candidate: it would be marked left), `left` (nothing to mark; `prune` forgets it),
   * `up` (alive or suspect, ourselves included: not touched), or `unknown` (the input throws).
   */
  forceLeaveTarget(name: string): 'failed' | 'left' | 'up' | 'unknown' {
    const { table } = this.#ctx;
    const id = table.idOf(name);
    if (id === NO_MEMBER) return this.#antiEntropy.isFailedReaped(name) ? 'failed' : 'unknown';
    const state = table.state(id);
    return state === 'dead' ? 'failed' : state === 'left' ? 'left' : 'up';
  }

  /** True once {@link leave} was called: we hold ourselves `left` (memberlist hasLeft). */
  get hasLeft(): boolean {
    return this.#ctx.leaving;
  }

  /** Number of updates waiting to be gossiped. */
  get queuedBroadcasts(): number {
    return this.#ctx.queue.size;
  }

  // --- internals -----------------------------------------------------------------------------

  #begin(now: number): void {
    // Time never runs backwards inside the core, whatever the shell passes.
    if (now > this.#ctx.now) this.#ctx.now = now;
    if (isLateCall(this.#ctx.config, this.#askedFor, this.#ctx.now)) this.#onLateCall();
  }

  /**
   * The deadline we last asked the shell for (`nextDeadline()` after the previous call): a call far
   * past it means our timers ran late (lifeguard/late-tick.ts).
   */
  #askedFor: number | undefined;

  /** Our timers ran late: judge nobody on this call, and count it against our own health. */
  #onLateCall(): void {
    const ctx = this.#ctx;
    ctx.counters.lateTicks++;
    this.#prober.spareLateProbe();
    this.#membership.postponeDueSuspicions(ctx.now, ctx.now + lateSuspicionGraceMs(ctx.config));
    ctx.applyHealthDelta(HEALTH_DELTA.lateCall);
  }

  #end(): Effect[] {
    this.#ctx.inboundPacketBytes = 0;
    this.#ctx.inboundPacketVersion = 0;
    this.#antiEntropy.endStep();
    this.#runDue();
    this.#askedFor = this.#ctx.deadlines.next();
    return this.#ctx.takeEffects();
  }

  #runDue(): void {
    const { deadlines } = this.#ctx;
    // Bounded: a deadline re-armed at `now` (a sliced merge) runs on the next tick, after the shell
    // has yielded, not in this loop.
    for (let key = deadlines.popDue(this.#ctx.now); key !== undefined; key = deadlines.popDue(this.#ctx.now)) {
      if (this.#prober.onDeadline(key) || this.#gossiper.onDeadline(key) || this.#antiEntropy.onDeadline(key)) continue;
      const suspect = Membership.suspicionOf(key);
      if (suspect !== undefined) this.#membership.expireSuspicion(suspect);
    }
  }

  #onPacket(from: string, bytes: Uint8Array): void {
    const ctx = this.#ctx;
    const decoded = ctx.codec.decodePacket(bytes);
    if (!decoded.ok) {
      ctx.counters.decodeErrors++;
      ctx.emit({ type: 'decode-error', from, error: decoded.error });
      return;
    }
    ctx.counters.packetsIn++;
    ctx.counters.bytesIn += bytes.length;
    if (decoded.skipped !== undefined) ctx.counters.unknownMessages += decoded.skipped;
    ctx.inboundPacketBytes = bytes.length;
    if (ctx.codec.protocol !== undefined) ctx.inboundPacketVersion = decoded.version ?? PROTOCOL_VERSION;
    const messages = decoded.messages;
    ctx.counters.messagesIn += messages.length;
    ctx.inboundMessages = messages;
    for (let i = 0; i < messages.length; i++) {
      ctx.inboundIndex = i;
      this.#onMessage(messages[i]!, from);
    }
    ctx.inboundMessages = undefined;
    ctx.inboundPacketVersion = 0;
  }

  #onMessage(message: Message, from: string): void {
    switch (message.type) {
      case 'ping':
        return this.#prober.onPing(message, from);
      case 'ping-req':
        return this.#prober.onPingReq(message, from);
      case 'ack':
        return this.#prober.onAck(message, from);
      case 'nack':
        return this.#prober.onNack(message);
      case 'alive':
        return this.#membership.applyAlive(message, { packetFrom: from });
      case 'suspect':
        this.#membership.applySuspect(message, from);
        return;
      case 'dead':
        return this.#membership.applyDead(message, { kind: 'gossip', confirmations: 0, by: message.from }, from);
      case 'broadcast':
        return this.#user.onBroadcast(message);
      case 'user':
        return this.#user.onUserMessage(message);
      case 'push-pull':
      case 'error':
        // Stream-only messages have no meaning in a packet.
        return;
    }
  }

  #onStreamRequest(streamId: number, from: string, bytes: Uint8Array): void {
    const ctx = this.#ctx;
    if (this.#antiEntropy.isOwnStateRequest(bytes)) {
      // A push-pull carrying exactly our state: nothing to decode or merge.
      ctx.counters.bytesIn += bytes.length;
      ctx.counters.messagesIn++;
      return this.#antiEntropy.onOwnStateRequest(from, streamId, bytes);
    }
    const decoded = ctx.codec.decodeStream(bytes, this.#streamLimits);
    ctx.counters.bytesIn += bytes.length;
    if (!decoded.ok) {
      this.#countUndecodableStream(decoded);
      ctx.emit({ type: 'decode-error', from, error: decoded.error });
      const refused = decoded.error.code === 'version' ? bytes[0] : undefined;
      ctx.emit({ type: 'stream-reply', streamId, bytes: this.#refusal(`bad request: ${decoded.error.detail}`, refused) });
      return;
    }
    // Answered in the version the request was written in, which the requester speaks.
    const version = ctx.codec.protocol === undefined ? undefined : (decoded.version ?? PROTOCOL_VERSION);
    const own = ctx.codec.protocol;
    if (own !== undefined && (version! < own.min || version! > own.max)) {
      // Only an error reads in a version we do not speak (loneErrorReply), and is no request.
      ctx.counters.decodeErrors++;
      ctx.emit({ type: 'stream-reply', streamId, bytes: this.#refusal(`bad request: protocol version ${version} is not supported`, version!) });
      return;
    }
    const message = decoded.messages[0];
    if (message === undefined) {
      // A request of a later version's type: say so, so that the requester can do without it.
      ctx.counters.unknownMessages++;
      ctx.emit({ type: 'stream-reply', streamId, bytes: this.#encodeError('unknown request type', version) });
      return;
    }
    ctx.counters.messagesIn++;
    switch (message.type) {
      case 'push-pull':
        return this.#antiEntropy.onRequest(message, from, streamId, version);
      case 'ping':
        // memberlist handleConn: the fallback ping is answered on the same stream, for our name only.
        ctx.emit({
          type: 'stream-reply',
          streamId,
          bytes: Prober.isForUs(message, ctx.self.name) ? ctx.encodeStream({ type: 'ack', seq: message.seq, payload: ctx.bareAckPayload }, version) : undefined,
        });
        return;
      case 'user':
        this.#user.onUserMessage(message);
        ctx.emit({ type: 'stream-reply', streamId, bytes: undefined });
        return;
      default:
        ctx.emit({ type: 'stream-reply', streamId, bytes: this.#encodeError(`unexpected ${message.type} on a stream`, version) });
    }
  }

  /**
   * The error reply to a request we could not decode. To a request in a protocol version we do not
   * speak: written in our oldest, its first byte made the request's, which the requester reads
   * as an error in any version (wire-codec.ts `protocol`).
   */
  #refusal(message: string, requestVersion: number | undefined): Uint8Array {
    const own = this.#ctx.codec.protocol;
    const bytes = this.#encodeError(message, own?.min);
    if (own === undefined || requestVersion === undefined) return bytes;
    const reply = bytes.slice();
    reply[0] = requestVersion;
    return reply;
  }

  #encodeError(message: string, version: number | undefined): Uint8Array {
    return this.#ctx.encodeStream({ type: 'error', message }, version);
  }

  /** A stream request or answer that is not one decodable message; a push-pull over maxPushPullEntries is also a refused push-pull. */
  #countUndecodableStream(decoded: DecodeResult): void {
    this.#ctx.counters.decodeErrors++;
    if (!decoded.ok && decoded.error.code === 'too-many') this.#ctx.counters.pushPullsRefused++;
  }

  #onStreamResult(requestId: number, bytes: Uint8Array | undefined, failure: string | undefined): void {
    const ctx = this.#ctx;
    let reply: Message | undefined;
    let replyVersion: number | undefined;
    let reason = failure;
    if (bytes !== undefined && this.#antiEntropy.isOwnState(bytes) && this.#antiEntropy.onOwnStateResponse(requestId)) {
      // The answer to our periodic push-pull is exactly our state: nothing to decode or merge.
      ctx.counters.bytesIn += bytes.length;
      ctx.counters.messagesIn++;
      return;
    }
    if (bytes !== undefined) {
      ctx.counters.bytesIn += bytes.length;
      const decoded = ctx.codec.decodeStream(bytes, this.#streamLimits);
      if (decoded.ok && decoded.messages.length === 0) {
        ctx.counters.unknownMessages++;
        reason = 'a reply of a type this version does not know';
      } else if (decoded.ok) {
        reply = decoded.messages[0];
        replyVersion = decoded.version ?? PROTOCOL_VERSION;
        ctx.counters.messagesIn++;
      } else {
        this.#countUndecodableStream(decoded);
        reason = `undecodable reply: ${decoded.error.detail}`;
      }
    }
    const expectedSeq = this.#prober.fallbackSeq(requestId);
    if (expectedSeq !== undefined) {
      this.#prober.onFallbackResult(requestId, reply?.type === 'ack' && reply.seq === expectedSeq);
      return;
    }
    this.#antiEntropy.onResponse(requestId, reply, reason, replyVersion);
  }

  /** memberlist Leave: mark ourselves left and gossip it as a dead message from ourselves. */
  #leave(): void {
    const ctx = this.#ctx;
    if (ctx.leaving) return;
    ctx.leaving = true;
    const { self, table } = ctx;
    const previous = table.state(self.id);
    table.setState(self.id, 'left', ctx.now);
    const message = { type: 'dead', incarnation: table.incarnation(self.id), node: self.name, from: self.name } as const;
    this.#announce(message, LEAVE_TOKEN);
    // memberlist only queues the leave for the next gossip tick; we also send it at once, so a
    // process that exits right after leave() (a closing browser tab) is still heard.
    this.#gossiper.gossipNow();
    ctx.emit({ type: 'member', event: 'left', member: table.view(self.id), previous });
  }

  /** Serf RemoveFailedNode / handleNodeLeaveIntent on the member that asks (see {@link forceLeave}). */
  #forceLeave(name: string, prune: boolean): void {
    const ctx = this.#ctx;
    if (typeof name !== 'string' || name.length === 0) throw new RangeError('force-leave: name must be a non-empty string');
    const target = this.forceLeaveTarget(name);
    if (target === 'unknown') throw new RangeError(`force-leave: no member named ${name}`);
    if (target === 'up') {
      // Serf marks an alive member "leaving" and the member refutes with a join intent: nothing
      // changes in the end. A dead verdict or leave is not ours to invent about a live member.
      ctx.counters.forceLeavesIgnored++;
      return;
    }
    const id = ctx.table.idOf(name);
    if (id === NO_MEMBER) {
      const failed = this.#antiEntropy.forgetLeftFailed(name)!;
      ctx.counters.forceLeaves++;
      this.#membership.forceLeaveReaped(name, failed.incarnation);
      if (prune) ctx.counters.forceLeavesPruned++;
      return;
    }
    if (target === 'failed') {
      ctx.counters.forceLeaves++;
      this.#membership.forceLeave(id);
    }
    if (prune) {
      ctx.counters.forceLeavesPruned++;
      // Serf handlePrune/eraseNode: out of the table at once, then forgotten as any reaped member.
      const view = ctx.table.view(id);
      ctx.table.remove(id);
      this.#forgetReaped([view]);
    }
  }

  /** Members out of the table (the probe pass's reap, or a prune): their timers, round trips and coordinates go (Serf handleReap, eraseNode). */
  #forgetReaped(reaped: readonly MemberView[]): void {
    for (const member of reaped) {
      this.#membership.forget(member.name);
      this.#ctx.coordinates?.forget(member.name);
    }
    this.#membership.buryReaped(reaped);
    this.#antiEntropy.onReaped(reaped);
  }

  /**
   * Hold `members` alive from now on, as members of a cluster that formed before we started: each
   * is added as a member heard of for the first time (a random place in the probe order, a join
   * event) but nothing is gossiped, since such a cluster has no news left to spread; memberlist has
   * no counterpart (its members only learn peers through join, push-pull and gossip). It tells no
   * one about us: a member that others do not hold yet must still join. Ourselves and names we
   * already hold are skipped. Throws, listing every problem, before it changes anything.
   */
  #preload(members: readonly PreloadedMember[]): void {
    const ctx = this.#ctx;
    const problems = preloadProblems(members, ctx);
    if (problems.length > 0) throw new RangeError(`preload: ${problems.join('; ')}`);
    const held = ctx.table.size;
    for (const member of members) {
      if (member.name !== ctx.self.name && ctx.table.idOf(member.name) === NO_MEMBER) this.#membership.preload(member);
    }
    if (ctx.table.size > held) this.#antiEntropy.drawPushPull();
  }

  /** memberlist UpdateNode: new meta under a new incarnation. */
  #updateMeta(meta: Uint8Array): void {
    const ctx = this.#ctx;
    if (!(meta instanceof Uint8Array)) throw new TypeError('meta must be a Uint8Array');
    if (meta.length > ctx.config.metaMaxBytes) {
      throw new RangeError(`meta is ${meta.length} bytes; at most ${ctx.config.metaMaxBytes} (metaMaxBytes)`);
    }
    if (ctx.leaving) throw new Error('cannot update meta after leave');
    const { self, table } = ctx;
    const incarnation = table.incarnation(self.id);
    // At the top of the uint32 range, a new life at 1 (as a refutation that finds it exhausted).
    if (incarnation >= MAX_INCARNATION) {
      ctx.counters.incarnationRenewals++;
      table.setIncarnation(self.id, 1);
    } else {
      table.setIncarnation(self.id, incarnation + 1);
    }
    table.setMeta(self.id, meta);
    this.#announce(this.#membership.selfAlive(), `meta:${table.incarnation(self.id)}`);
    ctx.emit({ type: 'member', event: 'update', member: table.view(self.id), previous: 'alive' });
  }

  /** Our address changed: a new incarnation, announced with the address we left (merge.ts decideAlive). */
  #move(address: string): void {
    const ctx = this.#ctx;
    if (typeof address !== 'string' || address.length === 0) throw new RangeError('move: address must be a non-empty string');
    const problem = ctx.codec.addressProblem(address);
    if (problem !== undefined) throw new RangeError(`move: ${problem}`);
    const { self, table } = ctx;
    // A leaving member is gone already; its leave, not a move, is what peers must hear.
    if (ctx.leaving || address === self.address) return;
    const previous = self.address;
    const incarnation = table.incarnation(self.id);
    // At the top of the uint32 range, a new life at 1 (as a refutation that finds it exhausted).
    if (incarnation >= MAX_INCARNATION) {
      ctx.counters.incarnationRenewals++;
      table.setIncarnation(self.id, 1);
    } else {
      table.setIncarnation(self.id, incarnation + 1);
    }
    self.address = address;
    table.setAddress(self.id, address, previous);
    this.#announce(this.#membership.selfAlive(), `move:${table.incarnation(self.id)}`);
    this.#antiEntropy.afterMove();
    ctx.emit({ type: 'member', event: 'update', member: table.view(self.id), previous: 'alive' });
  }

  /**
   * Gossip an announcement about ourselves and report `broadcast-finished` once it is fully
   * retransmitted; at once if nobody else is alive to hear it (memberlist Leave / UpdateNode).
   */
  #announce(message: Message, token: string): void {
    const ctx = this.#ctx;
    if (ctx.anyOtherUp()) {
      ctx.broadcast(memberKey(ctx.self.name), message, token);
    } else {
      ctx.broadcast(memberKey(ctx.self.name), message);
      ctx.emit({ type: 'broadcast-finished', token });
    }
  }
}

/** Token of the leave announcement in `broadcast-finished`. */
export const LEAVE_TOKEN = 'leave';

const TICK: Input = { type: 'tick' };

/** What is wrong with a `preload` input: every problem, so one call lists them all. */
function preloadProblems(members: readonly PreloadedMember[], ctx: CoreContext): string[] {
  if (!Array.isArray(members)) return ['members must be an array'];
  const problems: string[] = [];
  const { table, config, codec, self } = ctx;
  const names = new Set<string>();
  const addresses = new Map<string, string>();
  let added = 0;
  members.forEach((member, i) => {
    const at = `members[${i}]`;
    if (typeof member !== 'object' || member === null) {
      problems.push(`${at} must be an object`);
      return;
    }
    const { name, address, incarnation, meta } = member;
    if (typeof name !== 'string' || name.length === 0) problems.push(`${at}.name must be a non-empty string`);
    else if (utf8ByteLength(name) > MAX_NAME_BYTES) problems.push(`${at}.name must be at most ${MAX_NAME_BYTES} bytes of UTF-8`);
    else if (names.has(name)) problems.push(`${at}.name ${name} is listed twice`);
    else names.add(name);
    let addressOk = typeof address === 'string' && address.length > 0;
    if (!addressOk) problems.push(`${at}.address must be a non-empty string`);
    else {
      const problem = codec.addressProblem(address);
      if (problem !== undefined) {
        problems.push(`${at}.address: ${problem}`);
        addressOk = false;
      }
    }
    if (!Number.isInteger(incarnation) || incarnation < 0 || incarnation > MAX_INCARNATION) {
      problems.push(`${at}.incarnation must be an integer from 0 to ${MAX_INCARNATION}, got ${String(incarnation)}`);
    }
    if (meta !== undefined && !(meta instanceof Uint8Array)) problems.push(`${at}.meta must be a Uint8Array`);
    else if (meta !== undefined && meta.length > config.metaMaxBytes) problems.push(`${at}.meta is ${meta.length} bytes; at most ${config.metaMaxBytes} (metaMaxBytes)`);
    if (typeof name !== 'string' || name === self.name || table.idOf(name) !== NO_MEMBER || !addressOk) return;
    added++;
    // One socket, one member: a name new to us at an address another name holds is a mistake.
    const holder = addresses.get(address);
    if (holder !== undefined) problems.push(`${at}.address ${address} is also ${holder}'s`);
    else if (address === self.address || table.someAt(address, (id) => !table.isDown(id))) problems.push(`${at}.address ${address} is held by a member we know`);
    addresses.set(address, name);
  });
  if (table.size + added > config.maxMembers) problems.push(`${added} new members would make ${table.size + added}, more than maxMembers ${config.maxMembers}`);
  return problems;
}

function identityProblems(options: SwimCoreOptions, config: SwimConfig | undefined, codec: WireCodec): string[] {
  const problems: string[] = [];
  if (typeof options.name !== 'string' || options.name.length === 0) problems.push('name must be a non-empty string');
  else if (utf8ByteLength(options.name) > MAX_NAME_BYTES) problems.push(`name must be at most ${MAX_NAME_BYTES} bytes of UTF-8`);
  if (typeof options.address !== 'string' || options.address.length === 0) problems.push('address must be a non-empty string');
  else {
    const problem = codec.addressProblem(options.address);
    if (problem !== undefined) problems.push(problem);
  }
  if (config !== undefined && config.maxPacketBytes < codec.minPacketBytes) {
    problems.push(`maxPacketBytes must be at least ${codec.minPacketBytes} for the ${codec.name} wire format, got ${config.maxPacketBytes}`);
  }
  if (options.meta !== undefined && config !== undefined && options.meta.length > config.metaMaxBytes) {
    problems.push(`meta is ${options.meta.length} bytes; at most ${config.metaMaxBytes} (metaMaxBytes)`);
  }
  return problems;
}
