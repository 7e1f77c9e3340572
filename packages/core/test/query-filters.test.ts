import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  evaluateFilters,
  FILTER_STEP_BUDGET,
  matchesFilters,
  MAX_FILTER_EXPR_LENGTH,
  MAX_FILTER_PROGRAM_SIZE,
  TagPattern,
  type FilterSubject,
  type QueryFilter,
} from '../src/index.js';

// Go's own answers (serf query.go shouldProcessQuery calls regexp.MatchString): 1,729 expressions,
// curated and random, each refused by Go or matched against 38 texts, from serf-regexp/generate.go.
// Our port must refuse exactly what Go refuses and match exactly what Go matches.
const fixture = JSON.parse(readFileSync(new URL('./serf-regexp/go-1.19.json', import.meta.url), 'utf8')) as {
  readonly texts: readonly string[];
  readonly entries: readonly { readonly expr: string; readonly error?: true; readonly matches?: string }[];
};

// Every case-fold orbit of Go 1.19 (unicode.SimpleFold, Unicode 13), which (?i) folds along.
const orbits = (
  JSON.parse(readFileSync(new URL('./serf-regexp/go-1.19-orbits.json', import.meta.url), 'utf8')) as { readonly orbits: readonly string[] }
).orbits.map((orbit) => orbit.split(' ').map((hex) => parseInt(hex, 16)));

const web1: FilterSubject = { name: 'web-1', tags: { role: 'web', dc: 'eu-west', version: '1.4.2' } };
const tag = (t: string, expr: string): QueryFilter => ({ kind: 'tag', tag: t, expr });
const nodes = (...names: string[]): QueryFilter => ({ kind: 'nodes', names });

