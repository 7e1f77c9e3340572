import { parseRe2 } from './re2-parse.js';
import { Re2Program, type MatchOutcome } from './re2-program.js';

/**
 * Which members must process a query (serf messages.go filterNode, filterTag). A query's filters
 * are ANDed; an empty list matches every member.
 */
export type QueryFilter =
  | {
      /** serf filterNodeType: the member's name must be one of `names`. */
      readonly kind: 'nodes';
      /** Node names, compared exactly. */
      readonly names: readonly string[];
    }
  | {
      /** serf filterTagType: the member's tag `tag` must match `expr`. */
      readonly kind: 'tag';
      /** The tag's name; a member without the tag is matched as having it empty. */
      readonly tag: string;
      /** A Go (RE2) regular expression, unanchored: `e` matches `web`. */
      readonly expr: string;
    }
  | {
      /** A filter the decoder could not read (an unknown type byte, a body that does not decode): it matches nobody. */
      readonly kind: 'unknown';
      /** The filter's type byte. */
      readonly type: number;
    };

/** The member a query's filters are checked against: ourselves. */
export interface FilterSubject {
  /** Our node name. */
  readonly name: string;
  /** Our tags. Only own properties of a record count: `constructor` is not a tag unless we set it. */
  readonly tags: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
}

/** Why a query's filters did not match us. */
export type FilterFailure =
  /** A node filter does not name us. */
  | 'not-named'
  /** Our tag does not match the expression. */
  | 'tag-mismatch'
  /** The expression is not valid Go regexp syntax, or is past our bounds: it matches nobody, as in Serf. */
  | 'invalid-expr'
  /** A filter of a type we do not know matches nobody, as in Serf. */
  | 'unknown-filter'
  /** The filters' matching ran out of steps ({@link FILTER_STEP_BUDGET}): a hostile query, refused. */
  | 'budget';

/** What {@link evaluateFilters} found. */
export interface FilterEvaluation {
  /** Whether every filter matched us. */
  readonly matched: boolean;
  /** Regexp states visited, all filters together; never much more than the step budget. */
  readonly steps: number;
  /** The first filter that did not match; absent when `matched`. */
  readonly failure?: {
    /** Its index in the query's filters. */
    readonly index: number;
    /** Why it did not match. */
    readonly reason: FilterFailure;
    /** For an invalid expression, why it is invalid. */
    readonly detail?: string;
  };
}

/**
 * Longest tag expression compiled, in UTF-16 code units. A Serf query, filters and all, must fit
 * its QuerySizeLimit (1024 bytes by default), so no Serf asker sends a longer one.
 */
export const MAX_FILTER_EXPR_LENGTH = 1024;

/**
 * Most instructions a tag expression may compile to. Go allows far more (its limit is on memory);
 * `x{1000}` fits, `(x{100}){20}` does not. Matching costs at most (tag length + 1) × this.
 */
export const MAX_FILTER_PROGRAM_SIZE = 2048;

/**
 * Regexp states one evaluation of a query's filters may visit in all, about a few milliseconds of
 * work. A filter that would need more fails, and so the query is not processed. Real filters need
 * a few hundred: `^(web|db)-[0-9]+$` against a 30-character tag visits about 300.
 */
export const FILTER_STEP_BUDGET = 1 << 18;

/** Why {@link TagPattern.compile} refused an expression. */
export interface TagPatternError {
  /** Go's reason (as Go would refuse it), or which of our bounds it passes. */
  readonly error: string;
}

/** A tag filter's expression, compiled once and matched in time linear in the tag's length. */
export class TagPattern {
  readonly #program: Re2Program;

  private constructor(
    /** The expression as given. */
    readonly expr: string,
    program: Re2Program,
  ) {
    this.#program = program;
  }

  /**
   * Compiles a Go regexp (RE2 syntax: what Go refuses, such as backreferences and lookaround, is
   * refused) within {@link MAX_FILTER_EXPR_LENGTH} and {@link MAX_FILTER_PROGRAM_SIZE}. Never throws.
   */
  static compile(expr: string): TagPattern | TagPatternError {
    if (typeof expr !== 'string') return { error: 'expression is not a string' };
    if (expr.length > MAX_FILTER_EXPR_LENGTH) return { error: `expression longer than ${MAX_FILTER_EXPR_LENGTH} characters` };
    const parsed = parseRe2(expr);
    if ('error' in parsed) return parsed;
    const program = Re2Program.compile(parsed.node, MAX_FILTER_PROGRAM_SIZE);
    if (program === undefined) return { error: `expression compiles to more than ${MAX_FILTER_PROGRAM_SIZE} instructions` };
    return new TagPattern(expr, program);
  }

  /** Instructions in the compiled program; a match visits at most (code points + 1) × this states. */
  get size(): number {
    return this.#program.size;
  }

  /** Whether the expression matches anywhere in `text` (Go `regexp.MatchString`), within `budget` states. */
  match(text: string, budget?: number): MatchOutcome {
    return this.#program.match(text, budget);
  }
}

/** Our value of `tag`, "" when we do not have it (serf query.go shouldProcessQuery reads a Go map). */
function tagValue(tags: FilterSubject['tags'], tag: string): string {
  if (tags instanceof Map) return (tags as ReadonlyMap<string, string>).get(tag) ?? '';
  const record = tags as Readonly<Record<string, string>>;
  const value = Object.hasOwn(record, tag) ? record[tag] : undefined;
  return typeof value === 'string' ? value : '';
}

/**
 * Checks a query's filters against us (serf query.go shouldProcessQuery): in order, stopping at
 * the first that fails. Each tag expression is compiled once, here; all of them together visit at
 * most about `stepBudget` regexp states. Never throws.
 */
export function evaluateFilters(
  filters: readonly QueryFilter[],
  self: FilterSubject,
  stepBudget: number = FILTER_STEP_BUDGET,
): FilterEvaluation {
  let steps = 0;
  const fail = (index: number, reason: FilterFailure, detail?: string): FilterEvaluation => ({
    matched: false,
    steps,
    failure: detail === undefined ? { index, reason } : { index, reason, detail },
  });
  for (let index = 0; index < filters.length; index++) {
    const filter = filters[index] as QueryFilter;
    switch (filter.kind) {
      case 'nodes':
        if (!Array.isArray(filter.names) || !filter.names.includes(self.name)) return fail(index, 'not-named');
        break;
      case 'tag': {
        const pattern = TagPattern.compile(filter.expr);
        if (!(pattern instanceof TagPattern)) return fail(index, 'invalid-expr', pattern.error);
        const outcome = pattern.match(tagValue(self.tags, filter.tag), stepBudget - steps);
        steps += outcome.steps;
        if (outcome.exhausted) return fail(index, 'budget');
        if (!outcome.matched) return fail(index, 'tag-mismatch');
        break;
      }
      default:
        return fail(index, 'unknown-filter');
    }
  }
  return { matched: true, steps };
}

/** Whether a query's filters select us (serf query.go shouldProcessQuery); see {@link evaluateFilters}. */
export function matchesFilters(filters: readonly QueryFilter[], self: FilterSubject): boolean {
  return evaluateFilters(filters, self).matched;
}
