import type { AliveMessage, DeadMessage, SuspectMessage } from '../codec/messages.js';
import type { DeathCause, MemberEventKind } from '../effects.js';
import type { MemberState, MemberView } from './member.js';
import { Tombstones } from './tombstones.js';
import { decideAlive, decideDead, decideSuspect, refutingIncarnation, type MergeContext } from './merge.js';
import { NewMemberBudget } from './admission.js';
import { NO_MEMBER, type MemberId } from './member-table.js';
import { isDown } from './member.js';
import { HEALTH_DELTA } from '../lifeguard/awareness.js';
import { Suspicion, VERDICT_CHECKS, type SuspicionParams } from '../lifeguard/suspicion.js';
import { confirmationsWanted, suspicionTimeoutMs } from '../lifeguard/suspicion-timeout.js';
import { EMPTY_BYTES, bytesEqual } from '../support/bytes.js';
import type { PreloadedMember } from '../inputs.js';
import type { CoreContext } from '../context.js';

const SUSPICION_KEY = 's:';

/** Key of the admission budget that push-pulls peers open share (see Membership #admit). */
const PUSH_PULL_REQUESTS = 'push-pull requests';
/** Key of the budget all strangers' self-announcements share. */
const STRANGERS = 'strangers';

/** Where unsolicited news came from: a gossip packet's source address, or a push-pull a peer opened (with the names it added so far). */
export type Admission = { readonly packetFrom: string } | { readonly pushPullRequest: { admitted: number } };

/**
 * Keys made so far, so the same name always gives the same string object: every member of a
 * simulated process queues an update about each of the others under this key, and a new string
 * per enqueue was one more small object per queued item (and a hash to compute for each lookup).
 * Cleared when it holds 65,536 keys, so it stays bounded whatever names arrive.
 */
const MEMBER_KEYS = new Map<string, string>();

/** Deadline key of the suspicion about `name`: one string per name, as {@link memberKey}. */
function suspicionKey(name: string): string {
  let key = SUSPICION_KEYS.get(name);
  if (key === undefined) {
    if (SUSPICION_KEYS.size >= 65_536) SUSPICION_KEYS.clear();
    key = SUSPICION_KEY + name;
    SUSPICION_KEYS.set(name, key);
  }
  return key;
}

const SUSPICION_KEYS = new Map<string, string>();

/** Invalidation key of membership gossip about a member (memberlist names broadcasts by node). */
export function memberKey(name: string): string {
  let key = MEMBER_KEYS.get(name);
  if (key === undefined) {
    if (MEMBER_KEYS.size >= 65_536) MEMBER_KEYS.clear();
    key = 'm:' + name;
    MEMBER_KEYS.set(name, key);
  }
  return key;
}

/**
 * Applies membership updates with the merge rules and carries out their side effects: gossip,
 * events, suspicion timers, refutation (memberlist aliveNode / suspectNode / deadNode / refute).
 */
export class Membership {
  readonly #suspicions = new Map<string, Suspicion>();
  /** The ping sequence number of each verdict check in flight, to the suspect's name. */
  readonly #checkSeqs = new Map<number, string>();
  /** When we last answered an accusation directly, per address (direct refutation's rate limit). */
  readonly #answeredAt = new Map<string, number>();
  readonly #newMembers: NewMemberBudget;
  /** One self-announcement per stranger address per probe interval. */
  readonly #strangerAddresses: NewMemberBudget;
  /** When we last passed on the accusation about a member held down, per member name (answerStaleAlive / regossipStaleAccusation). */
  readonly #staleAnsweredAt = new Map<string, number>();
  /** Reaped deaths, so that a stale view does not bring a dead member back (answerStaleAlive). */
  readonly #tombstones: Tombstones;
  /** When we last sent a pinging member what we accuse it of, per member name (answerAccusedPingers). */
  readonly #pingerAccusedAt = new Map<string, number>();
  /** Accusations about unknown members relayed, per source address per probe interval (relayUnknownAccusations). */
  readonly #unknownRelays: NewMemberBudget;

  /** A member at the address is alive or suspect. */
  readonly #isUp: (id: MemberId) => boolean;

