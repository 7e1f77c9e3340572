/**
 * @packageDocumentation
 * @swim/transport-ws/node: the gateway (Node only, on the `ws` package) and a Node client whose
 * WebSocket defaults to `ws`'s (Node 20 has no global WebSocket). Re-exports the root entry.
 */
import { WebSocket } from 'ws';
import { connectWsTransport as connectWith, type WsTransport, type WsTransportOptions } from '../client/ws-transport.js';
import type { WebSocketConstructor } from '../client/websocket.js';

export * from '../index.js';
export { createWsGateway, type WsGateway } from './gateway.js';
export type { GatewayEncryptionOptions, WsGatewayOptions } from './gateway-options.js';
export type { GatewayTlsOptions } from './tls.js';
export { zeroWsGatewayCounters, type WsGatewayCounters } from './gateway-counters.js';
export type { RateLimitOptions } from './rate-limit.js';
export type { SessionInfo } from './gateway-server.js';
export { checkClientBytes, SPOOF_REASONS, type SpoofReason } from './verify.js';
export { MAX_INCARNATION } from './gossip-guard.js';

/** The root entry's `connectWsTransport`, with `WebSocket` defaulting to the `ws` package's. */
export function connectWsTransport(options: WsTransportOptions): Promise<WsTransport> {
  return connectWith({ ...options, WebSocket: options.WebSocket ?? (WebSocket as unknown as WebSocketConstructor) });
}
