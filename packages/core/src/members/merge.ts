import type { MemberState } from './member.js';
import { bytesEqual } from '../support/bytes.js';

/**
 * The merge rules: what a membership update does to what we know. One pure function per message
 * kind, table-tested. They follow memberlist's aliveNode / suspectNode / deadNode (state.go) with one deliberate change: at any incarnation the rules form a total order,
 * (incarnation, rank) with rank alive < suspect < dead < left, so that any permutation or
 * duplication of updates converges to the same view (SWIM §4.2's override rules, completed).
 * Where memberlist differs it is order-dependent:
 * - suspect(i) about a member we hold dead/left at j < i: memberlist ignores it; we take it (the
 *   member came back at i and is suspected again);
 * - suspect(i) about a member already suspect at j < i: memberlist only confirms; we suspect it
 *   afresh at i (the member refuted j with i, so the timer counting since j no longer applies);
 * - left(i) about a member dead at i: memberlist ignores it; we record the leave. This is also how
 *   a force-leave spreads on @swim's wire (SwimCore.forceLeave): Serf's handleNodeLeaveIntent moves
 *   a failed member to left on every member so that none reconnects to it, and a dead message from
 *   the member itself at the incarnation it died at, winning over dead at that incarnation, says
 *   the same in memberlist's own terms. A live member that hears such a message about itself
 *   refutes it as any accusation (decideDead `refute`), so a forged one does not stick;
 * - dead(i) about a member dead at j < i: memberlist ignores it; we raise the incarnation.
 * And one addition memberlist has no counterpart for: a member may move to a new address
 * (docs/design.md, "A member moves"). Its alive names the address it moved from (`movedFrom`), and a
 * member holding it there, at an older incarnation and not left, takes the new address instead of
 * reporting memberlist's "Conflicting address". A member that missed a move in between takes a
 * newer one while it holds the member suspect or dead.
 */
export const STATE_RANK: Readonly<Record<MemberState, number>> = { alive: 0, suspect: 1, dead: 2, left: 3 };

/** An incarnation and a state: what {@link supersedes} compares. */
export interface Versioned {
  /** The member's incarnation (uint32); only the member itself raises it. */
  readonly incarnation: number;
  /** Its state; at one incarnation the ranks are alive < suspect < dead < left ({@link STATE_RANK}). */
  readonly state: MemberState;
}

/** True when `next` overrides `current`: a higher incarnation, or the same one with a higher rank. */
export function supersedes(next: Versioned, current: Versioned): boolean {
  if (next.incarnation !== current.incarnation) return next.incarnation > current.incarnation;
  return STATE_RANK[next.state] > STATE_RANK[current.state];
}

/** What we hold about the member an update names (undefined if unknown). */
export interface KnownMember extends Versioned {
  /** The address we hold for it; an update from another address is a conflict or a reclaim. */
  readonly address: string;
  /** The metadata we hold for it. */
  readonly meta: Uint8Array;
  /** When its state last changed, monotonic ms; the reclaim delays count from it. */
  readonly stateChangedAt: number;
  /** The address it announced it moved from, when we applied such a move; news from there older than the move is old news. */
  readonly movedFrom?: string | undefined;
}

/** Facts about ourselves and the moment the rules need. */
export interface MergeContext {
  /** Our own name: updates about it are refuted or ignored, never applied. */
  readonly selfName: string;
  /** We called leave: alive messages about us must not bring us back (memberlist hasLeft). */
  readonly leaving: boolean;
  /** The current time, monotonic ms. */
  readonly now: number;
  /** memberlist DeadNodeReclaimTime; 0 = a dead member's name is never taken by another address. */
  readonly deadNodeReclaimMs: number;
  /** A left member's name may be taken by another address after this long (memberlist: at once, 0). */
  readonly leftNameReclaimMs: number;
  /** Updates about a known member more than this above the incarnation we hold are forged; 0 = no bound. */
  readonly maxIncarnationJump: number;
}

/** Incarnations are uint32 on the wire (memberlist's are too). */
export const MAX_INCARNATION = 0xffff_ffff;