  constructor(private readonly ctx: CoreContext) {
    const { config } = ctx;
    this.#isUp = (id) => !ctx.table.isDown(id);
    this.#merge = {
      selfName: ctx.self.name,
      leaving: false,
      now: ctx.now,
      deadNodeReclaimMs: config.deadNodeReclaimMs,
      leftNameReclaimMs: config.leftNameReclaimMs,
      maxIncarnationJump: config.maxIncarnationJump,
    };
    this.#newMembers = new NewMemberBudget(config.maxNewMembersPerSource, config.probeIntervalMs);
    this.#strangerAddresses = new NewMemberBudget(1, config.probeIntervalMs);
    this.#unknownRelays = new NewMemberBudget(config.maxNewMembersPerSource, config.probeIntervalMs);
    this.#tombstones = new Tombstones(config.maxMembers);
  }

  /** One context object refreshed per update, not allocated: this runs for every gossiped update. */
  readonly #merge: {
    selfName: string;
    leaving: boolean;
    now: number;
    deadNodeReclaimMs: number;
    leftNameReclaimMs: number;
    maxIncarnationJump: number;
  };

  #mergeContext(): MergeContext {
    const merge = this.#merge;
    merge.leaving = this.ctx.leaving;
    merge.now = this.ctx.now;
    return merge;
  }

  /**
   * memberlist aliveNode. `source` says where unsolicited news came from, for the admission of new
   * names ({@link Admission}); undefined for news we asked for (answers to our push-pulls).
   */
  applyAlive(message: AliveMessage, source?: Admission): void {
    const { ctx } = this;
    if (message.meta.length > ctx.config.metaMaxBytes) {
      // memberlist checks MetaMaxSize only for its own meta; a peer's larger meta could never be re-gossiped.
      ctx.counters.oversizedMeta++;
      return;
    }
    const { table } = ctx;
    const current = table.idOf(message.node);
    const decision = decideAlive(message, table.known(current), this.#mergeContext());
    switch (decision.kind) {
      case 'ignore':
        // The alive we hold, passed on again: its range may be news (a member learning versions),
        // and so may its move (we had it through a hop that wrote version 1, which drops both).
        if (message.protocol !== undefined && current !== NO_MEMBER && current !== ctx.self.id && !table.isDown(current) && table.incarnation(current) === message.incarnation) {
          table.setProtocol(current, message.protocol);
          if (message.movedFrom !== undefined && table.address(current) === message.address) table.setAddress(current, message.address, message.movedFrom);
        }
        return;
      case 'stale':
        this.#onStaleAlive(current);
        return;
      case 'implausible':
        ctx.counters.implausibleUpdates++;
        return;
      case 'conflict':
        ctx.emit({ type: 'conflict', name: message.node, existingAddress: table.address(current), otherAddress: message.address });
        return;
      case 'refute':
        this.refute(message.incarnation);
        return;
      case 'refute-move':
        // Someone says we moved away from here: move back from where it says we went.
        ctx.table.setAddress(ctx.self.id, ctx.self.address, message.address);
        this.refute(message.incarnation);
        return;
      case 'create': {
        if (this.#staleAfterReap(message)) return;
        if (!this.#admit(message, source)) return;
        this.#tombstones.forget(message.node);
        const id = table.add(message.node, message.address, message.meta, message.incarnation, 'alive', ctx.now);
        table.setProtocol(id, message.protocol);
        // Kept to pass on: a member that missed the move learns it from our push-pulls.
        if (message.movedFrom !== undefined) table.setAddress(id, message.address, message.movedFrom);
        ctx.broadcast(memberKey(message.node), ctx.forWire(message));
        this.#event('join', id, undefined);
        return;
      }
      case 'apply': {
        const name = message.node;
        const previous = table.state(current);
        const metaChanged = !bytesEqual(table.meta(current), message.meta);
        const left = table.address(current);
        this.#dropSuspicion(name);
        // A new address is a new path: its old round trips say nothing about it.
        if (decision.readdress) ctx.rtts.forget(name);
        table.setIncarnation(current, message.incarnation);
        table.setMeta(current, message.meta);
        // A move is remembered with the address it left, to gossip on; a reclaim forgets any, and an
        // alive at the same address without one (a hop that wrote version 1) keeps what we hold.
        if (decision.readdress) table.setAddress(current, message.address, decision.moved === true ? message.movedFrom : undefined);
        else if (message.movedFrom !== undefined) table.setAddress(current, message.address, message.movedFrom);
        if (previous !== 'alive') table.setState(current, 'alive', ctx.now);
        // Back from the dead or at a new address, it may be another build: what it announced
        // before says nothing about it (unknown counts as 0.1.0's version 1 until it says).
        if (message.protocol !== undefined || isDown(previous) || decision.readdress) table.setProtocol(current, message.protocol);
        ctx.broadcast(memberKey(name), ctx.forWire(message));
        // Tell the address it left: a member that really moved is gone from there (the packet is
        // lost), while a live member a forgery moved away hears it and moves back (refute-move);
        // gossip, sent to the forged address from now on, would never reach it.
        if (decision.moved === true) ctx.sendRaw(left, [ctx.forWire(message)]);
        if (isDown(previous)) {
          this.#event('join', current, previous);
          return;
        }
        if (previous === 'suspect') this.#event('alive', current, previous);
        // memberlist NotifyUpdate fires on a meta change, whatever the state before.
        if (metaChanged || decision.readdress) this.#event('update', current, 'alive');
        return;
      }
    }
  }

  /** A member held alive from the start, not gossiped (the core's `preload` input, checked there). */
  preload(member: PreloadedMember): void {
    const { ctx } = this;
    const id = ctx.table.add(member.name, member.address, member.meta ?? EMPTY_BYTES, member.incarnation, 'alive', ctx.now);
    this.#event('join', id, undefined);
  }

  /**
   * memberlist suspectNode. Returns true when this started a new suspicion (for the
   * suspicionsRaised counter of the caller's own probes).
   */
  applySuspect(message: SuspectMessage, sender?: string): boolean {
    if (sender !== undefined) this.#relayIfUnknown(message, sender);
    const raised = this.#mergeSuspect(message);
    if (message.node === this.ctx.self.name) this.#answerAccusation(sender);
    else this.#correctMissedMove(message.node, message.incarnation, sender);
    return raised;
  }

  /**
   * A new name fits the table and its source's budget (maxNewMembersPerSource per probe interval):
   * - gossip from a member's address: that address's own budget;
   * - gossip from a stranger: only its own alive (the address it sends from), one name per address
   *   per interval, all strangers sharing one budget; so a member we had reaped comes back by
   *   announcing itself, while a stranger cannot fill the table with others;
   * - push-pulls peers open: one new name each (a newcomer's own; the rest of its state arrives
   *   through gossip and our own push-pulls, which are exempt), all sharing one budget (their
   *   stream ports are ephemeral, so no per-source key would hold);
   * and never a second live name at an address a live member holds.
   */
  #admit(message: AliveMessage, source: Admission | undefined): boolean {
    const { ctx } = this;
    if (ctx.table.size >= ctx.config.maxMembers) {
      ctx.counters.membersRefused++;
      return false;
    }
    if (source === undefined) return true;
    let admitted: boolean;
    if (ctx.table.someAt(message.address, this.#isUp)) {
      // One socket, one member: a second live name at an address is invented.
      admitted = false;
    } else if ('pushPullRequest' in source) {
      const request = source.pushPullRequest;
      admitted = request.admitted === 0 && this.#newMembers.take(PUSH_PULL_REQUESTS, ctx.now);
      if (admitted) request.admitted++;
    } else if (ctx.table.isMemberAddress(source.packetFrom, ctx.self.id)) {
      admitted = this.#newMembers.take(source.packetFrom, ctx.now);
    } else {
      admitted =
        message.address === source.packetFrom &&
        this.#strangerAddresses.take(source.packetFrom, ctx.now) &&
        this.#newMembers.take(STRANGERS, ctx.now);
    }
    if (!admitted) ctx.counters.newMembersNotAdmitted++;
    return admitted;
  }

  #mergeSuspect(message: SuspectMessage): boolean {
    const { ctx } = this;
    const { table } = ctx;
    const member = table.idOf(message.node);
    const decision = decideSuspect(message, table.known(member), this.#mergeContext());
    switch (decision.kind) {
      case 'ignore':
        return false;
      case 'implausible':
        ctx.counters.implausibleUpdates++;
        return false;
      case 'refute':
        this.refute(message.incarnation);
        return false;
      case 'resuspect': {
        ctx.broadcast(memberKey(message.node), message);
        table.setIncarnation(member, message.incarnation);
        table.setState(member, 'suspect', ctx.now);
        this.#dropSuspicion(message.node);
        this.#startSuspicion(message.node, message.from);
        return true;
      }
      case 'confirm': {
        const suspicion = this.#suspicions.get(message.node)!;
        if (suspicion.confirm(message.from, ctx.now)) {
          // New information: pass it on, so others' timers shrink too (memberlist suspectNode step 2).
          ctx.broadcast(memberKey(message.node), message);
          this.#arm(message.node, suspicion);
        }
        return false;
      }
      case 'suspect': {
        const previous = table.state(member);
        ctx.broadcast(memberKey(message.node), message);
        table.setIncarnation(member, message.incarnation);
        table.setState(member, 'suspect', ctx.now);
        this.#startSuspicion(message.node, message.from);
        // Back from dead or left (at a higher incarnation) and suspected again: for the
        // application it rejoined, whatever state it is in now.
        this.#event(isDown(previous) ? 'join' : 'suspect', member, previous);
        return true;
      }
    }
  }

  /** memberlist deadNode. A dead message from the member itself is a graceful leave. */
  applyDead(message: DeadMessage, cause: DeathCause, sender?: string): void {
    if (sender !== undefined) this.#relayIfUnknown(message, sender);
    const refuted = this.#mergeDead(message, cause);
    if (message.node !== this.ctx.self.name) return this.#correctMissedMove(message.node, message.incarnation, sender);
    this.#answerAccusation(sender);
    if (refuted) this.#catchUpWithDeclarer(message.from, sender);
  }

  /**
   * Called with a leave (a dead message from the member itself) about a member we do not hold:
   * set by the core to drop it from the reconnect list, where a reaped failed member may still be.
   */
  onLeaveOfUnknown: (name: string, incarnation: number) => void = () => {};

  /**
   * Force-leave (Serf RemoveFailedNode): the member we hold dead is marked left, as if its own
   * leave had arrived: the same message, a dead from itself at the incarnation it died at, is
   * gossiped so that every member marks it left too (merge.ts: left beats dead at one incarnation).
   */
  forceLeave(id: MemberId): void {
    const { ctx } = this;
    const name = ctx.table.name(id);
    this.applyDead({ type: 'dead', incarnation: ctx.table.incarnation(id), node: name, from: name }, { kind: 'gossip', confirmations: 0, by: ctx.self.name });
  }

  /** Force-leave of a failed member already reaped from the table: its tombstone says it left, and peers are told. */
  forceLeaveReaped(name: string, incarnation: number): void {
    this.#tombstones.markLeft(name);
    this.ctx.broadcast(memberKey(name), { type: 'dead', incarnation, node: name, from: name });
  }

  /**
   * Called with the address of the member that declared us dead (or, when we do not know its name,
   * the packet's sender), as we refute the verdict: set by the core to a push-pull with it
   * (pushPullWithDeclarer).
   */
  onDeclaredDead: (declarerAddress: string) => void = () => {};

  /** The declarer lost sight of us: its view holds what we missed while cut off from it. */
  #catchUpWithDeclarer(declarer: string, sender: string | undefined): void {
    const { table, self } = this.ctx;
    if (declarer === self.name) return;
    const id = table.idOf(declarer);
    const address = id !== NO_MEMBER && id !== self.id && table.state(id) === 'alive' ? table.address(id) : sender;
    if (address !== undefined && address !== self.address) this.onDeclaredDead(address);
  }

  /** Returns true when the dead message was about us and we refuted it. */
  #mergeDead(message: DeadMessage, cause: DeathCause): boolean {
    const { ctx } = this;
    const { table } = ctx;
    const member = table.idOf(message.node);
    const decision = decideDead(message, table.known(member), this.#mergeContext());
    switch (decision.kind) {
      case 'ignore':
        if (member === NO_MEMBER && message.from === message.node) {
          this.#tombstones.markLeft(message.node, message.incarnation);
          this.onLeaveOfUnknown(message.node, message.incarnation);
        }
        return false;
      case 'implausible':
        ctx.counters.implausibleUpdates++;
        return false;
      case 'refute':
        this.refute(message.incarnation);
        return true;
      case 'apply': {
        const name = message.node;
        const previous = table.state(member);
        this.#dropSuspicion(name);
        ctx.rtts.forget(name);
        ctx.broadcast(memberKey(name), message);
        table.setIncarnation(member, message.incarnation);
        if (decision.state === 'dead') table.mayHoldDead = true;
        // Down to down is news for gossip; the time of death stays the first one. Dead at a
        // higher incarnation is not news for the application, which was told once. Dead then left
        // is: a failed member that left (its own late leave, or a force-leave) is no longer one
        // to wait for, and Serf reports it (handleNodeLeaveIntent: StatusFailed -> StatusLeft,
        // EventMemberLeave).
        if (isDown(previous)) {
          table.setState(member, decision.state, table.stateChangedAt(member));
          if (previous === 'dead' && decision.state === 'left') this.#event('left', member, previous);
          return false;
        }
        table.setState(member, decision.state, ctx.now);
        this.#event(decision.state, member, previous, decision.state === 'dead' ? cause : undefined);
        return false;
      }
    }
  }

  /**
   * memberlist refute: announce ourselves alive at an incarnation above the accusation, and take
   * the accusation as a sign of our own ill health (Lifeguard: refute +1).
   */
  refute(accusedIncarnation: number): void {
    const { ctx } = this;
    const { self, table } = ctx;
    const next = refutingIncarnation(table.incarnation(self.id), accusedIncarnation);
    if (next === undefined) {
      // Incarnation space exhausted: nothing we announce can outvote the accusation, so peers
      // will hold us dead until they reap us. Start a new life at 1 (not memberlist's 0, which a
      // peer that has reaped us would also drop): once reaped, our alive is a new member to them.
      ctx.counters.incarnationRenewals++;
      table.setIncarnation(self.id, 1);
    } else {
      table.setIncarnation(self.id, next);
    }
    ctx.counters.refutations++;
    ctx.applyHealthDelta(HEALTH_DELTA.refuted);
    // Keyed by our name, so it also replaces queued accusations about us; memberlist refute keys it
    // by our address instead (refutationQueueKey 'address', in memberlistProfile).
    const key = ctx.config.refutationQueueKey === 'name' ? memberKey(self.name) : 'a:' + self.address;
    ctx.broadcast(key, this.selfAlive());
  }

  /**
   * Direct refutation: whoever passed us an accusation about ourselves holds a view of us that is
   * wrong, whether the accusation is current (we are refuting it now) or stale (gossip lost our
   * earlier refutation on the way to it). Tell it directly, at most once per probe interval.
   * Runs after the merge, so a current accusation is answered with the incarnation that refutes it.
   */
  #answerAccusation(sender: string | undefined): void {
    const { ctx } = this;
    if (!ctx.config.directRefutation || sender === undefined || ctx.leaving) return;
    // To a stranger (a member we reaped during its outage, or a forger) only when the answer is no
    // larger than twice what it sent: an alive carries up to metaMaxBytes of meta.
    if (!ctx.table.isMemberAddress(sender) && ctx.codec.encodedSize(this.selfAlive()) > 2 * ctx.inboundPacketBytes) return;
    if (!this.#mayAnswer(sender)) return;
    ctx.sendRaw(sender, [this.selfAlive()]);
  }

  /**
   * At most one direct answer per half a check's spacing per `key` (a sender, or a sender and the
   * member the answer is about): a flood costs little, yet every verdict check (a third of a probe
   * timeout apart, the gap shrunk by latency jitter) is answered, even right after a buddy accusation.
   */
  #mayAnswer(key: string): boolean {
    const { ctx } = this;
    const last = this.#answeredAt.get(key);
    if (last !== undefined && ctx.now - last < ctx.config.probeTimeoutMs / (2 * VERDICT_CHECKS)) return false;
    if (this.#answeredAt.size > 4 * ctx.clusterSize + 64) this.#answeredAt.clear();
    this.#answeredAt.set(key, ctx.now);
    return true;
  }

  /**
   * An accusation about a member we hold as moved, at an incarnation older than its move: the
   * sender missed the move and probes the address the member left, where nobody answers. Nobody
   * passes a stale accusation on, so the member never hears it to refute, and the sender's suspicion
   * would run out into a false death. Tell the sender the move directly: the member's alive as we
   * hold it, with the address it moved from (docs/design.md, "A member moves"), at most once per
   * sender and member per answer interval (#answerAccusation's).
   */
  #correctMissedMove(node: string, incarnation: number, sender: string | undefined): void {
    const { ctx } = this;
    if (!ctx.config.directRefutation || sender === undefined || ctx.leaving || !ctx.writesRanges) return;
    const { table } = ctx;
    const id = table.idOf(node);
    if (id === NO_MEMBER || table.state(id) !== 'alive' || incarnation >= table.incarnation(id)) return;
    const movedFrom = table.movedFrom(id);
    const protocol = table.protocol(id);
    if (movedFrom === undefined || protocol === undefined || !table.isMemberAddress(sender)) return;
    if (!this.#mayAnswer(`${sender}\0${node}`)) return;
    ctx.counters.missedMovesCorrected++;
    ctx.sendRaw(sender, [{ type: 'alive', incarnation: table.incarnation(id), node, address: table.address(id), meta: table.meta(id), protocol, movedFrom }]);
  }

  /**
   * An alive about a member we hold dead or left, at an incarnation that does not override it
   * (decideAlive `stale`): the member may be running again, restarted at incarnation 1, and it
   * refutes only once an accusation reaches it. memberlist aliveNode drops the alive.
   * - `answerStaleAlive`: send the accusation straight to the member's address;
   * - `regossipStaleAccusation` (memberlist PR #345): queue it for gossip again.
   * Each at most once per probe interval per member, so a flood of stale alives costs one small
   * packet per member held down.
   */
  #onStaleAlive(id: MemberId): void {
    const { ctx } = this;
    const { answerStaleAlive, regossipStaleAccusation } = ctx.config;
    if (!answerStaleAlive && !regossipStaleAccusation) return;
    const name = ctx.table.name(id);
    if (!this.#due(this.#staleAnsweredAt, name)) return;
    ctx.counters.staleAlivesAnswered++;
    const accusation = this.#accusation(id);
    if (answerStaleAlive) ctx.sendRaw(ctx.table.address(id), [accusation]);
    if (regossipStaleAccusation) ctx.broadcast(memberKey(name), accusation);
  }

  /**
   * `answerStaleAlive` for a member reaped after its death or leave: an alive at the address it died at and
   * no higher incarnation is a stale view of it (a member paused through the death, a snapshot
   * taken before), not news. It is not taken back in (memberlist aliveNode would: it forgot the
   * member); the address is sent the death, once per probe interval, so that a process really
   * running there refutes above it and comes back at once.
   */
  #staleAfterReap(message: AliveMessage): boolean {
    const { ctx } = this;
    if (!ctx.config.answerStaleAlive) return false;
    const tombstone = this.#tombstones.covering(message.node, message.address, message.incarnation, ctx.now, ctx.config.reconnectTimeoutMs);
    if (tombstone === undefined) return false;
    ctx.counters.reapedAlivesRefused++;
    if (this.#due(this.#staleAnsweredAt, message.node)) {
      ctx.counters.staleAlivesAnswered++;
      // What we held (#accusation): our death verdict, or its own leave.
      const from = tombstone.left ? message.node : ctx.self.name;
      ctx.sendRaw(message.address, [{ type: 'dead', incarnation: tombstone.incarnation, node: message.node, from }]);
    }
    return true;
  }

  /** The probe pass reaped these members: remember how they went down (answerStaleAlive). */
  buryReaped(records: readonly MemberView[]): void {
    const { ctx } = this;
    if (!ctx.config.answerStaleAlive) return;
    for (const record of records) {
      if (!isDown(record.state) || record.name === ctx.self.name) continue;
      this.#tombstones.bury(record.name, { address: record.address, incarnation: record.incarnation, left: record.state === 'left', diedAt: record.stateChangedAt });
    }
  }

  /**
   * `answerAccusedPingers`: a ping from a member we hold suspect, dead or left, sent from the
   * address we hold for it, means it runs without knowing what we hold (a restart, a refutation
   * gossip did not bring us, a partition we reaped it in): send it the accusation, at most once per
   * probe interval per member. It refutes, or (direct refutation) answers with its newer alive.
   */
  answerAccusedPinger(sourceName: string, from: string): void {
    const { ctx } = this;
    if (!ctx.config.answerAccusedPingers || sourceName === ctx.self.name) return;
    const { table } = ctx;
    const id = table.idOf(sourceName);
    if (id === NO_MEMBER || table.state(id) === 'alive' || table.address(id) !== from) return;
    if (!this.#due(this.#pingerAccusedAt, sourceName)) return;
    ctx.counters.accusedPingersAnswered++;
    const accusation: SuspectMessage | DeadMessage =
      table.state(id) === 'suspect' ? { type: 'suspect', incarnation: table.incarnation(id), node: sourceName, from: ctx.self.name } : this.#accusation(id);
    ctx.sendRaw(from, [accusation]);
  }

  /**
   * `relayUnknownAccusations` (memberlist PR #345): a suspect or dead message about a member we do
   * not know is gossiped on rather than dropped, so it can cross members that restarted and never
   * heard of the accused. Bounded per source address like new names (maxNewMembersPerSource per
   * probe interval); the member is not added to our table.
   */
  #relayIfUnknown(message: SuspectMessage | DeadMessage, sender: string): void {
    const { ctx } = this;
    if (!ctx.config.relayUnknownAccusations || message.node === ctx.self.name) return;
    if (ctx.table.idOf(message.node) !== NO_MEMBER) return;
    if (!this.#unknownRelays.take(sender, ctx.now)) return;
    ctx.counters.unknownAccusationsRelayed++;
    ctx.broadcast(memberKey(message.node), message);
  }

  /** What we hold against a member held down: our death verdict, or its own leave. */
  #accusation(id: MemberId): DeadMessage {
    const { table, self } = this.ctx;
    const name = table.name(id);
    return { type: 'dead', incarnation: table.incarnation(id), node: name, from: table.state(id) === 'left' ? name : self.name };
  }

  /** True (and records now) when `key` was not acted on within the last probe interval. */
  #due(at: Map<string, number>, key: string): boolean {
    const { ctx } = this;
    const last = at.get(key);
    if (last !== undefined && ctx.now - last < ctx.config.probeIntervalMs) return false;
    if (at.size > 4 * ctx.clusterSize + 64) at.clear();
    at.set(key, ctx.now);
    return true;
  }

  /** Our own alive message at our current incarnation. */
  selfAlive(): AliveMessage {
    const { ctx } = this;
    const { self, table } = ctx;
    const alive: AliveMessage = { type: 'alive', incarnation: table.incarnation(self.id), node: self.name, address: self.address, meta: table.meta(self.id) };
    // Our range rides along once every live member reads it (protocol version 2 on), and with it
    // the address we last moved from, so a member that missed the move takes it from any alive of ours.
    if (!ctx.writesRanges) return alive;
    const movedFrom = table.movedFrom(self.id);
    return movedFrom === undefined ? { ...alive, protocol: ctx.codec.protocol! } : { ...alive, protocol: ctx.codec.protocol!, movedFrom };
  }

  /** A suspicion timer is due: declare death, or re-arm if local health says wait (correction 2). */
  expireSuspicion(name: string): void {
    const { ctx } = this;
    const { table } = ctx;
    const suspicion = this.#suspicions.get(name);
    const member = table.idOf(name);
    if (suspicion === undefined || member === NO_MEMBER || table.state(member) !== 'suspect') return;
    if (this.#checkMs() > 0 && suspicion.beginCheck(ctx.now, this.#checkMs())) {
      // Last word to the suspect, one probe timeout before the verdict (and again each third of
      // that while nothing came back): the accusation, directly; its answer (an alive) clears the
      // suspicion, its ack holds the verdict back (onCheckAck).
      ctx.counters.verdictChecks++;
      const seq = ctx.nextSeq();
      // At most one round's checks are matched: an earlier round's ack is too late to matter.
      if (suspicion.checkSeqs.length >= VERDICT_CHECKS) this.#forgetCheck(suspicion);
      suspicion.checkSeqs.push(seq);
      this.#checkSeqs.set(seq, name);
      ctx.sendRaw(table.address(member), [
        { type: 'ping', seq, target: name, sourceName: ctx.self.name, sourceAddress: ctx.self.address },
        { type: 'suspect', incarnation: table.incarnation(member), node: name, from: ctx.self.name },
      ]);
      this.#arm(name, suspicion);
      return;
    }
    if (ctx.now < suspicion.wakeAt(this.#checkMs())) {
      this.#arm(name, suspicion);
      return;
    }
    if (suspicion.expire(ctx.now, ctx.awareness.score).kind === 'rearm') {
      this.#arm(name, suspicion);
      return;
    }
    const confirmations = suspicion.confirmations;
    ctx.counters.deathsDeclared++;
    if (suspicion.params.k > 0 && confirmations < suspicion.params.k) ctx.counters.degradedTimeouts++;
    this.applyDead(
      { type: 'dead', incarnation: table.incarnation(member), node: name, from: ctx.self.name },
      { kind: 'timeout', confirmations, by: ctx.self.name },
    );
  }

  /**
   * An ack that is no probe's: if it answers a verdict check, from the suspect's own address, the
   * suspect is running and hears us; only its refutation was lost. Declaring it dead now would be a
   * false death (memberlist has no verdict check, so it never sees this ack): the verdict waits one
   * probe interval more and the suspect is asked again, for as long as it answers. Returns true if
   * the ack was a verdict check's.
   */
  onCheckAck(seq: number, from: string): boolean {
    const name = this.#checkSeqs.get(seq);
    if (name === undefined) return false;
    const { ctx } = this;
    const suspicion = this.#suspicions.get(name);
    const member = ctx.table.idOf(name);
    if (suspicion === undefined || !suspicion.checkSeqs.includes(seq) || member === NO_MEMBER || ctx.table.address(member) !== from) return false;
    this.#forgetCheck(suspicion);
    ctx.counters.verdictChecksAcked++;
    suspicion.checkAcked(ctx.now + ctx.config.probeIntervalMs);
    this.#arm(name, suspicion);
    return true;
  }

  /**
   * A late call (lifeguard/late-tick.ts): every suspicion whose timer came due by `now` waits until
   * `until`, and its suspect is asked again before that, instead of being judged on this call; once
   * per suspicion (Suspicion.spareLate). Returns how many were postponed.
   */
  postponeDueSuspicions(now: number, until: number): number {
    let postponed = 0;
    for (const [name, suspicion] of this.#suspicions) {
      const due = this.ctx.deadlines.get(suspicionKey(name));
      if (due === undefined || due > now || !suspicion.spareLate(until)) continue;
      this.#arm(name, suspicion);
      postponed++;
    }
    return postponed;
  }

  #forgetCheck(suspicion: Suspicion): void {
    for (const seq of suspicion.checkSeqs) this.#checkSeqs.delete(seq);
    suspicion.checkSeqs.length = 0;
  }

  /** True if `key` is a suspicion deadline; returns the member name it belongs to. */
  static suspicionOf(key: string): string | undefined {
    return key.startsWith(SUSPICION_KEY) ? key.slice(SUSPICION_KEY.length) : undefined;
  }

  /** Forget a reaped member's timers and round trips. */
  forget(name: string): void {
    this.#dropSuspicion(name);
    this.ctx.rtts.forget(name);
  }

  /** memberlist suspectNode: k, min and max from the current cluster size (unscaled probe interval). */
  #startSuspicion(name: string, from: string): void {
    const { now } = this.ctx;
    const suspicion = new Suspicion(from, this.#suspicionParams(), now, this.ctx.awareness.score);
    this.#dropSuspicion(name);
    this.#suspicions.set(name, suspicion);
    this.#arm(name, suspicion);
  }

  /** Direct refutation's verdict check waits one probe timeout for the suspect's answer. */
  #checkMs(): number {
    return this.ctx.config.directRefutation ? this.ctx.config.probeTimeoutMs : 0;
  }

  /** Wake `name`'s suspicion timer when it next has something to do (the verdict check, or the verdict). */
  #arm(name: string, suspicion: Suspicion): void {
    this.ctx.deadlines.set(suspicionKey(name), suspicion.wakeAt(this.#checkMs()));
  }

  /** Read-only and the same for every suspicion raised at one cluster size: computed again only when the size changes. */
  #suspicionParams(): SuspicionParams {
    const { config, clusterSize } = this.ctx;
    if (this.#params?.clusterSize === clusterSize) return this.#params.params;
    const minMs = suspicionTimeoutMs(config.suspicionMult, clusterSize, config.probeIntervalMs);
    const params: SuspicionParams = Object.freeze({
      k: confirmationsWanted(config.suspicionMult, clusterSize),
      minMs,
      maxMs: minMs * config.suspicionMaxTimeoutMult,
      overdueGraceMs: config.overdueGraceMs,
      healthScaling: config.healthScaling,
    });
    this.#params = { clusterSize, params };
    return params;
  }

  #params: { readonly clusterSize: number; readonly params: SuspicionParams } | undefined;

  #dropSuspicion(name: string): void {
    const suspicion = this.#suspicions.get(name);
    if (suspicion === undefined) return;
    this.#forgetCheck(suspicion);
    this.#suspicions.delete(name);
    this.ctx.deadlines.delete(suspicionKey(name));
  }

  #event(event: MemberEventKind, id: MemberId, previous: MemberState | undefined, cause?: DeathCause): void {
    const member = this.ctx.table.view(id);
    this.ctx.emit(
      cause === undefined ? { type: 'member', event, member, previous } : { type: 'member', event, member, previous, cause },
    );
  }
}
