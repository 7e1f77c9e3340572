/**
 * `@swim/adapter-memberlist`: memberlist's wire format for `@swim` members, to join HashiCorp
 * memberlist and Serf clusters. The codec is pure (it runs inside the core); the stream framing
 * plugs into a transport that takes a `streamFraming`.
 *
 * @packageDocumentation
 */

// --- the codec ---
export { memberlistCodec, MAX_NESTING, MAX_MESSAGES_PER_PACKET, type MemberlistCodec } from './codec/memberlist-codec.js';
export { CODEC_DEFAULTS, type MemberlistCodecOptions, type ResolvedCodecOptions } from './codec/options.js';
export type { MemberlistWireCounters } from './codec/counters.js';
export { SERF_VSN, aliveVsnProblem, verifyProtocol, type Vsn, type VersionedEntry } from './codec/vsn.js';
export { crc32 } from './codec/crc32.js';
export { lzwCompress, lzwDecompress, type LzwResult } from './codec/lzw.js';
export { formatIpPort, parseIpPort, type IpPort } from './codec/ip.js';
export { MSG as MEMBERLIST_MESSAGE_TYPES } from './codec/message-types.js';
export { SERF_PING_VERSION, encodeSerfAckPayload, decodeSerfAckPayload } from './codec/serf-coordinate.js';

// --- stream framing ---
export { memberlistStreamFraming } from './framing/memberlist-framing.js';
export { MemberlistFrameReader } from './framing/memberlist-frame-reader.js';
export type { ByteBudget, FrameReadResult, StreamFrameReader, StreamFraming } from './framing/stream-framing.js';

// --- Serf ---
export { encodeTags, decodeTags } from './serf/tags.js';
export { SerfLayer, type SerfClocks, type SerfLayerOptions, type SerfLayerEventMap, type SerfUserEvent, type SerfCounters } from './serf/serf-layer.js';
export { SERF_MESSAGE, encodeLeaveIntent, encodeJoinIntent, encodeUserEvent, readSerfMessage, readPushPullClocks, type SerfMessage } from './serf/serf-messages.js';
export { serfQueryWire } from './serf/serf-query-wire.js';
export {
  decodeSerfFilter,
  decodeSerfQuery,
  decodeSerfQueryResponse,
  decodeSerfRelay,
  encodeSerfFilter,
  encodeSerfQuery,
  encodeSerfQueryResponse,
  encodeSerfRelay,
  MAX_QUERY_MESSAGE_BYTES,
  SERF_FILTER,
  type SerfRelayDestination,
} from './serf/serf-query-messages.js';
export {
  decodeConflictResponse,
  decodeKeyRequest,
  decodeKeyResponse,
  encodeConflictResponse,
  encodeKeyRequest,
  encodeKeyResponse,
  SERF_INTERNAL_QUERY,
  SERF_MEMBER_STATUS,
  type SerfKeyResponse,
  type SerfMemberRecord,
} from './serf/serf-internal-messages.js';
export { answerKeyQuery, KEY_QUERY_NAMES, type SerfKeyOp, type SerfKeyring } from './serf/serf-keyring.js';
export { collectKeyResponses, keyRequestPayload, type KeyQueryReplies, type SerfKeyReport } from './serf/serf-key-manager.js';
export { memberlistMetrics } from './metrics.js';