/**
 * True when an update claims an incarnation implausibly far above the one we hold. Only a member
 * raises its own incarnation, one step per refutation or metadata update, so a jump of more than
 * `maxIncarnationJump` is forged (or from a life so long ago that reaping is the way back): taking
 * it would let one packet push a member to the top of the range, where it can no longer refute.
 */
export function implausibleJump(incarnation: number, current: Versioned | undefined, ctx: MergeContext): boolean {
  return current !== undefined && ctx.maxIncarnationJump > 0 && incarnation - current.incarnation > ctx.maxIncarnationJump;
}

/**
 * The incarnation a member restarted from a snapshot starts at: one above `last`, the last one it
 * announced in its previous life, so that its first alive outvotes a dead or suspect verdict
 * peers hold about that life (alive needs a strictly higher incarnation, SWIM §4.2). At the top of
 * the range, a new life at 1, as a refutation that finds the range exhausted.
 */
export function resumeIncarnation(last: number): number {
  if (!Number.isInteger(last) || last < 0 || last > MAX_INCARNATION) {
    throw new RangeError(`last incarnation must be an integer from 0 to ${MAX_INCARNATION}, got ${String(last)}`);
  }
  return last >= MAX_INCARNATION ? 1 : last + 1;
}

/** A decision every kind of update can come to: refute what is said about us (memberlist refute). */
export interface RefuteDecision {
  /** The core announces our alive at an incarnation above the update's. */
  readonly kind: 'refute';
}

/** A decision every kind of update can come to: an incarnation implausibly far above what we hold ({@link implausibleJump}). */
export interface ImplausibleDecision {
  /** The core drops the update and counts it in `implausibleUpdates`. */
  readonly kind: 'implausible';
}

/** A decision every kind of update can come to: nothing changes. */
export interface IgnoreDecision {
  /** The core drops the update. */
  readonly kind: 'ignore';
}

/** What an alive message does to what we hold ({@link decideAlive}). */
export type AliveDecision =
  /** Unknown member: add it (memberlist inserts it at a random probe position). */
  | {
      /** The core admits it if the table and its source's budget allow, gossips it and emits a `join` event. */
      readonly kind: 'create';
    }
  /** Known member, newer incarnation (or a permitted address takeover): take it. */
  | {
      /**
       * The core takes the incarnation, meta and address, drops any suspicion and gossips the update.
       * It emits `join` if the member was down; otherwise `alive` if it was suspect, and `update` if
       * its meta or address changed.
       */
      readonly kind: 'apply';
      /**
       * True when the name moves to the update's address: a dead member's after `deadNodeReclaimMs`,
       * a left one's after `leftNameReclaimMs`, or a member that announced its move (`moved`).
       */
      readonly readdress: boolean;
      /** The member announced the move (the update names `movedFrom`): remember and gossip `movedFrom` with it. */
      readonly moved?: true;
    }
  /** About us with different meta or a newer incarnation: raise ours above it. */
  | RefuteDecision
  /**
   * About us, claiming we moved away from our address (a forgery, or a life of ours we do not
   * know): move back, our alive above its incarnation at our own address with `movedFrom` its address.
   */
  | {
      /** The core refutes as for `refute`, its alive naming the update's address as the one we moved from. */
      readonly kind: 'refute-move';
    }
  /** Same name from another address (memberlist "Conflicting address"): drop and report. */
  | {
      /** The core keeps what it holds and emits a `conflict` effect. */
      readonly kind: 'conflict';
    }
  | ImplausibleDecision
  /**
   * About another member we hold dead or left at an incarnation this alive does not override: it
   * may be running again (a restart comes back at incarnation 1) without knowing it is held down.
   */
  | {
      /** The core ignores it (memberlist aliveNode), and with `answerStaleAlive` / `regossipStaleAccusation` passes the accusation on. */
      readonly kind: 'stale';
    }
  /** Old or repeated news, our own alive echoed back, or about us after we left. */
  | IgnoreDecision;

