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
  /** Discriminant of {@link Effect}. */
  readonly type: 'send-packet';
  /** Transport address to send to: a member's address, or the source of the packet being answered. */
  readonly to: string;
  /** The whole encoded packet, at most `maxPacketBytes`. The core never writes to it afterwards, so it may be queued. */
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
  /** Discriminant of {@link Effect}. */
  readonly type: 'stream-request';
  /** Names this request in the `stream-response` or `stream-failed` input; unique within one core. */
  readonly requestId: number;
  /** Why the stream is opened, for labels and metrics; the shell carries out every purpose the same way. */
  readonly purpose: StreamPurpose;
  /** Transport address to connect to. */
  readonly to: string;
  /** The request: one message, encoded with the codec's `encodeStream`. */
  readonly bytes: Uint8Array;
  /**
   * True: read one reply and report it. False (a reliable user message): write, close, and report
   * nothing; the core waits for no input.
   */
  readonly expectReply: boolean;
  /**
   * Give up after this many ms: `streamTimeoutMs` for push-pulls, joins and user messages; what is
   * left of the probe interval for a fallback ping.
   */
  readonly timeoutMs: number;
}

/** Answer a stream opened by a peer (`stream-request` input); `bytes` undefined means close without reply. */
export interface StreamReplyEffect {
  /** Discriminant of {@link Effect}. */
  readonly type: 'stream-reply';
  /** The `streamId` of the `stream-request` input being answered. */
  readonly streamId: number;
  /** The reply, encoded with the codec's `encodeStream`; undefined: close the stream without writing. */
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

/**
 * A member's state changed as this member sees it (memberlist EventDelegate NotifyJoin,
 * NotifyUpdate and NotifyLeave, plus `suspect` and `alive`). Also emitted for ourselves on
 * `leave` and `updateMeta`.
 */
export interface MemberEventEffect {
  /** Discriminant of {@link Effect}. */
  readonly type: 'member';
  /**
   * `join`: first seen, or back after dead or left; `update`: new meta or address; `suspect`;
   * `alive`: a suspicion was refuted; `dead`; `left`: a graceful leave.
   */
  readonly event: MemberEventKind;
  /** The member after the change. */
  readonly member: MemberView;
  /** State before the change; undefined for a member seen for the first time. */
  readonly previous: MemberState | undefined;
  /** How the death was decided; set on `dead` events only. */
  readonly cause?: DeathCause;
}

/** Outcome of one probe (memberlist probeNode). RTT only for direct acks, as memberlist's PingDelegate. */
export interface ProbeEffect {
  /** Discriminant of {@link Effect}. */
  readonly type: 'probe';
  /** Name of the probed member. */
  readonly target: string;
  /** True if an ack came before the (health-scaled) probe interval ended; false: the core suspects the target. */
  readonly ok: boolean;
  /**
   * `direct`: the target's own ack; `indirect`: relayed by a ping-req helper; `stream`: only the
   * fallback stream ping got through; `none`: the probe failed.
   */
  readonly via: 'direct' | 'indirect' | 'stream' | 'none';
  /** Direct acks only, late ones (after the indirect phase began) included. */
  readonly rttMs: number | undefined;
  /** How long this probe waited for the direct ack before asking helpers: `probeTimeoutMs`, or the
   * target's adaptive wait (`probeTimeoutMode` 'adaptive'). */
  readonly timeoutMs: number;
}

/** Local health score changed (Lifeguard LHM; memberlist metric memberlist.health.score). */
export interface HealthEffect {
  /** Discriminant of {@link Effect}. */
  readonly type: 'health';
  /** New score, from 0 (healthy) to `awarenessMaxMultiplier` − 1; the probe interval is scaled by score + 1. */
  readonly score: number;
  /** Score before the change. */
  readonly previous: number;
}

/**
 * An application message arrived (memberlist Delegate.NotifyMsg): another member's user broadcast,
 * delivered once per version, or a message sent to this member alone.
 */
export interface UserMessageEffect {
  /** Discriminant of {@link Effect}. */
  readonly type: 'user-message';
  /** Name of the sender: a broadcast's origin, or the name a direct message carries (not authenticated). */
  readonly from: string;
  /** The application bytes, as the sender passed them to `broadcast` or `sendUser`. */
  readonly payload: Uint8Array;
  /** Broadcast key, for user broadcasts; undefined for messages sent to this member alone. */
  readonly key: string | undefined;
}

/** Application state received in a push-pull (memberlist Delegate.MergeRemoteState). */
export interface UserStateEffect {
  /** Discriminant of {@link Effect}. */
  readonly type: 'user-state';
  /** Transport address of the peer: the stream's source when the peer asked, the address we contacted when we did. */
  readonly from: string;
  /** The peer's application state (memberlist Delegate.LocalState); never empty, as none is reported for an empty one. */
  readonly state: Uint8Array;
  /** True when the push-pull was part of a join (memberlist MergeRemoteState's `join`). */
  readonly join: boolean;
}

/** A broadcast queued with a token has been fully retransmitted or superseded (memberlist Broadcast.Finished). */
export interface BroadcastFinishedEffect {
  /** Discriminant of {@link Effect}. */
  readonly type: 'broadcast-finished';
  /** The token the broadcast was queued with: {@link LEAVE_TOKEN} for `leave`, `meta:<incarnation>` for `updateMeta`. */
  readonly token: string;
}

/**
 * A join ended: every seed address answered or failed (memberlist Join). The join succeeded when
 * `contacted` is not empty.
 */
export interface JoinFinishedEffect {
  /** Discriminant of {@link Effect}. */
  readonly type: 'join-finished';
  /** The `joinId` the join was started with. */
  readonly joinId: number;
  /** Seed addresses whose push-pull succeeded; their state is merged by the time this effect is emitted. */
  readonly contacted: readonly string[];
  /** `nameHolder`: the seed's cluster has a member of our name at that other address, so its state was not merged. */
  readonly failed: ReadonlyArray<{
    /** The seed address. */
    readonly address: string;
    /** Why: the stream failure the shell reported, a remote error, an undecodable or unexpected reply, or a name conflict. */
    readonly reason: string;
    /** Address at which the seed's cluster holds a live member of our name; set for a name conflict only. */
    readonly nameHolder?: string;
  }>;
}

/** Same name claimed from another address (memberlist ConflictDelegate.NotifyConflict). */
export interface ConflictEffect {
  /** Discriminant of {@link Effect}. */
  readonly type: 'conflict';
  /** The contested name; our own when a join found it taken. */
  readonly name: string;
  /** Address we hold for that name (our own address when the name is ours); we keep it. */
  readonly existingAddress: string;
  /** Address the other claim gives: an alive message's, or where the seed's cluster holds the name. */
  readonly otherAddress: string;
}

/** A packet or stream that could not be decoded; counted and dropped, state unchanged. */
export interface DecodeErrorEffect {
  /** Discriminant of {@link Effect}. */
  readonly type: 'decode-error';
  /** Transport address the bytes came from. */
  readonly from: string;
  /** What was wrong with them; its `detail` never echoes their contents. */
  readonly error: DecodeError;
}
