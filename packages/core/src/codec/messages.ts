import type { MemberState } from '../members/member.js';
import type { ProtocolRange } from './protocol-range.js';

/**
 * Every message of the protocol. Field meanings follow memberlist's structs (net.go) where one
 * exists; names are ours. Addresses are opaque strings understood by the transport.
 */
export type Message =
  | PingMessage
  | PingReqMessage
  | AckMessage
  | NackMessage
  | SuspectMessage
  | AliveMessage
  | DeadMessage
  | PushPullMessage
  | BroadcastMessage
  | UserMessage
  | ErrorMessage;

/** memberlist `ping`: a direct probe; `target` guards against a restart under a new name. */
export interface PingMessage {
  /** Discriminant of {@link Message}; its wire code is in {@link MESSAGE_TYPE_CODES}. */
  readonly type: 'ping';
  /** Sequence number (uint32, wraps) that the ack echoes (memberlist `SeqNo`). */
  readonly seq: number;
  /** Name of the member the sender means to reach; a member of another name ignores the ping. */
  readonly target: string;
  /** Name of the sender: the prober, or a helper carrying out a ping-req. */
  readonly sourceName: string;
  /**
   * Address to answer at; empty means the packet's source. The ack goes there only if it is the
   * packet's source or the address we hold for `sourceName`.
   */
  readonly sourceAddress: string;
}

/** memberlist `indirectPingReq`: ask a helper to probe `target` on our behalf (SWIM §3.1). */
export interface PingReqMessage {
  /** Discriminant of {@link Message}; its wire code is in {@link MESSAGE_TYPE_CODES}. */
  readonly type: 'ping-req';
  /** The prober's sequence number: the relayed ack or the nack carries it back. */
  readonly seq: number;
  /** Name of the member to probe. */
  readonly target: string;
  /** Address of the member to probe; the helper refuses unless it holds `target` at this address. */
  readonly targetAddress: string;
  /** Ask the helper for a nack if the target does not answer (Lifeguard §IV.A). */
  readonly nack: boolean;
  /** Name of the prober; a helper relays only for a member it holds at the packet's source. */
  readonly sourceName: string;
  /** Address of the prober; empty means the packet's source. */
  readonly sourceAddress: string;
}

/** memberlist `ackResp`: the answer to a ping, sent by its target or relayed by a ping-req helper. */
export interface AckMessage {
  /** Discriminant of {@link Message}; its wire code is in {@link MESSAGE_TYPE_CODES}. */
  readonly type: 'ack';
  /** The `seq` of the ping answered; a helper relays it with the prober's own `seq`. */
  readonly seq: number;
  /** Optional payload of a direct ack (memberlist PingDelegate.AckPayload). Empty when none. */
  readonly payload: Uint8Array;
}

/**
 * memberlist `nackResp`: a ping-req helper heard nothing from the target (Lifeguard §IV.A). Sent at
 * `nackTimeoutRatio` of the probe timeout (at once when the helper cannot vouch for the target), so
 * the prober knows the helper itself is reachable.
 */
export interface NackMessage {
  /** Discriminant of {@link Message}; its wire code is in {@link MESSAGE_TYPE_CODES}. */
  readonly type: 'nack';
  /** The `seq` of the ping-req. */
  readonly seq: number;
}

/** memberlist `suspect`: `from` suspects `node` at `incarnation` (SWIM §4.2). */
export interface SuspectMessage {
  /** Discriminant of {@link Message}; its wire code is in {@link MESSAGE_TYPE_CODES}. */
  readonly type: 'suspect';
  /** The incarnation of `node` accused (uint32); a refutation must announce a higher one. */
  readonly incarnation: number;
  /** Name of the suspected member. */
  readonly node: string;
  /** Name of the accuser; each distinct accuser shortens the suspicion timer (Lifeguard §IV.B). */
  readonly from: string;
}

/**
 * memberlist `alive`: `node` is alive at `incarnation`, reachable at `address`, with `meta`. Sent
 * when a member starts, refutes an accusation or changes its metadata.
 */
