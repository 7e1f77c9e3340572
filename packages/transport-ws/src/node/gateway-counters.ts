import { SPOOF_REASONS, type SpoofReason } from './verify.js';

/** What a gateway has done since it started, as running counts (and `openConnections`, `bufferedBytes` as levels). */
export interface WsGatewayCounters {
  /** WebSocket connections accepted. */
  connections: number;
  /** Connections open now. */
  openConnections: number;
  /** WebSocket upgrades refused with HTTP 429: maxSessionsPerIp connections from that address are open. */
  refusedIpLimit: number;
  /** WebSocket upgrades refused with HTTP 503: maxSessions connections are open. */
  refusedCapacity: number;
  /** Hellos for a new relay refused with 4008: the address or the gateway holds its maximum of relays. */
  refusedSessions: number;
  /** Hellos answered with a welcome for a new relay. */
  welcomed: number;
  /** Hellos that took back a relay held for a reconnect (or replaced a stale connection) with the resume secret. */
  resumed: number;
  /** Hellos that moved a member here from another gateway (credential verified; welcomed with `moved`). Also counted in `welcomed`. */
  moved: number;
  /** Hellos with `from` whose credential was missing or did not verify (closed with 4010). */
  refusedMove: number;
  /** Missing or wrong join token (closed with 4001). */
  refusedToken: number;
  /** A name held by a live connection or held for a reconnect (closed with 4002). */
  refusedName: number;
  /** A resume secret for a relay that is gone (closed with 4003). */
  refusedResume: number;
  /** No hello within helloTimeoutMs (closed with 4005). */
  helloTimeouts: number;
  /** Relays released because their member had not joined within joinTimeoutMs (connection closed with 4009). */
  joinTimeouts: number;
  /** Messages dropped by the rate limit. */
  rateLimited: number;
  /** Connections closed for sustained traffic above the rate limit (4004). */
  rateLimitClosed: number;
  /** Client packets, requests and replies dropped because they speak for another member (or do not decode). */
  spoofDropped: number;
  /** `spoofDropped` by reason ({@link SPOOF_REASONS}). */
  readonly spoof: Record<SpoofReason, number>;
  /** Alive messages and push-pull entries taken out of client gossip: moves of other members this gateway neither admitted nor saw reach its relays from the cluster (foreign-moves.ts). */
  foreignMovesStripped: number;
  /** Client packets, requests and replies dropped whole for an incarnation at the wire's maximum (2^32-1). */
  maxIncarnationDropped: number;
  /** Suspect and dead messages and push-pull entries about the gateway's member (seedName) removed from client traffic. */
  gatewayAccusationsDropped: number;
  /** Connections closed for frames that are not the framing (1008 / 1003). */
  malformed: number;
  /** Connections closed by `ws` for a message over maxMessageBytes (1009). */
  oversize: number;
  /** Other WebSocket protocol errors reported by `ws` (bad opcodes, invalid UTF-8, ...). */
  protocolErrors: number;
  /** TLS handshakes that failed (wss:// only): a client that does not trust the certificate, or not TLS at all. */
  tlsHandshakeFailures: number;
  /** Packets from clients sent out through their relays. */
  packetsIn: number;
  /**
   * Of `packetsIn`, those addressed to another relay of this gateway (tab-to-tab gossip), handed to
   * it in-process instead of through two UDP sockets; they count in `packetsOut` (or
   * `packetsDropped`) at the receiving relay as if they had arrived there.
   */
  packetsShortCircuited: number;
  /** Packets arriving at relays forwarded to their clients. */
  packetsOut: number;
  /** Packets arriving at a relay whose client was disconnected or over its buffered-byte budget. */
  packetsDropped: number;
  /** Incoming relay streams forwarded to clients. */
  streamsIn: number;
  /** Incoming relay streams answered without a reply: client disconnected, over its budget, or maxStreamsPerSession open. */
  streamsRefused: number;
  /** Client requests performed by their relays. */
  streamsOut: number;
  /** Client requests failed at once: maxStreamsPerSession open, or over the buffered-byte budget. */
  requestsRefused: number;
  /** Results of client requests not delivered (replaced by a failure, or dropped) because the client is over its budget. */
  resultsDropped: number;
  /** Bytes the gateway holds for clients now (queued for their sockets, or their requests in flight). */
  bufferedBytes: number;
  /** Exceptions caught in a gateway callback (timer, socket, relay or option callback), reported to onError. */
  internalErrors: number;
  /** Relays opened (one per browser member that got a welcome). */
  relaysOpened: number;
  /** Relays closed, for any reason. */
  relaysClosed: number;
  /** Of `relaysClosed`, those closed because their client did not reconnect within the reconnect grace. */
  graceExpired: number;
  /** Relay sockets that could not be opened (closed with 4007). */
  relayFailures: number;
}

/** A {@link WsGatewayCounters} with every count at zero (a fresh gateway's). */
export function zeroWsGatewayCounters(): WsGatewayCounters {
  return {
    connections: 0,
    openConnections: 0,
    refusedIpLimit: 0,
    refusedCapacity: 0,
    refusedSessions: 0,
    welcomed: 0,
    resumed: 0,
    moved: 0,
    refusedMove: 0,
    refusedToken: 0,
    refusedName: 0,
    refusedResume: 0,
    helloTimeouts: 0,
    joinTimeouts: 0,
    rateLimited: 0,
    rateLimitClosed: 0,
    spoofDropped: 0,
    spoof: Object.fromEntries(SPOOF_REASONS.map((r) => [r, 0])) as Record<SpoofReason, number>,
    foreignMovesStripped: 0,
    maxIncarnationDropped: 0,
    gatewayAccusationsDropped: 0,
    malformed: 0,
    oversize: 0,
    protocolErrors: 0,
    tlsHandshakeFailures: 0,
    packetsIn: 0,
    packetsShortCircuited: 0,
    packetsOut: 0,
    packetsDropped: 0,
    streamsIn: 0,
    streamsRefused: 0,
    streamsOut: 0,
    requestsRefused: 0,
    resultsDropped: 0,
    bufferedBytes: 0,
    internalErrors: 0,
    relaysOpened: 0,
    relaysClosed: 0,
    graceExpired: 0,
    relayFailures: 0,
  };
}
