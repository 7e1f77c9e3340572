/**
 * @swim/transport-ws: members in a browser. The root entry is browser-safe (standard WebSocket API
 * only): `connectWsTransport` connects to a gateway, whose per-member relay socket is the member's
 * address in a UDP cluster. The gateway and a Node client live in `@swim/transport-ws/node`.
 *
 * @packageDocumentation
 */
export {
  connectWsTransport,
  WsTransport,
  WsConnectError,
  type WsTransportOptions,
  type WsTransportState,
} from './client/ws-transport.js';
export type { ReconnectOptions } from './client/reconnect.js';
export { zeroWsClientCounters, type WsClientCounters, type WsDropCause } from './client/counters.js';
export { leaveOnPageHide, type LeavingMember, type PageHideTarget } from './client/page-hide.js';
export { leaveOnFreeze, type FreezeTarget, type LeaveOnFreezeOptions } from './client/page-lifecycle.js';
export type { WebSocketLike, WebSocketConstructor } from './client/websocket.js';
export { WS_CLOSE, PROTOCOL_VERSION } from './protocol/framing.js';
