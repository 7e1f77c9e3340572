import type { Message, PushPullEntry, PushPullMessage } from '../codec/messages.js';
import { describeRange, RANGE_FIELDS_VERSION, rangesOverlap, type ProtocolRange } from '../codec/protocol-range.js';
import type { StreamPurpose } from '../effects.js';
import { pushPullIntervalMs } from './push-pull-interval.js';
import { retransmitLimit } from '../dissemination/retransmit-limit.js';
import { EMPTY_BYTES } from '../support/bytes.js';
import { pickRandom, randomFloat } from '../support/rng.js';
import type { CoreContext, Self } from '../context.js';
import type { Admission, Membership } from '../members/membership.js';
import type { MemberView } from '../members/member.js';
import { NO_MEMBER } from '../members/member-table.js';
import { isDown } from '../members/member.js';
import { FailedMembers, type FailedMember } from './failed-members.js';
import { hashState, isSameState, type OwnState } from './state-digest.js';
import { shareState, sharedState, stateKey, type SharedState } from './shared-states.js';

/** Fewer bytes than any encoding of ours spends on a push-pull entry (name, address, incarnation, state). */
const MIN_ENTRY_BYTES = 8;
const PUSH_PULL = 'push-pull';
const RECONNECT = 'reconnect';
const MERGE = 'merge';
const MOVE_CATCH_UP = 'move-catch-up';
/**
 * Push-pulls a mover tries, one after another, until one exchange succeeds (see afterMove). When
 * members move together (the pages of a dead gateway), each holds the others at addresses they
 * left, about half of those it could pick; eight in a row all failing is under 0.4 % even then.
 */
const MOVE_PUSH_PULL_TRIES = 8;

/** A join in progress: one push-pull per seed address (memberlist Join). */
interface PendingJoin {
  readonly id: number;
  remaining: number;
  readonly contacted: string[];
  readonly failed: Array<{ address: string; reason: string; nameHolder?: string }>;
}

/** A received push-pull state being merged, a slice of entries per tick. */
interface PendingMerge {
  readonly message: PushPullMessage;
  readonly from: string;
  /** Address new names are charged to; undefined for answers to our own requests. */
  readonly source: Admission | undefined;
  next: number;
  readonly onDone: (() => void) | undefined;
}

/** An outstanding push-pull we initiated. */
interface PendingExchange {
  readonly purpose: Extract<StreamPurpose, 'push-pull' | 'join'>;
  readonly address: string;
  readonly join: PendingJoin | undefined;
  /** The protocol version the request was written in (undefined: a codec without @swim's versions). */
  readonly version: number | undefined;
  /** The move this exchange announces (afterMove's count), or undefined for any other exchange. */
  readonly move: number | undefined;
}

/**
 * Anti-entropy (memberlist pushPull): a periodic full-state push-pull with one random alive member over
 * a stream, interval scaled with cluster size; join is the same exchange with seed addresses.
 * Remote state is merged by the ordinary rules, except that a remote "dead" is only a suspicion
 * here ("we prefer to suspect that node instead of declaring it dead instantly", mergeState).
 * Reconnects (Serf serf.go `reconnect`) push-pull with a failed member now and then, so that a
 * partition heals by itself after both sides have declared, and reaped, each other dead.
 */