/**
 * memberlist aliveNode, steps 1, 4, 5, 6 and 8, with the left-name delay, the jump bound and
 * announced moves; `stale` marks what step 8 drops about a member held down.
 */
export function decideAlive(
  update: { readonly incarnation: number; readonly address: string; readonly meta: Uint8Array; readonly node: string; readonly movedFrom?: string | undefined },
  current: KnownMember | undefined,
  ctx: MergeContext,
): AliveDecision {
  const aboutSelf = update.node === ctx.selfName;
  if (aboutSelf && ctx.leaving) return IGNORE;
  if (current === undefined) return aboutSelf ? IGNORE : CREATE;
  if (implausibleJump(update.incarnation, current, ctx)) return IMPLAUSIBLE;
  if (update.address !== current.address) {
    // A move the member announced, newer than what we hold: only the member raises its
    // incarnation, so the one at the address we hold says it went (a left member stays left).
    if (update.movedFrom === current.address && update.incarnation > current.incarnation && current.state !== 'left') {
      return aboutSelf ? REFUTE_MOVE : MOVE;
    }
    // A newer move from an address we never held: we missed a move before it (we were cut off while
    // the member moved twice, or a move's gossip passed us by). Taken while the member does not
    // answer where we hold it (suspect or dead): a live member there keeps the name (a conflict),
    // and a claim that we moved is undone as above, wherever it says we moved from.
    if (update.movedFrom !== undefined && update.incarnation > current.incarnation && (aboutSelf || current.state === 'suspect' || current.state === 'dead')) {
      return aboutSelf ? REFUTE_MOVE : MOVE;
    }
    // Older news about a member that moved (ourselves included), from the address it left or one
    // before: its life before the move we applied, still in flight or held by a member that missed
    // the move, not a second member of the name (which would soon outbid our incarnation).
    if (current.movedFrom !== undefined && update.incarnation < current.incarnation) return IGNORE;
    // A down member's name may move to another address once its reclaim time has passed: for a
    // dead one memberlist DeadNodeReclaimTime (0 = never), for a left one leftNameReclaimMs
    // (memberlist: at once, which lets a forged leave followed by an alive take the name over
    // before the member can refute the leave).
    const since = ctx.now - current.stateChangedAt;
    const reclaimable =
      !aboutSelf &&
      ((current.state === 'left' && since >= ctx.leftNameReclaimMs) ||
        (current.state === 'dead' && ctx.deadNodeReclaimMs > 0 && since > ctx.deadNodeReclaimMs));
    return reclaimable ? READDRESS : CONFLICT;
  }
  if (aboutSelf) {
    if (update.incarnation < current.incarnation) return IGNORE;
    // Equal incarnation and equal meta is our own alive echoed back; anything else must be outvoted.
    if (update.incarnation === current.incarnation && bytesEqual(update.meta, current.meta)) return IGNORE;
    return REFUTE;
  }
  if (supersedes({ incarnation: update.incarnation, state: 'alive' }, current)) return APPLY;
  return current.state === 'dead' || current.state === 'left' ? STALE : IGNORE;
}

/** What a suspect message does to what we hold ({@link decideSuspect}). */
export type SuspectDecision =
  /** Start suspecting: state suspect, suspicion timer armed, update re-gossiped. */
  | {
      /** The core also emits a `suspect` event (a `join` event if the member was dead or left). */
      readonly kind: 'suspect';
    }
  /** Already suspect at this incarnation: count `from` as a confirmation (Lifeguard §IV.B). */
  | {
      /** A new, distinct confirmer shortens the timer, and the core gossips the update on; no event. */
      readonly kind: 'confirm';
    }
  /**
   * Already suspect, at an older incarnation: the member refuted that accusation (with this
   * incarnation or a lower one) and is accused again. A new suspicion at the new incarnation, its
   * timer from now: the old timer would otherwise judge the new accusation, and the member's own
   * refutation at this incarnation, arriving after, could no longer clear it.
   */
  | {
      /** The core gossips the update and restarts the timer; no event (the member was suspect already). */
      readonly kind: 'resuspect';
    }
  /** About us, at our incarnation or above, while we have not left. */
  | RefuteDecision
  | ImplausibleDecision
  /** Unknown member, older incarnation, no news, or about us after we left. */
  | IgnoreDecision;

