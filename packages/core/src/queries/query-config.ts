import { ruleBook } from '../config/rule-book.js';
import type { NumberRule } from '../config/validate.js';

/**
 * The tuning of queries (serf config.go Config, its query fields). The defaults are Serf's, so
 * that our members answer a Serf cluster's queries as its own members do.
 */
export interface QueryConfig {
  /** Largest encoded query (type byte included) we send, bytes (serf QuerySizeLimit). Default 1024. */
  readonly querySizeLimit: number;
  /** Largest encoded ack, response or relayed response we send, bytes (serf QueryResponseSizeLimit). Default 1024. */
  readonly queryResponseSizeLimit: number;
  /** Recent Lamport times remembered to drop repeated queries, and how far behind a query may be (serf QueryBuffer). Default 512. */
  readonly queryBuffer: number;
  /** The default timeout is gossip interval × this × ceil(log10(n + 1)) (serf QueryTimeoutMult). Default 16. */
  readonly queryTimeoutMult: number;
  /**
   * Distinct queries remembered per Lamport time; more at one time are dropped. Not in Serf,
   * whose list grows with every id a peer invents. Default 64: queries share a time only when
   * members ask at once.
   */
  readonly maxQueriesPerLTime: number;
}

/** Serf v0.9.4's config.go DefaultConfig, and our bound on queries per Lamport time. Frozen. */
export const DEFAULT_QUERY_CONFIG: QueryConfig = Object.freeze({
  querySizeLimit: 1024,
  queryResponseSizeLimit: 1024,
  queryBuffer: 512,
  queryTimeoutMult: 16,
  maxQueriesPerLTime: 64,
});

/** Largest UDP payload over IPv4: a query or a response is one packet. */
const MAX_UDP_PAYLOAD = 65_507;

/** One rule per field; the mapped type makes the compiler insist every field has one. Serf validates none. */
const RULES: { readonly [K in keyof QueryConfig]-?: NumberRule } = {
  querySizeLimit: { kind: 'number', integer: true, min: 1, max: MAX_UDP_PAYLOAD, why: 'a query travels in one UDP packet' },
  queryResponseSizeLimit: { kind: 'number', integer: true, min: 1, max: MAX_UDP_PAYLOAD, why: 'a response travels in one UDP packet' },
  queryBuffer: { kind: 'number', integer: true, min: 1, max: 65_536, why: 'Lamport times remembered; memory grows with it' },
  queryTimeoutMult: { kind: 'number', integer: true, min: 1 },
  maxQueriesPerLTime: { kind: 'number', integer: true, min: 1, max: 4096, why: 'memory is queryBuffer × this ids' },
};

const BOOK = ruleBook<QueryConfig>('query config', RULES, DEFAULT_QUERY_CONFIG);

/**
 * Every problem with `config` (one message per field, naming the field, the constraint and the
 * value), or [] if it is valid. Never throws, whatever the input.
 */
export function validateQueryConfig(config: QueryConfig): string[] {
  return BOOK.validate(config);
}

/**
 * {@link DEFAULT_QUERY_CONFIG} with `overrides` on top, validated. Keys whose value is `undefined` are ignored;
 * unknown keys (typos) and a non-object `overrides` are problems too.
 * @returns a fresh, frozen config.
 * @throws ConfigError listing every problem at once.
 */
export function resolveQueryConfig(overrides?: Partial<QueryConfig>): QueryConfig {
  return BOOK.resolve(overrides);
}

/**
 * Serf's refusal of a query too large to send, or undefined when it fits (serf serf.go Query).
 * @param encodedBytes the encoded query, type byte included, as the wire writes it.
 */
export function querySizeProblem(encodedBytes: number, config: Pick<QueryConfig, 'querySizeLimit'>): string | undefined {
  return encodedBytes <= config.querySizeLimit ? undefined : `query exceeds limit of ${config.querySizeLimit} bytes`;
}

/**
 * Serf's refusal of a response or relayed response too large to send, or undefined when it fits
 * (serf event.go Query.Respond, query.go relayResponse).
 * @param encodedBytes the encoded response (or relay message), type byte included.
 * @param relayed whether it is a relay message, which Serf's error names as such.
 */
export function responseSizeProblem(
  encodedBytes: number,
  config: Pick<QueryConfig, 'queryResponseSizeLimit'>,
  relayed = false,
): string | undefined {
  if (encodedBytes <= config.queryResponseSizeLimit) return undefined;
  return `${relayed ? 'relayed response' : 'response'} exceeds limit of ${config.queryResponseSizeLimit} bytes`;
}