describe('tag expressions, against Go 1.19 regexp', () => {
  it('refuses what Go refuses and matches what Go matches, on every fixture expression', () => {
    const wrong: string[] = [];
    for (const entry of fixture.entries) {
      const pattern = TagPattern.compile(entry.expr);
      if (entry.error) {
        if (pattern instanceof TagPattern) wrong.push(`${JSON.stringify(entry.expr)}: Go refuses it, we compiled it`);
        continue;
      }
      if (!(pattern instanceof TagPattern)) {
        wrong.push(`${JSON.stringify(entry.expr)}: Go compiles it, we refused it (${pattern.error})`);
        continue;
      }
      const got = fixture.texts.map((text) => (pattern.match(text).matched ? '1' : '0')).join('');
      if (got !== entry.matches) wrong.push(`${JSON.stringify(entry.expr)}: matched ${got}, Go ${entry.matches}`);
    }
    expect(wrong).toEqual([]);
    // The fixture covers both sides.
    expect(fixture.entries.filter((e) => e.error).length).toBeGreaterThan(500);
    expect(fixture.entries.filter((e) => !e.error).length).toBeGreaterThan(500);
  });

  it("folds (?i) along Go's orbits: each member matches every other, as literal and inside a class", () => {
    const wrong: string[] = [];
    for (const orbit of orbits) {
      for (const member of orbit) {
        const hex = member.toString(16);
        const literal = TagPattern.compile(`(?i)^\\x{${hex}}$`) as TagPattern;
        // A class wide enough not to be a literal: the member and a code point of no orbit.
        const inClass = TagPattern.compile(`(?i)^[\\x{${hex}}\\x{10ffff}]$`) as TagPattern;
        for (const other of orbit) {
          const text = String.fromCodePoint(other);
          if (!literal.match(text).matched || !inClass.match(text).matched) wrong.push(`${hex} ~ ${other.toString(16)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(orbits.length).toBeGreaterThan(1000);
  });

  it('does not fold across orbits: i, I, the dotless ı and the dotted İ', () => {
    const dotless = TagPattern.compile('(?i)^ı$') as TagPattern;
    expect(['ı', 'i', 'I', 'İ'].map((t) => dotless.match(t).matched)).toEqual([true, false, false, false]);
    const i = TagPattern.compile('(?i)^[i]$') as TagPattern;
    expect(['i', 'I', 'ı', 'İ'].map((t) => i.match(t).matched)).toEqual([true, true, false, false]);
  });

  it.each([
    // [expr, text, matched]: Go's MatchString is unanchored
    ['e', 'web', true],
    ['^e', 'web', false],
    ['web', 'my-web-server', true],
    ['^web$', 'my-web-server', false],
    ['^(web|db)-[0-9]+$', 'db-12', true],
    ['^(web|db)-[0-9]+$', 'db-', false],
    ['(?i)^WEB', 'web', true],
    ['^$', '', true],
    ['.', '', false],
    ['1\\.4', '1.4.2', true],
    ['1.4', '1x4', true],
    ['\\bwest\\b', 'eu-west', true],
    ['^eu-(west|east)$', 'eu-west', true],
  ])('%j against %j: %s', (expr, text, matched) => {
    const pattern = TagPattern.compile(expr);
    expect(pattern).toBeInstanceOf(TagPattern);
    expect((pattern as TagPattern).match(text).matched).toBe(matched);
  });

  it.each([
    ['(a)\\1', 'backreference'],
    ['(?=a)', 'lookahead'],
    ['(?!a)', 'negative lookahead'],
    ['(?<=a)b', 'lookbehind'],
    ['a++', 'possessive repetition'],
    ['a**', 'stacked repetition'],
    ['a{1001}', 'count over 1000'],
    ['[z-a]', 'reversed range'],
    ['(', 'unclosed group'],
    ['\\Z', 'escape Go does not have'],
  ])('%j (%s) is refused, as Go refuses it', (expr) => {
    expect(TagPattern.compile(expr)).toHaveProperty('error');
  });
});

describe('matchesFilters (serf query.go shouldProcessQuery)', () => {
  it.each<[string, readonly QueryFilter[], boolean]>([
    ['no filters: everyone', [], true],
    ['node filter naming us', [nodes('db-1', 'web-1')], true],
    ['node filter not naming us', [nodes('db-1', 'db-2')], false],
    ['node filter, exact names only', [nodes('web')], false],
    ['empty node filter', [nodes()], false],
    ['two node filters are ANDed', [nodes('web-1'), nodes('db-1')], false],
    ['tag filter, unanchored: role=e matches web', [tag('role', 'e')], true],
    ['tag filter, anchored by the expression', [tag('role', '^e$')], false],
    ['tag filter on another tag', [tag('dc', '^eu-')], true],
    ['missing tag reads as "": nosuchtag=. matches nobody', [tag('nosuchtag', '.')], false],
    ['missing tag reads as "": nosuchtag=^$ matches everybody', [tag('nosuchtag', '^$')], true],
    ['missing tag, empty expression matches', [tag('nosuchtag', '')], true],
    ['node and tag, both match', [nodes('web-1'), tag('role', 'web')], true],
    ['node matches, tag does not', [nodes('web-1'), tag('role', '^db$')], false],
    ['tag matches, node does not', [tag('role', 'web'), nodes('db-1')], false],
    ['several tag filters are ANDed', [tag('role', 'web'), tag('dc', 'us')], false],
    ['an invalid regexp matches nobody', [tag('role', '(web')], false],
    ['a regexp Go refuses matches nobody', [tag('role', '(?=web)')], false],
    ['an unknown filter type matches nobody', [{ kind: 'unknown', type: 7 }], false],
  ])('%s', (_, filters, expected) => {
    expect(matchesFilters(filters, web1)).toBe(expected);
  });

  it('reads tags from a Map as from a record', () => {
    const self: FilterSubject = { name: 'x', tags: new Map([['role', 'web']]) };
    expect(matchesFilters([tag('role', '^web$')], self)).toBe(true);
    expect(matchesFilters([tag('nosuchtag', '^$')], self)).toBe(true);
    expect(matchesFilters([tag('nosuchtag', '.')], self)).toBe(false);
  });

  it("takes only a record's own tags: prototype names are missing tags", () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(matchesFilters([tag(name, '.')], web1), name).toBe(false);
      expect(matchesFilters([tag(name, '^$')], web1), name).toBe(true);
    }
  });

  it('ignores inherited properties, even strings a polluted prototype would lend', () => {
    const tags = Object.assign(Object.create({ inherited: 'web' }) as Record<string, string>, { role: 'web' });
    expect(matchesFilters([tag('inherited', 'web')], { name: 'x', tags })).toBe(false);
    expect(matchesFilters([tag('role', 'web')], { name: 'x', tags })).toBe(true);
  });

  it('says which filter failed, and why', () => {
    expect(evaluateFilters([nodes('web-1'), tag('role', 'db')], web1).failure).toEqual({ index: 1, reason: 'tag-mismatch' });
    expect(evaluateFilters([nodes('db-1')], web1).failure).toEqual({ index: 0, reason: 'not-named' });
    expect(evaluateFilters([{ kind: 'unknown', type: 9 }], web1).failure).toEqual({ index: 0, reason: 'unknown-filter' });
    const invalid = evaluateFilters([tag('role', 'a{2,1}')], web1).failure;
    expect(invalid?.reason).toBe('invalid-expr');
    expect(invalid?.detail).toContain('repeat');
  });

  it('stops at the first failing filter, as Serf, so later ones cost nothing', () => {
    const evaluation = evaluateFilters([nodes('db-1'), tag('role', '(a|b)*web')], web1);
    expect(evaluation).toEqual({ matched: false, steps: 0, failure: { index: 0, reason: 'not-named' } });
  });
});

describe('hostile tag expressions', () => {
  // Backtracking engines (JS RegExp, PCRE) take time exponential or high-polynomial in the text's
  // length on these; RE2, and our port of it, visits each program state at most once per
  // character. The bound below is what the engine guarantees, checked by counting, not timing.
  const long = `${'a'.repeat(500)}!`;
  const subject: FilterSubject = { name: 'x', tags: { t: long } };

  it.each([
    '(a+)+$',
    '^(a|a)*$',
    '(a|aa)+$',
    '(a*)*b',
    '(?:a+){10}$',
    'a*a*a*a*a*a*a*a*a*a*b',
    '(.*a){20}$',
    '(?:a?){100}a{100}$',
    '^(\\w+\\s?)*$',
    '(x+x+)+y',
  ])('%j against 500 a and a bang: bounded by (length + 1) × program size', (expr) => {
    const pattern = TagPattern.compile(expr);
    expect(pattern).toBeInstanceOf(TagPattern);
    const { size } = pattern as TagPattern;
    expect(size).toBeLessThanOrEqual(MAX_FILTER_PROGRAM_SIZE);
    const outcome = (pattern as TagPattern).match(long);
    expect(outcome.exhausted).toBe(false);
    expect(outcome.matched).toBe(false);
    expect(outcome.steps).toBeLessThanOrEqual((long.length + 1) * size);
  });

  it('refuses an expression longer than Serf lets a whole query be', () => {
    expect(TagPattern.compile('a'.repeat(MAX_FILTER_EXPR_LENGTH))).toBeInstanceOf(TagPattern);
    expect(TagPattern.compile('a'.repeat(MAX_FILTER_EXPR_LENGTH + 1))).toEqual({
      error: `expression longer than ${MAX_FILTER_EXPR_LENGTH} characters`,
    });
  });

  it('refuses an expression whose program is too large, though Go takes it', () => {
    expect(TagPattern.compile('x{1000}')).toBeInstanceOf(TagPattern);
    expect(TagPattern.compile('[a-z]{1000}[0-9]{1000}[a-z]{100}')).toHaveProperty('error');
  });

  it('stops a query whose filters together would visit more than the step budget', () => {
    // Each filter matches (so evaluation goes on), each costs ~400 × 1,500 states: 40 of them
    // would be 24 million. The budget ends it on the first, at most two program sizes over.
    const expensive = tag('t', '(?:a?){500}a{500}');
    const evaluation = evaluateFilters(Array.from({ length: 40 }, () => expensive), { name: 'x', tags: { t: 'a'.repeat(400) } });
    expect(evaluation.matched).toBe(false);
    expect(evaluation.failure).toEqual({ index: 0, reason: 'budget' });
    expect(evaluation.steps).toBeLessThanOrEqual(FILTER_STEP_BUDGET + 2 * MAX_FILTER_PROGRAM_SIZE);
  });

  it('lets real filters through the budget with room to spare', () => {
    const filters = [nodes('web-1'), tag('role', '^(web|db|cache)-?[0-9]*$'), tag('dc', '^eu-(west|east)$'), tag('version', '^1\\.[4-9]\\.')];
    const evaluation = evaluateFilters(filters, web1);
    expect(evaluation.matched).toBe(true);
    expect(evaluation.steps).toBeLessThan(FILTER_STEP_BUDGET / 100);
  });
});
