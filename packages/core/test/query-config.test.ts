import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_QUERY_CONFIG,
  querySizeProblem,
  resolveQueryConfig,
  responseSizeProblem,
  validateQueryConfig,
  type QueryConfig,
} from '../src/index.js';

describe('query config (serf config.go)', () => {
  it("has Serf's defaults", () => {
    expect(DEFAULT_QUERY_CONFIG).toEqual({
      querySizeLimit: 1024,
      queryResponseSizeLimit: 1024,
      queryBuffer: 512,
      queryTimeoutMult: 16,
      maxQueriesPerLTime: 64,
    });
    expect(Object.isFrozen(DEFAULT_QUERY_CONFIG)).toBe(true);
    expect(validateQueryConfig(DEFAULT_QUERY_CONFIG)).toEqual([]);
  });

  it('resolves overrides on the defaults, frozen; undefined keeps the default', () => {
    const config = resolveQueryConfig({ queryBuffer: 1024, querySizeLimit: undefined } as unknown as Partial<QueryConfig>);
    expect(config).toEqual({ ...DEFAULT_QUERY_CONFIG, queryBuffer: 1024 });
    expect(Object.isFrozen(config)).toBe(true);
    expect(resolveQueryConfig()).toEqual(DEFAULT_QUERY_CONFIG);
  });

  it('lists every problem at once, naming the field, the rule and the value', () => {
    let error: unknown;
    try {
      resolveQueryConfig({
        querySizeLimit: 0,
        queryResponseSizeLimit: 70_000,
        queryBuffer: 1.5,
        queryTimeoutMult: Number.NaN,
        maxQueriesPerLTime: '8' as unknown as number,
        queryBufer: 10,
      } as Partial<QueryConfig>);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message } = error as ConfigError;
    expect(problems).toEqual([
      `unknown option "queryBufer" (did you mean 'queryBuffer'?)`,
      'querySizeLimit must be an integer in [1, 65507], got 0 (a query travels in one UDP packet)',
      'queryResponseSizeLimit must be an integer in [1, 65507], got 70000 (a response travels in one UDP packet)',
      'queryBuffer must be an integer in [1, 65536], got 1.5 (Lamport times remembered; memory grows with it)',
      'queryTimeoutMult must be an integer >= 1, got NaN',
      'maxQueriesPerLTime must be an integer in [1, 4096], got "8" (memory is queryBuffer × this ids)',
    ]);
    expect(message).toMatch(/^Invalid query config \(6 problems\):\n- unknown option/);
  });

  it('refuses overrides that are not an object, and never throws from validate', () => {
    expect(() => resolveQueryConfig(5 as unknown as Partial<QueryConfig>)).toThrow('query config overrides must be an object, got 5');
    expect(validateQueryConfig(null as unknown as QueryConfig)).toEqual(['query config must be an object, got null']);
  });

  it.each([
    // [encoded bytes, problem]: Serf refuses len(raw) > limit
    [1023, undefined],
    [1024, undefined],
    [1025, 'query exceeds limit of 1024 bytes'],
    [Number.NaN, 'query exceeds limit of 1024 bytes'],
  ])('a %s-byte query: %s', (bytes, problem) => {
    expect(querySizeProblem(bytes, DEFAULT_QUERY_CONFIG)).toBe(problem);
  });

  it("responses and relays have Serf's errors", () => {
    expect(responseSizeProblem(1024, DEFAULT_QUERY_CONFIG)).toBeUndefined();
    expect(responseSizeProblem(1025, DEFAULT_QUERY_CONFIG)).toBe('response exceeds limit of 1024 bytes');
    expect(responseSizeProblem(1025, DEFAULT_QUERY_CONFIG, true)).toBe('relayed response exceeds limit of 1024 bytes');
  });
});
