/**
 * @swim/runtime: runs a @swim/core member on a clock and a transport. Browser-safe: no Node
 * built-ins; transports for Node (UDP/TCP), browsers (WebSocket) and memory live in their own packages.
 *
 * @packageDocumentation
 */
export { Member, JoinError, type MemberOptions, type JoinResult, type WaitOptions, type AnnounceResult, type ChangesOptions, type ForceLeaveOptions } from './member.js';
export {
  SNAPSHOT_VERSION,
  SnapshotError,
  parseSnapshot,
  snapshotPreload,
  snapshotSeeds,
  type MemberSnapshot,
  type SnapshotMember,
  type ParseSnapshotOptions,
} from './snapshot.js';
export { NameConflictError } from './join-error.js';
export type { JoinOptions, RetryOptions, RetryNotice } from './join-retry.js';
export { MEMBER_EVENT_KINDS } from './changes.js';
export { realClock, type Clock, type Timer } from './clock.js';
export { describeError } from './describe-error.js';
export type { Transport, TransportHandlers, StreamOptions, StreamResult } from './transport.js';
export { TypedEventTarget, type Listener, type ListenerOptions, type MemberEventMap, type MembershipChange, type ContainedError, type ErrorSite } from './events.js';
export {
  labelledMetric,
  metricFamilyProblem,
  singleMetric,
  type MetricFamily,
  type MetricSample,
  type MetricsProvider,
  type MetricsSnapshot,
  type MetricsSource,
  type MetricType,
} from './metrics.js';
export { QueryService, type QueryHost, type QueryServiceOptions } from './queries/query-service.js';
export { swimQueryWire, type SwimQueryWireOptions } from './queries/swim-query-wire.js';
export type { QueryDestination, QueryTraffic, QueryWire } from './queries/query-wire.js';
export type {
  IncomingQuery,
  QueryCounters,
  QueryDropCounters,
  QueryHandle,
  QueryHandler,
  QueryOptions,
  QueryReply,
  QuerySummary,
} from './queries/query-types.js';
