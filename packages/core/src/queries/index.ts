export { LamportClock, MAX_LAMPORT_TIME, isLamportTime } from './lamport-clock.js';
export {
  evaluateFilters,
  FILTER_STEP_BUDGET,
  matchesFilters,
  MAX_FILTER_EXPR_LENGTH,
  MAX_FILTER_PROGRAM_SIZE,
  TagPattern,
  type FilterEvaluation,
  type FilterFailure,
  type FilterSubject,
  type QueryFilter,
  type TagPatternError,
} from './filters.js';
export type { MatchOutcome } from './re2-program.js';
export { SeenQueries, type QueryAdmission, type SeenQueriesOptions } from './seen-queries.js';
export { defaultQueryTimeoutMs } from './timeout.js';
export {
  DEFAULT_QUERY_CONFIG,
  querySizeProblem,
  resolveQueryConfig,
  responseSizeProblem,
  validateQueryConfig,
  type QueryConfig,
} from './query-config.js';
export { MAX_RELAY_FACTOR, selectRelays, type RelayCandidate, type RelayParams } from './relays.js';
export {
  decodeQueryFlags,
  encodeQueryFlags,
  INTERNAL_QUERY_PREFIX,
  isInternalQuery,
  newQueryId,
  QUERY_FLAG_ACK,
  QUERY_FLAG_NO_BROADCAST,
  userQueryProblem,
  type QueryRequest,
  type QueryResponse,
} from './messages.js';
export { QueryCollector, type CollectOutcome, type CollectorOptions, type CollectorTotals } from './collector.js';
export { QueryReceiver, type QueryDropReason, type QueryReceiverOptions, type QueryReception } from './receiver.js';
