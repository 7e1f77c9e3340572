import type { MemberState } from '../members/member.js';

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
  readonly type: 'ping';
  readonly seq: number;
  readonly target: string;
  readonly sourceName: string;
  readonly sourceAddress: string;
}

/** memberlist `indirectPingReq`: ask a helper to probe `target` on our behalf (SWIM §3.1). */
export interface PingReqMessage {
  readonly type: 'ping-req';
  readonly seq: number;
  readonly target: string;
  readonly targetAddress: string;
  /** Ask the helper for a nack if the target does not answer (Lifeguard §IV.A). */
  readonly nack: boolean;
  readonly sourceName: string;
  readonly sourceAddress: string;
}

export interface AckMessage {
  readonly type: 'ack';
  readonly seq: number;
  /** Optional payload of a direct ack (memberlist PingDelegate.AckPayload). Empty when none. */
  readonly payload: Uint8Array;
}

export interface NackMessage {
  readonly type: 'nack';
  readonly seq: number;
}

export interface SuspectMessage {
  readonly type: 'suspect';
  readonly incarnation: number;
  readonly node: string;
  readonly from: string;
}

export interface AliveMessage {
  readonly type: 'alive';
  readonly incarnation: number;
  readonly node: string;
  readonly address: string;
  readonly meta: Uint8Array;
}

/** A dead message whose `from` equals `node` announces a graceful leave. */
export interface DeadMessage {
  readonly type: 'dead';
  readonly incarnation: number;
  readonly node: string;
  readonly from: string;
}

/** One member's entry in a push-pull exchange (memberlist pushNodeState). */
export interface PushPullEntry {
  readonly name: string;
  readonly address: string;
  readonly meta: Uint8Array;
  readonly incarnation: number;
  readonly state: MemberState;
}

/** Full-state anti-entropy exchange over a stream (memberlist pushPull). */
export interface PushPullMessage {
  readonly type: 'push-pull';
  readonly join: boolean;
  readonly members: readonly PushPullEntry[];
  /** Opaque application state (memberlist Delegate.LocalState). Empty when none. */
  readonly userState: Uint8Array;
}

/**
 * A user broadcast, spread epidemically. A newer (version, origin) under the same key replaces
 * an older one in every queue it meets.
 */
export interface BroadcastMessage {
  readonly type: 'broadcast';
  readonly key: string;
  readonly origin: string;
  readonly version: number;
  readonly payload: Uint8Array;
}

/** A user message to one member (memberlist SendBestEffort / SendReliable). */
export interface UserMessage {
  readonly type: 'user';
  readonly from: string;
  readonly payload: Uint8Array;
}

/** A stream reply reporting why a request was refused (memberlist errResp). */
export interface ErrorMessage {
  readonly type: 'error';
  readonly message: string;
}

export type MessageType = Message['type'];
