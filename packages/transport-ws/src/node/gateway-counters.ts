import { SPOOF_REASONS, type SpoofReason } from './verify.js';

export interface WsGatewayCounters {
  /** WebSocket connections accepted. */
  connections: number;
  /** Connections open now. */
  openConnections: number;
  /** Hellos answered with a welcome for a new relay. */
  welcomed: number;
  /** Hellos that took back a relay held for a reconnect (or replaced a stale connection) with the resume secret. */
  resumed: number;
  /** Missing or wrong join token (closed with 4001). */
  refusedToken: number;
  /** A name held by a live connection or held for a reconnect (closed with 4002). */
  refusedName: number;
  /** A resume secret for a relay that is gone (closed with 4003). */
  refusedResume: number;
  /** No hello within helloTimeoutMs (closed with 4005). */
  helloTimeouts: number;
  /** Messages dropped by the rate limit. */
  rateLimited: number;
  /** Connections closed for sustained traffic above the rate limit (4004). */
  rateLimitClosed: number;
  /** Client packets, requests and replies dropped because they speak for another member (or do not decode). */
  spoofDropped: number;
  readonly spoof: Record<SpoofReason, number>;
  /** Connections closed for frames that are not the framing (1008 / 1003). */
  malformed: number;
  /** Connections closed by `ws` for a message over maxMessageBytes (1009). */
  oversize: number;
  /** Other WebSocket protocol errors reported by `ws` (bad opcodes, invalid UTF-8, ...). */
  protocolErrors: number;
  /** Packets from clients sent out through their relays. */
  packetsIn: number;
  /** Packets arriving at relays forwarded to their clients. */
  packetsOut: number;
  /** Packets arriving at a relay whose client was disconnected or too far behind. */
  packetsDropped: number;
  /** Incoming relay streams forwarded to clients. */
  streamsIn: number;
  /** Incoming relay streams answered without a reply because the client was disconnected. */
  streamsRefused: number;
  /** Client requests performed by their relays. */
  streamsOut: number;
  /** Relays opened, closed, and closed because their reconnect grace ran out. */
  relaysOpened: number;
  relaysClosed: number;
  graceExpired: number;
  /** Relay sockets that could not be opened (closed with 4007). */
  relayFailures: number;
}

export function zeroWsGatewayCounters(): WsGatewayCounters {
  return {
    connections: 0,
    openConnections: 0,
    welcomed: 0,
    resumed: 0,
    refusedToken: 0,
    refusedName: 0,
    refusedResume: 0,
    helloTimeouts: 0,
    rateLimited: 0,
    rateLimitClosed: 0,
    spoofDropped: 0,
    spoof: Object.fromEntries(SPOOF_REASONS.map((r) => [r, 0])) as Record<SpoofReason, number>,
    malformed: 0,
    oversize: 0,
    protocolErrors: 0,
    packetsIn: 0,
    packetsOut: 0,
    packetsDropped: 0,
    streamsIn: 0,
    streamsRefused: 0,
    streamsOut: 0,
    relaysOpened: 0,
    relaysClosed: 0,
    graceExpired: 0,
    relayFailures: 0,
  };
}