export class AntiEntropy {
  readonly #exchanges = new Map<number, PendingExchange>();
  readonly #merges: PendingMerge[] = [];
  /** Merges of push-pulls that peers opened, still in #merges (memberlist counts its pending handlers). */
  #inboundMerges = 0;
  readonly #failed: FailedMembers;
  /** Application state shared in every exchange (memberlist Delegate.LocalState). */
  userState: Uint8Array = EMPTY_BYTES;
  /** Our state as last encoded for a periodic exchange, summarised (see state-digest.ts). */
  #own: OwnState | undefined;
  /** The protocol version #own was encoded in. */
  #ownVersion: number | undefined;
  /**
   * Our periodic state, encoded by {@link isOwnStateRequest} to take the digest anew (#own was
   * taken from these bytes), for onRequest to answer with instead of encoding it again; dropped at
   * the end of the step (endStep): one state per member held across steps would be n² bytes in a
   * simulated process.
   */
  #encodedForAnswer: Uint8Array | undefined;
  /** Member ids in name order, and the table's roster change count they were sorted at. */
  #byName: Int32Array | undefined;
  #byNameAt = -1;
  /** When pushPullWithDeclarer last opened an exchange. */
  #declarerPushPullAt: number | undefined;
  /** Our moves so far: an answer to the exchange of an earlier move no longer counts for the last one. */
  #moves = 0;
  /** The addresses the last move's exchanges went to, one after another (see afterMove). */
  readonly #moveTried = new Set<string>();

  constructor(
    private readonly ctx: CoreContext,
    private readonly membership: Membership,
  ) {
    this.drawPushPull();
    this.#failed = new FailedMembers(ctx);
    const reconnect = ctx.config.reconnectIntervalMs;
    if (reconnect > 0) ctx.deadlines.set(RECONNECT, ctx.now + Math.floor(reconnect * randomFloat(ctx.rng)));
  }

  /**
   * The next push-pull at a random point of the interval for the size held (pushPullScale): at
   * construction (a cluster of one: the base interval, memberlist's stagger), and again after a
   * preload added members. Drawn only at construction, members preloaded together would all
   * push-pull within one base interval, and in the same 30 s of every scaled interval after it:
   * 5,000 members formed at once exchanged 5,000-entry states 166 times a second, where spread
   * over their 270 s interval it is 18.
   */
  drawPushPull(): void {
    const { ctx } = this;
    const base = ctx.config.pushPullIntervalMs;
    if (base > 0) ctx.deadlines.set(PUSH_PULL, ctx.now + Math.floor(pushPullIntervalMs(base, ctx.clusterSize) * randomFloat(ctx.rng)));
  }

  onDeadline(key: string): boolean {
    if (key === RECONNECT) {
      this.#reconnect();
      return true;
    }
    if (key === MERGE) {
      this.#mergeSlice();
      return true;
    }
    if (key === MOVE_CATCH_UP) {
      this.#catchUpAfterMove();
      return true;
    }
    if (key !== PUSH_PULL) return false;
    const { ctx } = this;
    // Re-arm first: whatever happens below, the periodic exchange keeps its schedule.
    ctx.deadlines.set(PUSH_PULL, ctx.now + pushPullIntervalMs(ctx.config.pushPullIntervalMs, ctx.clusterSize));
    const peer = this.#randomAlivePeer();
    if (peer !== undefined) this.#request(peer, 'push-pull', undefined, ctx.wireVersion);
    return true;
  }

