import type { MemberState } from './member.js';
import { bytesEqual } from '../support/bytes.js';

/**
 * The merge rules: what a membership update does to what we know. One pure function per message
 * kind, table-tested. They follow memberlist's aliveNode / suspectNode / deadNode (state.go, reference
 * §2.2–2.4) with one deliberate change: at any incarnation the rules form a total order,
 * (incarnation, rank) with rank alive < suspect < dead < left, so that any permutation or
 * duplication of updates converges to the same view (SWIM §4.2's override rules, completed).
 * Where memberlist differs it is order-dependent:
 * - suspect(i) about a member we hold dead/left at j < i: memberlist ignores it; we take it (the
 *   member came back at i and is suspected again);
 * - suspect(i) about a member already suspect at j < i: memberlist only confirms; we confirm and
 *   raise the incarnation to i;
 * - left(i) about a member dead at i: memberlist ignores it; we record the graceful leave;
 * - dead(i) about a member dead at j < i: memberlist ignores it; we raise the incarnation.
 */
export const STATE_RANK: Readonly<Record<MemberState, number>> = { alive: 0, suspect: 1, dead: 2, left: 3 };

export interface Versioned {
  readonly incarnation: number;
  readonly state: MemberState;
}

/** True when `next` overrides `current`: a higher incarnation, or the same one with a higher rank. */
export function supersedes(next: Versioned, current: Versioned): boolean {
  if (next.incarnation !== current.incarnation) return next.incarnation > current.incarnation;
  return STATE_RANK[next.state] > STATE_RANK[current.state];
}

/** What we hold about the member an update names (undefined if unknown). */
export interface KnownMember extends Versioned {
  readonly address: string;
  readonly meta: Uint8Array;
  readonly stateChangedAt: number;
}

/** Facts about ourselves and the moment the rules need. */
export interface MergeContext {
  readonly selfName: string;
  /** We called leave: alive messages about us must not bring us back (memberlist hasLeft). */
  readonly leaving: boolean;
  readonly now: number;
  /** memberlist DeadNodeReclaimTime; 0 = a dead member's name is never taken by another address. */
  readonly deadNodeReclaimMs: number;
}

export type AliveDecision =
  /** Unknown member: add it (memberlist inserts it at a random probe position). */
  | { readonly kind: 'create' }
  /** Known member, newer incarnation (or a permitted address takeover): take it. */
  | { readonly kind: 'apply'; readonly readdress: boolean }
  /** About us with different meta or a newer incarnation: raise ours above it. */
  | { readonly kind: 'refute' }
  /** Same name from another address (memberlist "Conflicting address"): drop and report. */
  | { readonly kind: 'conflict' }
  | { readonly kind: 'ignore' };

/** memberlist aliveNode (§2.2), steps 1, 4, 5, 6 and 8. */
export function decideAlive(
  update: { readonly incarnation: number; readonly address: string; readonly meta: Uint8Array; readonly node: string },
  current: KnownMember | undefined,
  ctx: MergeContext,
): AliveDecision {
  const aboutSelf = update.node === ctx.selfName;
  if (aboutSelf && ctx.leaving) return IGNORE;
  if (current === undefined) return aboutSelf ? IGNORE : CREATE;
  if (update.address !== current.address) {
    // A left member's name is free at once; a dead one's only after the reclaim time (§2.7).
    const reclaimable =
      !aboutSelf &&
      (current.state === 'left' ||
        (current.state === 'dead' && ctx.deadNodeReclaimMs > 0 && ctx.now - current.stateChangedAt > ctx.deadNodeReclaimMs));
    return reclaimable ? READDRESS : CONFLICT;
  }
  if (aboutSelf) {
    if (update.incarnation < current.incarnation) return IGNORE;
    // Equal incarnation and equal meta is our own alive echoed back; anything else must be outvoted.
    if (update.incarnation === current.incarnation && bytesEqual(update.meta, current.meta)) return IGNORE;
    return REFUTE;
  }
  return supersedes({ incarnation: update.incarnation, state: 'alive' }, current) ? APPLY : IGNORE;
}

export type SuspectDecision =
  /** Start suspecting: state suspect, suspicion timer armed, update re-gossiped. */
  | { readonly kind: 'suspect' }
  /** Already suspect: count `from` as a confirmation (Lifeguard §IV.B); raise the incarnation if newer. */
  | { readonly kind: 'confirm' }
  | { readonly kind: 'refute' }
  | { readonly kind: 'ignore' };

/** memberlist suspectNode (§2.3). */
export function decideSuspect(
  update: { readonly incarnation: number; readonly node: string },
  current: KnownMember | undefined,
  ctx: MergeContext,
): SuspectDecision {
  if (current === undefined || update.incarnation < current.incarnation) return IGNORE;
  if (update.node === ctx.selfName) {
    // We never suspect ourselves; once leaving, accusations no longer matter.
    return ctx.leaving ? IGNORE : REFUTE;
  }
  if (current.state === 'suspect') return CONFIRM;
  return supersedes({ incarnation: update.incarnation, state: 'suspect' }, current) ? SUSPECT : IGNORE;
}

export type DeadDecision =
  /** Record the death (state dead) or the graceful leave (state left, when from === node). */
  | { readonly kind: 'apply'; readonly state: 'dead' | 'left' }
  | { readonly kind: 'refute' }
  | { readonly kind: 'ignore' };

/** memberlist deadNode (§2.4). A dead message whose sender is the member itself means "left". */
export function decideDead(
  update: { readonly incarnation: number; readonly node: string; readonly from: string },
  current: KnownMember | undefined,
  ctx: MergeContext,
): DeadDecision {
  if (current === undefined || update.incarnation < current.incarnation) return IGNORE;
  if (update.node === ctx.selfName) return ctx.leaving ? IGNORE : REFUTE;
  const state = update.from === update.node ? 'left' : 'dead';
  return supersedes({ incarnation: update.incarnation, state }, current) ? (state === 'left' ? APPLY_LEFT : APPLY_DEAD) : IGNORE;
}

/**
 * The incarnation a refutation announces (memberlist refute): one above both our own and the
 * accusation's, so the accusation is overridden everywhere.
 */
export function refutingIncarnation(own: number, accused: number): number {
  return Math.max(own, accused) + 1;
}

const IGNORE = { kind: 'ignore' } as const;
const CREATE = { kind: 'create' } as const;
const APPLY = { kind: 'apply', readdress: false } as const;
const READDRESS = { kind: 'apply', readdress: true } as const;
const CONFLICT = { kind: 'conflict' } as const;
const REFUTE = { kind: 'refute' } as const;
const SUSPECT = { kind: 'suspect' } as const;
const CONFIRM = { kind: 'confirm' } as const;
const APPLY_DEAD = { kind: 'apply', state: 'dead' } as const;
const APPLY_LEFT = { kind: 'apply', state: 'left' } as const;
