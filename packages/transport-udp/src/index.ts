/**
 * @swim/transport-udp: the @swim/runtime transport for Node, memberlist style: UDP datagrams for
 * packets, TCP connections (one framed request, at most one reply; length-prefixed unless another
 * `streamFraming` is given) for streams, both on one port number.
 *
 * @packageDocumentation
 */
export { createUdpTransport, UdpTransport } from './udp-transport.js';
export { validate as validateUdpTransportOptions, type UdpTransportOptions } from './options.js';
export { zeroUdpCounters, type UdpCounters, type UdpDropCause } from './counters.js';
export { udpTransportMetrics } from './metrics.js';
export { RECEIVE_DRAIN_MAX_SOURCE_SHARE, RECEIVE_GAP_MS, RECEIVE_MAX_WAIT_MS, RECEIVE_SLICE_MS } from './receive-pacer.js';
export { formatAddress, parseAddress, type HostPort } from './address.js';
export { resolveAddress, type Lookup } from './resolve.js';
export {
  encodeFrame,
  FrameReader,
  FRAME_HEADER_BYTES,
  lengthPrefixFraming,
  type FrameReadResult,
  type StreamFrameReader,
  type StreamFraming,
} from './framing.js';
export type { ByteBudget } from './stream-budget.js';
