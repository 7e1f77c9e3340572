import type { MemberState, MemberView } from './members/member.js';
import type { DecodeError } from './codec/codec.js';

/**
 * Everything the core asks of its shell, returned eagerly from every call as one union
 * (the "directive" of swift-cluster-membership, simplified). The shell executes them in order.
 */
export type Effect =
  | SendPacketEffect
  | StreamRequestEffect
  | StreamReplyEffect
  | MemberEventEffect
  | ProbeEffect
  | HealthEffect
  | UserMessageEffect
  | UserStateEffect
  | BroadcastFinishedEffect
  | JoinFinishedEffect
  | ConflictEffect
  | DecodeErrorEffect;

/** Send one best-effort packet (UDP datagram, WebSocket frame, simulated delivery). */
export interface SendPacketEffect {
  readonly type: 'send-packet';
  readonly to: string;
  readonly bytes: Uint8Array;
}

/** Why the core opened a stream; lets shells and simulators label traffic. */
export type StreamPurpose = 'push-pull' | 'join' | 'fallback-ping' | 'user';

/**
 * Open a stream to `to`, write `bytes`, and, when `expectReply`, read one reply; report the outcome
 * with a `stream-response` or `stream-failed` input carrying `requestId`. The shell MUST give up
 * after `timeoutMs` and report `stream-failed`.
 */
export interface StreamRequestEffect {
  readonly type: 'stream-request';
  readonly requestId: number;
  readonly purpose: StreamPurpose;
  readonly to: string;
  readonly bytes: Uint8Array;
  readonly expectReply: boolean;
  readonly timeoutMs: number;
}

/** Answer a stream opened by a peer (`stream-request` input); `bytes` undefined means close without reply. */
export interface StreamReplyEffect {
  readonly type: 'stream-reply';
  readonly streamId: number;
  readonly bytes: Uint8Array | undefined;
}

/**
 * Membership events. `suspect` and `alive` (alive again after suspicion) are reported although
 * memberlist's EventDelegate has no such events; users of other membership libraries asked for them (e.g. foca #34).
 */
export type MemberEventKind = 'join' | 'update' | 'suspect' | 'alive' | 'dead' | 'left';

/** How a dead verdict was reached, for metrics and the blackout study. */
export interface DeathCause {
  /** `timeout`: our own suspicion timer expired; `gossip`: a peer's dead message. */
  readonly kind: 'timeout' | 'gossip';
  /** Distinct confirmations our suspicion had when it expired (timeout only). */
  readonly confirmations: number;
  /** Who declared it (our name for timeouts). */
  readonly by: string;
}

export interface MemberEventEffect {
  readonly type: 'member';
  readonly event: MemberEventKind;
  readonly member: MemberView;
  /** State before the change; undefined for a member seen for the first time. */
  readonly previous: MemberState | undefined;
  readonly cause?: DeathCause;
}

/** Outcome of one probe (memberlist probeNode). RTT only for direct acks, as memberlist's PingDelegate. */
export interface ProbeEffect {
  readonly type: 'probe';
  readonly target: string;
  readonly ok: boolean;
  readonly via: 'direct' | 'indirect' | 'stream' | 'none';
  /** Direct acks only, late ones (after the indirect phase began) included. */
  readonly rttMs: number | undefined;
  /** How long this probe waited for the direct ack before asking helpers: `probeTimeoutMs`, or the
   * target's adaptive wait (`probeTimeoutMode` 'adaptive'). */
  readonly timeoutMs: number;
}

/** Local health score changed (Lifeguard LHM; memberlist metric memberlist.health.score). */
export interface HealthEffect {
  readonly type: 'health';
  readonly score: number;
  readonly previous: number;
}

export interface UserMessageEffect {
  readonly type: 'user-message';
  readonly from: string;
  readonly payload: Uint8Array;
  /** Broadcast key, for user broadcasts; undefined for messages sent to this member alone. */
  readonly key: string | undefined;
}

/** Application state received in a push-pull (memberlist Delegate.MergeRemoteState). */
export interface UserStateEffect {
  readonly type: 'user-state';
  readonly from: string;
  readonly state: Uint8Array;
  readonly join: boolean;
}

/** A broadcast queued with a token has been fully retransmitted or superseded (memberlist Broadcast.Finished). */
export interface BroadcastFinishedEffect {
  readonly type: 'broadcast-finished';
  readonly token: string;
}

export interface JoinFinishedEffect {
  readonly type: 'join-finished';
  readonly joinId: number;
  readonly contacted: readonly string[];
  /** `nameHolder`: the seed's cluster has a member of our name at that other address, so its state was not merged. */
  readonly failed: ReadonlyArray<{ readonly address: string; readonly reason: string; readonly nameHolder?: string }>;
}

/** Same name claimed from another address (memberlist ConflictDelegate.NotifyConflict). */
export interface ConflictEffect {
  readonly type: 'conflict';
  readonly name: string;
  readonly existingAddress: string;
  readonly otherAddress: string;
}

/** A packet or stream that could not be decoded; counted and dropped, state unchanged. */
export interface DecodeErrorEffect {
  readonly type: 'decode-error';
  readonly from: string;
  readonly error: DecodeError;
}