/** memberlist suspectNode, with the jump bound. */
export function decideSuspect(
  update: { readonly incarnation: number; readonly node: string },
  current: KnownMember | undefined,
  ctx: MergeContext,
): SuspectDecision {
  if (current === undefined || update.incarnation < current.incarnation) return IGNORE;
  if (implausibleJump(update.incarnation, current, ctx)) return IMPLAUSIBLE;
  if (update.node === ctx.selfName) {
    // We never suspect ourselves; once leaving, accusations no longer matter.
    return ctx.leaving ? IGNORE : REFUTE;
  }
  if (current.state === 'suspect') return update.incarnation > current.incarnation ? RESUSPECT : CONFIRM;
  return supersedes({ incarnation: update.incarnation, state: 'suspect' }, current) ? SUSPECT : IGNORE;
}

/** What a dead message does to what we hold ({@link decideDead}). */
export type DeadDecision =
  /** Record the death (state dead) or the graceful leave (state left, when from === node). */
  | {
      /**
       * The core drops any suspicion and RTTs, gossips the update, and emits a `dead` or `left` event
       * unless the member was down already.
       */
      readonly kind: 'apply';
      /** `left` when the message's `from` is the member itself, else `dead`. */
      readonly state: 'dead' | 'left';
    }
  /** About us, at our incarnation or above, while we have not left. */
  | RefuteDecision
  | ImplausibleDecision
  /** Unknown member, older incarnation, no news, or about us after we left. */
  | IgnoreDecision;

/** memberlist deadNode, with the jump bound. A dead message whose sender is the member itself means "left". */
export function decideDead(
  update: { readonly incarnation: number; readonly node: string; readonly from: string },
  current: KnownMember | undefined,
  ctx: MergeContext,
): DeadDecision {
  if (current === undefined || update.incarnation < current.incarnation) return IGNORE;
  if (implausibleJump(update.incarnation, current, ctx)) return IMPLAUSIBLE;
  if (update.node === ctx.selfName) return ctx.leaving ? IGNORE : REFUTE;
  const state = update.from === update.node ? 'left' : 'dead';
  return supersedes({ incarnation: update.incarnation, state }, current) ? (state === 'left' ? APPLY_LEFT : APPLY_DEAD) : IGNORE;
}

/**
 * The incarnation a refutation announces (memberlist refute): one above both our own and the
 * accusation's, so the accusation is overridden everywhere. Undefined when that would leave the
 * uint32 range: the incarnation space is exhausted (see Membership.refute for the way back;
 * memberlist wraps to 0, which every peer then ignores).
 */
export function refutingIncarnation(own: number, accused: number): number | undefined {
  const next = Math.max(own, accused) + 1;
  return next > MAX_INCARNATION ? undefined : next;
}

const IGNORE = { kind: 'ignore' } as const;
const CREATE = { kind: 'create' } as const;
const APPLY = { kind: 'apply', readdress: false } as const;
const READDRESS = { kind: 'apply', readdress: true } as const;
const MOVE = { kind: 'apply', readdress: true, moved: true } as const;
const REFUTE_MOVE = { kind: 'refute-move' } as const;
const CONFLICT = { kind: 'conflict' } as const;
const STALE = { kind: 'stale' } as const;
const REFUTE = { kind: 'refute' } as const;
const IMPLAUSIBLE = { kind: 'implausible' } as const;
const SUSPECT = { kind: 'suspect' } as const;
const CONFIRM = { kind: 'confirm' } as const;
const RESUSPECT = { kind: 'resuspect' } as const;
const APPLY_DEAD = { kind: 'apply', state: 'dead' } as const;
const APPLY_LEFT = { kind: 'apply', state: 'left' } as const;
