/**
 * What the Serf RPC server asks of the agent behind it (agent/serf-backend.ts implements it over
 * a running `swim agent`, in either wire mode). Errors are Serf's texts: an operation that fails
 * rejects (or throws) with an Error whose message is what the client is told.
 */

/** A member as Serf's RPC lists it (ipc.go Member). */
export interface RpcMember {
  readonly name: string;
  /** The raw IP: 4 bytes for IPv4, 16 for IPv6 (Go net.IP). */
  readonly addr: Uint8Array;
  readonly port: number;
  readonly tags: Readonly<Record<string, string>>;
  /** Serf's MemberStatus names. */
  readonly status: 'alive' | 'leaving' | 'left' | 'failed' | 'none';
  /** memberlist protocol versions: min, max, current. */
  readonly protocol: readonly [number, number, number];
  /** Serf (delegate) protocol versions: min, max, current. */
  readonly delegate: readonly [number, number, number];
}

/** A membership event as `stream` sends it (serf MemberEvent). */
export interface RpcMemberEvent {
  readonly kind: 'member';
  readonly event: 'member-join' | 'member-leave' | 'member-failed' | 'member-update' | 'member-reap';
  readonly members: readonly RpcMember[];
}

/** A user event (serf UserEvent). */
export interface RpcUserEvent {
  readonly kind: 'user';
  readonly name: string;
  readonly payload: Uint8Array;
  readonly ltime: number;
  readonly coalesce: boolean;
}

/** A query this agent received (serf *Query), to be answered with `respond`. */
export interface RpcIncomingQuery {
  readonly kind: 'query';
  readonly name: string;
  readonly payload: Uint8Array;
  readonly ltime: number;
  /** Deadline, ms on Date.now()'s clock. */
  readonly deadline: number;
  /** Send the response; throws with Serf's text (already sent, past the deadline, too large). */
  respond(payload: Uint8Array): void;
}

export type RpcEvent = RpcMemberEvent | RpcUserEvent | RpcIncomingQuery;

/** The `query` command's parameters (serf QueryParam). */
export interface RpcQueryParams {
  readonly name: string;
  readonly payload: Uint8Array;
  readonly filterNodes: readonly string[];
  readonly filterTags: ReadonlyMap<string, string>;
  readonly requestAck: boolean;
  readonly relayFactor: number;
  /** 0: the default timeout. */
  readonly timeoutMs: number;
}

/** One ack or response to a query this agent asked. */
export type RpcQueryReply = { readonly type: 'ack'; readonly from: string } | { readonly type: 'response'; readonly from: string; readonly payload: Uint8Array };

/** A query in flight: its replies until the deadline. */
export interface RpcQueryStream {
  /** Deadline, ms on Date.now()'s clock: `done` is sent then. */
  readonly deadline: number;
  /** Acks and responses as they come; ends at the deadline or on close. */
  readonly replies: AsyncIterable<RpcQueryReply>;
  close(): void;
}

/** The body of a key command's reply (ipc.go keyResponse) and its error text. */
export interface RpcKeyResult {
  readonly messages: Readonly<Record<string, string>>;
  /** Only for list-keys: base64 key → members holding it. */
  readonly keys?: Readonly<Record<string, number>>;
  readonly numNodes: number;
  readonly numErr: number;
  readonly numResp: number;
  /** Serf's failure text ("1/3 nodes reported failure"), "" on success. */
  readonly error: string;
}

export type RpcKeyOp = 'install' | 'use' | 'remove' | 'list';

/** A Vivaldi coordinate (serf coordinate.Coordinate). */
export interface RpcCoordinate {
  readonly vec: readonly number[];
  readonly error: number;
  readonly adjustment: number;
  readonly height: number;
}

/** One line of the agent's log, with Serf's level. */
export interface RpcLogLine {
  readonly level: RpcLogLevel;
  /** The line as `serf monitor` prints it, without a newline. */
  readonly text: string;
}

export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERR'] as const;
export type RpcLogLevel = (typeof LOG_LEVELS)[number];

export interface SerfRpcBackend {
  /** Every member known, left and failed ones included (serf Members). */
  members(): RpcMember[];
  /** Join through these addresses; `num` contacted, `error` Serf's text when any failed ("" when none). */
  join(addresses: readonly string[], replay: boolean): Promise<{ readonly num: number; readonly error: string }>;
  /** Leave gracefully; resolves once the leave is done (then the server answers and the agent shuts down). */
  leave(): Promise<void>;
  /** Called after the `leave` reply was written: stop the agent. */
  shutdownAfterLeave(): void;
  forceLeave(node: string, prune: boolean): Promise<void>;
  userEvent(name: string, payload: Uint8Array, coalesce: boolean): void;
  query(params: RpcQueryParams): RpcQueryStream;
  /** The agent's own tags now. */
  tags(): Record<string, string>;
  setTags(tags: Readonly<Record<string, string>>): Promise<void>;
  keys(op: RpcKeyOp, key: string | undefined): Promise<RpcKeyResult>;
  /** serf `info` sections: agent, runtime, serf, tags... every value a string. */
  stats(): Record<string, Record<string, string>>;
  /** The cached coordinate of a node (own included); undefined when none. */
  coordinate(node: string): RpcCoordinate | undefined;
  /** Every event as it happens; returns the unsubscribe function. */
  subscribeEvents(listener: (event: RpcEvent) => void): () => void;
  /** The last lines (replayed to a new monitor, as Serf replays its 512) then every new one. */
  subscribeLogs(listener: (line: RpcLogLine) => void): () => void;
}
