/**
 * @swim/core: SWIM failure detection and dissemination with Lifeguard, as a pure state machine
 * with its wire codec. No clock, timers, randomness or I/O: a shell (see @swim/runtime) drives it.
 *
 * @packageDocumentation
 */
export { SwimCore, LEAVE_TOKEN, type SwimCoreOptions } from './core.js';
export type * from './effects.js';
export type { Input, PreloadedMember } from './inputs.js';
export type { Counters } from './counters.js';

export type { MemberCounts, MemberState, MemberView } from './members/member.js';
export { MEMBER_STATES, isDown } from './members/member.js';
export {
  supersedes,
  decideAlive,
  decideSuspect,
  decideDead,
  refutingIncarnation,
  resumeIncarnation,
  implausibleJump,
  MAX_INCARNATION,
  STATE_RANK,
  type AliveDecision,
  type SuspectDecision,
  type DeadDecision,
  type RefuteDecision,
  type ImplausibleDecision,
  type IgnoreDecision,
  type KnownMember,
  type MergeContext,
  type Versioned,
} from './members/merge.js';

export * from './config/index.js';

export { Awareness, HEALTH_DELTA, failedProbeDelta } from './lifeguard/awareness.js';
export { suspicionTimeoutMs, confirmationsWanted, remainingSuspicionMs } from './lifeguard/suspicion-timeout.js';
export { Suspicion, VERDICT_CHECKS, type SuspicionParams, type SuspicionExpiry } from './lifeguard/suspicion.js';
export { retransmitLimit } from './dissemination/retransmit-limit.js';
export { adaptiveTimeoutMs, phiThresholdDeviations, RttHistory, RttWindow, type AdaptiveTimeoutParams } from './probe/rtt-history.js';
export { pushPullIntervalMs } from './anti-entropy/push-pull-interval.js';

/** Vivaldi network coordinates, as Serf's coordinate package computes them (docs/design.md, "Network coordinates"). */
export * from './coordinates/index.js';

/** Serf-style queries, the rules both wires share (docs/design.md, "Queries"). */
export * from './queries/index.js';
/** Queries on @swim's own wire: a reserved broadcast key for queries, a marked user message for replies. */
export {
  decodeQueryBroadcast,
  decodeQueryMessage,
  encodeQueryBroadcast,
  encodeQueryRelayMessage,
  encodeQueryResponseMessage,
  isQueryBroadcastKey,
  isQueryMessage,
  MAX_FILTER_NODE_NAMES,
  MAX_QUERY_FILTERS,
  MAX_QUERY_NAME_BYTES,
  QUERY_KEY_PREFIX,
  QUERY_MESSAGE_MARKER,
  QUERY_MESSAGE_TAG,
  queryBroadcastKey,
  type QueryDecodeResult,
  type QueryMessage,
  type QueryRelayDestination,
} from './codec/query-codec.js';

export * from './codec/codec.js';
export { swimCodec, type WireCodec } from './codec/wire-codec.js';
export { decodeSwimAckPayload, encodeSwimAckPayload, type AckPayload, type AckPayloadContent } from './codec/ack-payload.js';
export {
  decodeRangePayload,
  describeRange,
  encodeRangePayload,
  MAX_PROTOCOL_VERSION,
  protocolRangeProblem,
  rangesOverlap,
  RANGE_FIELDS_VERSION,
  SWIM_PROTOCOL,
  type ProtocolRange,
} from './codec/protocol-range.js';
/** Strict UTF-8 for other codecs: a lone surrogate does not encode, ill-formed bytes do not decode (no U+FFFD). */
export { decodeUtf8, utf8Bytes } from './codec/utf8.js';
export type * from './codec/messages.js';

export { createRng, randomInt, randomFloat, shuffleInPlace, pickRandom, type Rng } from './support/rng.js';