  /** The address of a random member we hold alive, other than us and than those in `except`; undefined if none. */
  #randomAlivePeer(except?: ReadonlySet<string>): string | undefined {
    const { ctx } = this;
    const { table } = ctx;
    const [peer] = pickRandom(ctx.rng, table.all(), 1, (m) => m !== ctx.self.id && table.state(m) === 'alive' && (except === undefined || !except.has(table.address(m))));
    return peer === undefined ? undefined : table.address(peer);
  }

  /**
   * The next reconnect tick (core time) and how many failed members it may try; undefined when
   * reconnects are off. Each tick tries one with probability failed / alive (see #reconnect).
   */
  reconnectSchedule(): { readonly at: number; readonly candidates: number } | undefined {
    const at = this.ctx.deadlines.get(RECONNECT);
    return at === undefined ? undefined : { at, candidates: this.#failed.candidates().length };
  }

  /** True while `name` is a reaped failed member we may still reconnect to. */
  isFailedReaped(name: string): boolean {
    return this.#failed.isReaped(name);
  }

  /** A reaped failed member left (force-leave): drop it from the reconnect candidates; see FailedMembers.forgetLeft. */
  forgetLeftFailed(name: string, incarnation?: number): FailedMember | undefined {
    return this.#failed.forgetLeft(name, incarnation);
  }

  /** The probe pass reaped these members; failed ones stay reconnect candidates. */
  onReaped(records: readonly MemberView[]): void {
    this.#failed.rememberReaped(records);
  }

  /**
   * Serf reconnect: with probability failed / alive (alive counts ourselves), push-pull with one
   * random failed member, so the cluster as a whole tries each failed member about once per
   * interval however large it is. A reachable member merges our state and we merge its: both
   * sides then refute or learn of each other as after any push-pull.
   */
  #reconnect(): void {
    const { ctx } = this;
    ctx.deadlines.set(RECONNECT, ctx.now + ctx.config.reconnectIntervalMs);
    if (ctx.leaving) return;
    const candidates = this.#failed.candidates();
    if (candidates.length === 0) return;
    let alive = 0;
    const members = ctx.table.all();
    for (let i = 0; i < members.length; i++) if (!ctx.table.isDown(members[i]!)) alive++;
    if (randomFloat(ctx.rng) > candidates.length / Math.max(1, alive)) return;
    const [target] = pickRandom(ctx.rng, candidates, 1, () => true);
    ctx.counters.reconnectAttempts++;
    this.#request(target!.address, 'push-pull', undefined, ctx.wireVersion);
  }

  /**
   * pushPullWithDeclarer: we refute a death verdict about us; push-pull with the member that made
   * it (its address), at most once per base push-pull interval (a member declared dead again and
   * again costs one extra exchange per interval, not one per verdict).
   */
  pushPullWithDeclarer(address: string): void {
    const { ctx } = this;
    const interval = ctx.config.pushPullIntervalMs;
    if (!ctx.config.pushPullWithDeclarer || interval <= 0 || ctx.leaving) return;
    if (this.#declarerPushPullAt !== undefined && ctx.now - this.#declarerPushPullAt < interval) return;
    this.#declarerPushPullAt = ctx.now;
    ctx.counters.declarerPushPulls++;
    this.#request(address, 'push-pull', undefined, ctx.wireVersion);
  }

  /**
   * We moved (core `move`): push-pull with a random live member at once, and with another each time
   * one fails, until one exchange succeeds or {@link MOVE_PUSH_PULL_TRIES} have failed. Gossip alone
   * does not carry a move reliably: the alive goes to a few random members a fixed number of times
   * (retransmitMult × log n), and when members move together, as the pages of a dead gateway do,
   * each holds the others at the addresses they left, so every copy can go to an address nobody
   * answers at any more. No one would then know the move to tell a member that missed it (membership
   * #correctMissedMove), and every member would declare the mover dead where it was (the simulator:
   * 25 of 55 members moving at once, the whole cluster declared one dead in one seed of 40). A
   * stream reports whether it reached someone: once one did, a live member holds the move and
   * gossips it, and the exchange also brings us the moves the partner heard of. Off with anti-entropy
   * (pushPullIntervalMs 0). docs/design.md, "A member moves".
   */
  afterMove(): void {
    if (this.ctx.config.pushPullIntervalMs <= 0) return;
    this.#moves++;
    this.#moveTried.clear();
    this.#pushPullAfterMove();
  }

  #pushPullAfterMove(): void {
    const { ctx } = this;
    const tried = this.#moveTried;
    if (tried.size >= MOVE_PUSH_PULL_TRIES || ctx.leaving) return;
    const peer = this.#randomAlivePeer(tried);
    if (peer === undefined) return;
    tried.add(peer);
    ctx.counters.movePushPulls++;
    this.#request(peer, 'push-pull', undefined, ctx.wireVersion, this.#moves);
  }

  /**
   * The exchange of move `move` ended: another try if it did not reach its peer (and it is still our
   * last move). If it did, one more exchange once the gossip of that moment is spent (see
   * {@link onDeadline}'s MOVE_CATCH_UP).
   */
  #moveExchangeEnded(move: number | undefined, reached: boolean): void {
    if (move === undefined || move !== this.#moves) return;
    if (!reached) return this.#pushPullAfterMove();
    const { ctx } = this;
    const limit = retransmitLimit(ctx.config.retransmitMult, ctx.clusterSize);
    if (ctx.config.gossipIntervalMs > 0) ctx.deadlines.set(MOVE_CATCH_UP, ctx.now + limit * ctx.config.gossipIntervalMs);
  }

  /**
   * Catch up once after a move: what members gossiped to us before they knew our new address went
   * to the one we left, and when members move together (the pages of a dead gateway) that is the
   * other movers' moves, whose gossip is spent within retransmitLimit rounds of each member learning
   * them. One push-pull after that long brings whatever we missed, instead of a stale suspicion per
   * missed move (membership #correctMissedMove) or the next periodic push-pull. In the simulator's
   * 25 of 55 moving together (40 seeds), the members still missing a move 5 s after it fell from 21
   * (7 of them movers) to 5 (none a mover): the partners learn from these exchanges too.
   */
  #catchUpAfterMove(): void {
    const { ctx } = this;
    const peer = ctx.leaving ? undefined : this.#randomAlivePeer();
    if (peer === undefined) return;
    ctx.counters.movePushPulls++;
    this.#request(peer, 'push-pull', undefined, ctx.wireVersion);
  }

  /** Start a join: push-pull with every seed address; `join-finished` reports it under `joinId`. */
  join(seeds: readonly string[], joinId: number): void {
    const join: PendingJoin = { id: joinId, remaining: seeds.length, contacted: [], failed: [] };
    if (seeds.length === 0) this.#finishJoin(join);
    for (const address of seeds) this.#request(address, 'join', join, this.ctx.wireVersion);
  }

  /**
   * A peer opened a push-pull stream: answer with our state first, then merge theirs (memberlist
   * handleConn). Refused with an error reply while maxConcurrentPushPulls peer push-pulls are still
   * merging (memberlist maxPushPullRequests); one above maxPushPullEntries never gets here (the
   * core's decoder refuses it at its array header).
   */
  onRequest(message: PushPullMessage, from: string, streamId: number, version: number | undefined): void {
    const { ctx } = this;
    if (this.#refusedAsBusy(streamId, version)) return;
    const refusal = message.join ? this.#joinRefusal(message, version) : undefined;
    if (refusal !== undefined) {
      ctx.counters.pushPullsRefused++;
      ctx.emit({ type: 'stream-reply', streamId, bytes: ctx.encodeStream({ type: 'error', message: refusal }, version) });
      return;
    }
    const encoded = this.#encodedForAnswer;
    const current = encoded !== undefined && !message.join && this.#digestIsCurrent() && this.#ownVersion === version;
    ctx.emit({ type: 'stream-reply', streamId, bytes: current ? encoded : this.#encodeState(message.join, version) });
    this.#inboundMerges++;
    this.#startMerge(message, from, { pushPullRequest: { admitted: 0 } }, () => this.#inboundMerges--);
  }

  /**
   * Whether `bytes` is our own state exactly as a periodic exchange of ours encodes it now, with
   * nothing in it a merge could act on: merging it would change nothing (state-digest.ts). False
   * whenever unsure (the table or user state changed since we last encoded it).
   */
  isOwnState(bytes: Uint8Array): boolean {
    return this.#digestIsCurrent() && this.#own!.mergeFree && isSameState(this.#own!, bytes);
  }

  /**
   * {@link isOwnState} for a peer's request, taking our digest anew first when it is missing or
   * stale (the table or user state changed since our last periodic exchange): the answer to a
   * push-pull needs our state encoded anyway, so encoding it first costs nothing more when the
   * request is a push-pull to merge, and spares the decode and the merge when it is our own state.
   * Without it, every state a member received between a change and its own next periodic exchange
   * (1,000 members: up to 180 s, memberlist pushPullScale) was decoded and merged whole, and so was
   * half of a freshly formed cluster's first round. A request smaller than our table could encode
   * to is no state of ours (a fallback ping, a user message): nothing is encoded for it.
   */
  isOwnStateRequest(bytes: Uint8Array): boolean {
    const { ctx } = this;
    if (!this.#digestIsCurrent() && bytes.length >= ctx.table.size * MIN_ENTRY_BYTES) this.#encodedForAnswer = this.#encodeState(false, ctx.wireVersion);
    return this.isOwnState(bytes);
  }

  /**
   * Why a joiner is refused, or undefined: it announces a range of protocol versions that shares
   * none with the cluster's (memberlist verifyProtocol), or wrote its request in a version some
   * live member cannot read. Both ranges are named, so the operator sees what to upgrade.
   */
  #joinRefusal(message: PushPullMessage, version: number | undefined): string | undefined {
    const cluster = this.ctx.clusterRange();
    if (cluster === undefined || version === undefined) return undefined;
    if (version < cluster.min || version > cluster.max) {
      return `protocol version ${version} of the join request is not one this cluster speaks (${describeRange(cluster)})`;
    }
    for (const entry of message.members) {
      if (entry.protocol === undefined || isDown(entry.state) || rangesOverlap(entry.protocol, cluster)) continue;
      return `${entry.name} speaks protocol versions ${describeRange(entry.protocol)}, which do not overlap this cluster's ${describeRange(cluster)}`;
    }
    return undefined;
  }

  /** The end of a core step: our state encoded for an answer is not kept past it. */
  endStep(): void {
    this.#encodedForAnswer = undefined;
  }

  #digestIsCurrent(): boolean {
    const own = this.#own;
    return own !== undefined && own.changes === this.ctx.table.changes && own.userState === this.userState && this.#ownVersion === this.ctx.wireVersion;
  }

  /**
   * A peer's push-pull request carrying our own state (isOwnState): nothing to merge, and our
   * answer would be these very bytes, so a copy of them is sent back instead of encoding our state
   * again (a copy: the transport may reuse the buffer it handed us; a forgery that matched our
   * digest gets only itself back).
   */
  onOwnStateRequest(from: string, streamId: number, bytes: Uint8Array): void {
    const { ctx } = this;
    if (this.#refusedAsBusy(streamId, ctx.wireVersion)) return;
    ctx.emit({ type: 'stream-reply', streamId, bytes: bytes.slice() });
    this.#ownStateMerged(from, false);
  }

  /** The answer to our periodic push-pull `requestId` is our own state (isOwnState); false if not one of ours. */
  onOwnStateResponse(requestId: number): boolean {
    const exchange = this.#exchanges.get(requestId);
    if (exchange === undefined || exchange.purpose !== 'push-pull') return false;
    this.#exchanges.delete(requestId);
    this.#ownStateMerged(exchange.address, false);
    this.#moveExchangeEnded(exchange.move, true);
    return true;
  }

  /** What merging a state equal to ours leaves: the exchange counted and the user state delivered. */
  #ownStateMerged(from: string, join: boolean): void {
    this.ctx.counters.pushPulls++;
    if (this.userState.length > 0) this.ctx.emit({ type: 'user-state', from, state: this.userState, join });
  }

  /** Refuse a peer's push-pull with an error reply while maxConcurrentPushPulls merges are pending. */
  #refusedAsBusy(streamId: number, version: number | undefined): boolean {
    const { ctx } = this;
    if (this.#inboundMerges < ctx.config.maxConcurrentPushPulls) return false;
    ctx.counters.pushPullsRefused++;
    ctx.emit({ type: 'stream-reply', streamId, bytes: ctx.encodeStream({ type: 'error', message: 'too many pending push-pull requests' }, version) });
    return true;
  }

  /** Our push-pull was answered; false if `requestId` is not one of ours. */
  onResponse(requestId: number, reply: Message | undefined, failure: string | undefined, replyVersion?: number): boolean {
    const { ctx } = this;
    const exchange = this.#exchanges.get(requestId);
    if (exchange === undefined) return false;
    this.#exchanges.delete(requestId);
    const { address, join, version, move } = exchange;
    const own = ctx.codec.protocol;
    if (join !== undefined && reply?.type === 'error' && version !== undefined && own !== undefined && version > own.min && /protocol version/.test(reply.message)) {
      // The seed does not read the version we wrote (a member of 0.1.0 answers 'bad request:
      // protocol version 2 is not supported, expected 1'): ask again one version older.
      this.#request(address, 'join', join, version - 1);
      return true;
    }
    if (failure !== undefined || reply?.type !== 'push-pull') {
      let reason = failure ?? (reply?.type === 'error' ? `remote error: ${reply.message}` : 'unexpected reply');
      // memberlist verifyProtocol names both sides; so do we, whichever side noticed.
      if (own !== undefined && /protocol version/.test(reason)) reason = `protocol versions do not overlap: ${reason}; this member speaks ${describeRange(own)}`;
      if (join !== undefined) this.#settleJoin(join, () => join.failed.push({ address, reason }));
      this.#moveExchangeEnded(move, false);
      return true;
    }
    this.#moveExchangeEnded(move, true);
    const disjoint = join === undefined || own === undefined ? undefined : disjointCluster(reply, replyVersion ?? own.min, own);
    if (join !== undefined && disjoint !== undefined) {
      // memberlist verifyProtocol, on the joiner's side: a seed that did not check (0.1.0) is told nothing.
      const reason = `protocol versions do not overlap: the cluster at ${address} speaks ${describeRange(disjoint)}, this member ${describeRange(own!)}`;
      this.#settleJoin(join, () => join.failed.push({ address, reason }));
      return true;
    }
    const nameHolder = join === undefined || ctx.leaving ? undefined : holderOfOurName(reply, ctx.self);
    if (join !== undefined && nameHolder !== undefined) {
      // The seed's cluster already has a member of our name elsewhere: refuse the join instead of
      // merging (memberlist only reports it, aliveNode "Conflicting address"). Joined, our alive
      // would be dropped everywhere as a conflict, and our leave taken as the other member's.
      ctx.emit({ type: 'conflict', name: ctx.self.name, existingAddress: ctx.self.address, otherAddress: nameHolder });
      const reason = `name conflict: the cluster already has a member named ${JSON.stringify(ctx.self.name)} at ${nameHolder} (names must be unique)`;
      this.#settleJoin(join, () => join.failed.push({ address, reason, nameHolder }));
      return true;
    }
    // We asked: the answer's new names are not rate limited (a join learns the cluster at once).
    // A join is reported once its state is merged, so the caller then sees the members.
    this.#startMerge(reply, address, undefined, () => {
      if (join !== undefined) this.#settleJoin(join, () => join.contacted.push(address));
    });
    return true;
  }

  /** One seed of `join` is done (`record` notes how); the last one finishes the join. */
  #settleJoin(join: PendingJoin, record: () => void): void {
    record();
    if (--join.remaining === 0) this.#finishJoin(join);
  }

  #request(address: string, purpose: PendingExchange['purpose'], join: PendingJoin | undefined, version: number | undefined, move?: number): void {
    const { ctx } = this;
    const requestId = ctx.nextRequestId();
    this.#exchanges.set(requestId, { purpose, address, join, version, move });
    ctx.emit({
      type: 'stream-request',
      requestId,
      purpose,
      to: address,
      bytes: this.#encodeState(purpose === 'join', version),
      expectReply: true,
      timeoutMs: ctx.config.streamTimeoutMs,
    });
  }

  /**
   * Our state encoded; a periodic exchange's (join false) is also kept as our digest. Bytes another
   * core of this process encoded for the same entries are copied instead (shared-states.ts).
   */
  #encodeState(join: boolean, version: number | undefined): Uint8Array {
    const { ctx } = this;
    const { table } = ctx;
    const key = this.userState.length === 0 ? stateKey(join, table.size, table.contentPrint(version !== undefined && version >= RANGE_FIELDS_VERSION), version) : undefined;
    const shared = key === undefined ? undefined : sharedState(ctx.codec, key);
    let bytes: Uint8Array;
    let digest: SharedState;
    if (shared !== undefined) {
      // A copy: the transport may hold on to what it is handed.
      bytes = shared.bytes.slice();
      digest = shared;
    } else {
      const state = this.#localState(join, version);
      bytes = ctx.codec.encodeStream(state, version);
      const { hashA, hashB } = hashState(bytes);
      digest = { bytes, hashA, hashB, mergeFree: !state.members.some((entry) => entry.state === 'suspect') };
      if (key !== undefined) shareState(ctx.codec, key, { ...digest, bytes: bytes.slice() });
    }
    if (!join && version === ctx.wireVersion) {
      const { hashA, hashB, mergeFree } = digest;
      this.#own = { changes: table.changes, userState: this.userState, length: bytes.length, hashA, hashB, mergeFree };
      this.#ownVersion = version;
    }
    return bytes;
  }

  /**
   * Every entry we hold, ourselves and dead/left members included (memberlist sendLocalState), in
   * name order, so that members holding the same entries send the same bytes (memberlist sends
   * its probe order; the order means nothing to a merge). The message only lives until it is encoded.
   */
  #localState(join: boolean, version: number | undefined): PushPullMessage {
    const { table } = this.ctx;
    const ids = this.#idsByName();
    const members: PushPullEntry[] = new Array(ids.length);
    // From protocol version 2 each entry carries the range its member announced, when known, and
    // after it the address the member moved from, when we applied a move (the codec writes it only after a range).
    const withRanges = version !== undefined && version >= RANGE_FIELDS_VERSION;
    for (let i = 0; i < ids.length; i++) {
      const view = table.view(ids[i]!);
      const protocol = withRanges ? table.protocol(ids[i]!) : undefined;
      const movedFrom = protocol === undefined ? undefined : table.movedFrom(ids[i]!);
      members[i] = protocol === undefined ? view : movedFrom === undefined ? { ...view, protocol } : { ...view, protocol, movedFrom };
    }
    return { type: 'push-pull', join, members, userState: this.userState };
  }

  /** Member ids in name order (code unit order), sorted again only after a member was added or released. */
  #idsByName(): Int32Array {
    const { table } = this.ctx;
    if (this.#byName !== undefined && this.#byNameAt === table.rosterChanges) return this.#byName;
    const ids = Int32Array.from(table.all());
    ids.sort((x, y) => {
      const a = table.name(x);
      const b = table.name(y);
      return a < b ? -1 : a > b ? 1 : 0;
    });
    this.#byName = ids;
    this.#byNameAt = table.rosterChanges;
    return ids;
  }

  /** Queue a received state for merging and merge its first slice now. */
  #startMerge(message: PushPullMessage, from: string, source: Admission | undefined, onDone: () => void): void {
    this.ctx.counters.pushPulls++;
    this.#merges.push({ message, from, source, next: 0, onDone });
    this.#mergeSlice();
  }

  /**
   * Merge up to mergeSliceEntries entries, oldest state first; if any remain, ask for a tick the
   * next millisecond (the shell yields to its event loop in between), so a large state never blocks it.
   */
  #mergeSlice(): void {
    const { ctx } = this;
    let budget = ctx.config.mergeSliceEntries;
    while (this.#merges.length > 0 && budget > 0) {
      const merge = this.#merges[0]!;
      const { members } = merge.message;
      const end = Math.min(members.length, merge.next + budget);
      for (let i = merge.next; i < end; i++) this.#mergeEntry(members[i]!, merge.source);
      budget -= end - merge.next;
      merge.next = end;
      if (end < members.length) break;
      this.#merges.shift();
      this.#finishMerge(merge);
    }
    if (this.#merges.length > 0) ctx.deadlines.set(MERGE, ctx.now + 1);
    else ctx.deadlines.delete(MERGE);
  }

  /** After a throw inside the core: the periodic timers and a pending merge are scheduled again. */
  repair(): void {
    const { ctx } = this;
    const { pushPullIntervalMs: base, reconnectIntervalMs } = ctx.config;
    if (base > 0 && !ctx.deadlines.has(PUSH_PULL)) ctx.deadlines.set(PUSH_PULL, ctx.now + pushPullIntervalMs(base, ctx.clusterSize));
    if (reconnectIntervalMs > 0 && !ctx.deadlines.has(RECONNECT)) ctx.deadlines.set(RECONNECT, ctx.now + reconnectIntervalMs);
    if (this.#merges.length > 0 && !ctx.deadlines.has(MERGE)) ctx.deadlines.set(MERGE, ctx.now + 1);
  }

  #finishMerge(merge: PendingMerge): void {
    const { message, from } = merge;
    if (message.userState.length > 0) {
      this.ctx.emit({ type: 'user-state', from, state: message.userState, join: message.join });
    }
    merge.onDone?.();
  }

  /** memberlist mergeState, for one entry. */
  #mergeEntry(entry: PushPullEntry, source: Admission | undefined): void {
    const { ctx, membership } = this;
    switch (entry.state) {
      case 'alive': {
        const alive = { type: 'alive', incarnation: entry.incarnation, node: entry.name, address: entry.address, meta: entry.meta } as const;
        if (entry.protocol === undefined) membership.applyAlive(alive, source);
        else if (entry.movedFrom === undefined) membership.applyAlive({ ...alive, protocol: entry.protocol }, source);
        else membership.applyAlive({ ...alive, protocol: entry.protocol, movedFrom: entry.movedFrom }, source);
        return;
      }
      case 'left':
        membership.applyDead(
          { type: 'dead', incarnation: entry.incarnation, node: entry.name, from: entry.name },
          { kind: 'gossip', confirmations: 0, by: entry.name },
        );
        return;
      case 'dead': {
        // A remote death of a member we already hold down is taken as a death (a newer incarnation
        // of it, reported to nobody); only one we hold up becomes a suspicion (below).
        const local = ctx.table.idOf(entry.name);
        if (local !== NO_MEMBER && ctx.table.isDown(local)) {
          membership.applyDead(
            { type: 'dead', incarnation: entry.incarnation, node: entry.name, from: ctx.self.name },
            { kind: 'gossip', confirmations: 0, by: ctx.self.name },
          );
          return;
        }
        membership.applySuspect({ type: 'suspect', incarnation: entry.incarnation, node: entry.name, from: ctx.self.name });
        return;
      }
      case 'suspect':
        membership.applySuspect({ type: 'suspect', incarnation: entry.incarnation, node: entry.name, from: ctx.self.name });
        return;
    }
  }

  #finishJoin(join: PendingJoin): void {
    this.ctx.emit({ type: 'join-finished', joinId: join.id, contacted: join.contacted, failed: join.failed });
  }
}

/**
 * The range every live member of a seed's state speaks, when it shares no version with `own`;
 * undefined when it does. Entries without a range count as version 1 only in a reply written in
 * version 1 (a cluster of 0.1.0); in a later version they are members the seed has no word from yet.
 */
function disjointCluster(state: PushPullMessage, replyVersion: number, own: ProtocolRange): ProtocolRange | undefined {
  let min = replyVersion;
  let max = replyVersion < RANGE_FIELDS_VERSION ? 1 : Infinity;
  for (const entry of state.members) {
    if (entry.protocol === undefined || isDown(entry.state)) continue;
    min = Math.max(min, entry.protocol.min);
    max = Math.min(max, entry.protocol.max);
  }
  if (max === Infinity) max = replyVersion;
  const cluster = { min: Math.min(min, max), max };
  return min <= max && rangesOverlap(cluster, own) ? undefined : cluster;
}

/** The address at which a push-pull state holds a live member of our name, other than ours; undefined if none. */
function holderOfOurName(state: PushPullMessage, self: Self): string | undefined {
  for (const entry of state.members) {
    if (entry.name === self.name && entry.address !== self.address && !isDown(entry.state)) return entry.address;
  }
  return undefined;
}