export interface AliveMessage {
  /** Discriminant of {@link Message}; its wire code is in {@link MESSAGE_TYPE_CODES}. */
  readonly type: 'alive';
  /** The member's incarnation (uint32); only the member itself raises it. */
  readonly incarnation: number;
  /** Name of the member. */
  readonly node: string;
  /** Address the member is reached at. */
  readonly address: string;
  /** The member's metadata; one larger than the receiver's `metaMaxBytes` is dropped. */
  readonly meta: Uint8Array;
  /**
   * The protocol versions the member speaks, when the sender knows them and writes protocol
   * version 2 or later (protocol-range.ts); absent otherwise.
   */
  readonly protocol?: ProtocolRange;
  /**
   * The address the member announces it moved away from (docs/design.md, "A member moves"): a
   * member holding it there takes `address` instead of reporting a conflict, when the incarnation
   * is newer. On the wire it follows the range, so it travels only with one (version 2 on); a
   * message without `protocol` is written without it.
   */
  readonly movedFrom?: string;
}

/** A dead message whose `from` equals `node` announces a graceful leave. */
export interface DeadMessage {
  /** Discriminant of {@link Message}; its wire code is in {@link MESSAGE_TYPE_CODES}. */
  readonly type: 'dead';
  /** The incarnation of `node` declared dead (uint32). */
  readonly incarnation: number;
  /** Name of the member. */
  readonly node: string;
  /** Name of the member that declared the death; equal to `node` for a leave. */
  readonly from: string;
}

/** One member's entry in a push-pull exchange (memberlist pushNodeState). */
export interface PushPullEntry {
  /** The member's name. */
  readonly name: string;
  /** Its address. */
  readonly address: string;
  /** Its metadata. */
  readonly meta: Uint8Array;
  /** Its incarnation (uint32). */
  readonly incarnation: number;
  /**
   * Its state as the sender holds it. A `dead` entry about a member the receiver holds up only
   * makes it suspect (memberlist mergeState).
   */
  readonly state: MemberState;
  /** The protocol versions it speaks, when the sender knows them and writes version 2 or later. */
  readonly protocol?: ProtocolRange;
  /** The address it moved away from, as in {@link AliveMessage.movedFrom}; written only after a range. */
  readonly movedFrom?: string;
}

/** Full-state anti-entropy exchange over a stream (memberlist pushPull). */
export interface PushPullMessage {
  /** Discriminant of {@link Message}; its wire code is in {@link MESSAGE_TYPE_CODES}. */
  readonly type: 'push-pull';
  /** True when the exchange is part of a join; handed to the application with the user state. */
  readonly join: boolean;
  /** Every member the sender holds: itself, and dead and left members not yet reaped, included. */
  readonly members: readonly PushPullEntry[];
  /** Opaque application state (memberlist Delegate.LocalState). Empty when none. */
  readonly userState: Uint8Array;
}

/**
 * A user broadcast, spread epidemically. A newer (version, origin) under the same key replaces
 * an older one in every queue it meets.
 */
export interface BroadcastMessage {
  /** Discriminant of {@link Message}; its wire code is in {@link MESSAGE_TYPE_CODES}. */
  readonly type: 'broadcast';
  /** Invalidation key, at most {@link MAX_KEY_BYTES} UTF-8 bytes. */
  readonly key: string;
  /** Name of the member that broadcast it; breaks ties between equal versions. */
  readonly origin: string;
  /** Lamport-style: one above the highest the origin had seen for the key and sent under any key. */
  readonly version: number;
  /** The application bytes. */
  readonly payload: Uint8Array;
}

/** A user message to one member (memberlist SendBestEffort / SendReliable). */
export interface UserMessage {
  /** Discriminant of {@link Message}; its wire code is in {@link MESSAGE_TYPE_CODES}. */
  readonly type: 'user';
  /** Name of the sender, as the sender gives it. */
  readonly from: string;
  /** The application bytes. */
  readonly payload: Uint8Array;
}

/** A stream reply reporting why a request was refused (memberlist errResp). */
export interface ErrorMessage {
  /** Discriminant of {@link Message}; its wire code is in {@link MESSAGE_TYPE_CODES}. */
  readonly type: 'error';
  /** Why, as text for logs (at most 4096 UTF-16 code units). */
  readonly message: string;
}

/** The `type` of a {@link Message}, e.g. `'ping'`; {@link MESSAGE_TYPE_CODES} gives each its wire code. */
export type MessageType = Message['type'];
