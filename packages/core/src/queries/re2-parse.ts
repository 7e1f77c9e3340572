import {
  folded,
  foldedLiteral,
  inRanges,
  PERL_GROUPS,
  POSIX_GROUPS,
  unicodeClass,
  type CodePointTest,
} from './re2-classes.js';

/**
 * A parser for Go's regexp syntax (RE2, regexp/syntax parse.go with the Perl flags that
 * `regexp.MatchString` uses), for the tag filters of queries (docs/design.md, "Queries"). What Go
 * refuses is refused here, with the same rules: backreferences (`\1`), lookaround (`(?=`, `(?!`,
 * `(?<=`), possessive and stacked repetition (`a++`, `a**`), `\Z`, counts above 1000. Only a
 * boolean match is ever asked, so captures and greediness are parsed and then forgotten.
 *
 * Why not a library: re2js 2.10.0 (the maintained pure-JS RE2) gives Go's answers too (1,728 of the
 * 1,729 expressions of test/serf-regexp/go-1.19.json; it accepts `(?<n>a)`, which Go 1.19 refuses),
 * but bundled for browsers it is 150.6 kB minified, 45.9 kB gzipped: more than the rest of
 * @swim/core (98.5 kB, 32.2 kB), which every browser member loads. This port, with the filters, is
 * 13.2 kB minified, 5.5 kB gzipped (esbuild --bundle --minify, measured 2026-12-03).
 */

/** Empty-width assertions. */
export type AssertKind = 'begin-text' | 'end-text' | 'begin-line' | 'end-line' | 'word-boundary' | 'not-word-boundary';

/** A parsed regular expression. */
export type Re2Node =
  | { readonly op: 'empty' }
  | { readonly op: 'char'; readonly test: CodePointTest }
  | { readonly op: 'assert'; readonly kind: AssertKind }
  | { readonly op: 'concat'; readonly subs: readonly Re2Node[] }
  | { readonly op: 'alt'; readonly subs: readonly Re2Node[] }
  /** `max` −1 is unbounded; `counted` for the `{n,m}` forms, which Go's repeat-size check counts. */
  | { readonly op: 'repeat'; readonly sub: Re2Node; readonly min: number; readonly max: number; readonly counted: boolean };

/** Go's limit on a repeat count, and on the copies nested counted repeats make (regexp/syntax repeatIsValid). */
const MAX_REPEAT = 1000;
/** Go's maxHeight: groups nested deeper are refused (and our recursion stays shallow). */
const MAX_NESTING = 1000;

interface Flags {
  /** (?i) */
  readonly foldCase: boolean;
  /** (?s): `.` matches \n. */
  readonly dotNL: boolean;
  /** Not (?m): `^` and `$` match at the ends of the text only. */
  readonly oneLine: boolean;
}

class Re2SyntaxError extends Error {}

const ESCAPED_ASSERTIONS: ReadonlyMap<string, AssertKind> = new Map([
  ['A', 'begin-text'],
  ['z', 'end-text'],
  ['b', 'word-boundary'],
  ['B', 'not-word-boundary'],
]);

/** Parses `expr`; returns the tree or Go's reason for refusing it. Never throws. */
export function parseRe2(expr: string): { readonly node: Re2Node } | { readonly error: string } {
  try {
    return { node: new Parser(expr).parse() };
  } catch (err) {
    if (err instanceof Re2SyntaxError) return { error: err.message };
    throw err;
  }
}

class Parser {
  #pos = 0;
  #flags: Flags = { foldCase: false, dotNL: false, oneLine: true };
  #depth = 0;

  constructor(private readonly s: string) {}

  parse(): Re2Node {
    const node = this.#alternation();
    if (this.#pos < this.s.length) throw new Re2SyntaxError('unexpected )');
    return node;
  }

  #peek(offset = 0): string | undefined {
    return this.s[this.#pos + offset];
  }

  /** The next code point, consumed. A lone surrogate is not UTF-8: Go's checkUTF8 refuses it. */
  #nextRune(): number {
    const cp = this.s.codePointAt(this.#pos);
    if (cp === undefined) throw new Re2SyntaxError('unexpected end');
    if (cp >= 0xd800 && cp <= 0xdfff) throw new Re2SyntaxError('invalid UTF-8');
    this.#pos += cp > 0xffff ? 2 : 1;
    return cp;
  }

  #alternation(): Re2Node {
    const subs = [this.#concat()];
    while (this.#peek() === '|') {
      this.#pos++;
      subs.push(this.#concat());
    }
    return subs.length === 1 ? (subs[0] as Re2Node) : { op: 'alt', subs };
  }

  #concat(): Re2Node {
    const items: Re2Node[] = [];
    let lastWasRepeat = false;
    for (;;) {
      const c = this.#peek();
      if (c === undefined || c === '|' || c === ')') break;
      if (c === '*' || c === '+' || c === '?' || c === '{') {
        const start = this.#pos;
        const bounds = c === '{' ? this.#countedBounds() : this.#starBounds(c);
        if (bounds !== undefined) {
          // Perl forbids stacking: a** is an error, not a doubled star (parse.go repeat).
          if (lastWasRepeat) throw new Re2SyntaxError(`invalid nested repetition operator: ${this.s.slice(start, this.#pos)}`);
          if (this.#peek() === '?') this.#pos++; // non-greedy: the same boolean answer
          const sub = items.pop();
          if (sub === undefined) throw new Re2SyntaxError('missing argument to repetition operator');
          const node: Re2Node = { op: 'repeat', sub, ...bounds };
          if (bounds.counted && (bounds.min >= 2 || bounds.max >= 2) && !repeatIsValid(node, MAX_REPEAT)) {
            throw new Re2SyntaxError('invalid repeat count');
          }
          items.push(node);
          lastWasRepeat = true;
          continue;
        }
        // A { that does not start a repeat is a literal.
      }
      lastWasRepeat = false;
      this.#atom(items);
    }
    if (items.length === 0) return { op: 'empty' };
    return items.length === 1 ? (items[0] as Re2Node) : { op: 'concat', subs: items };
  }

  #starBounds(c: string): { min: number; max: number; counted: false } {
    this.#pos++;
    if (c === '*') return { min: 0, max: -1, counted: false };
    if (c === '+') return { min: 1, max: -1, counted: false };
    return { min: 0, max: 1, counted: false };
  }

  /** `{n}`, `{n,}` or `{n,m}` (parse.go parseRepeat), consumed; undefined (nothing consumed) when it is not one. */
  #countedBounds(): { min: number; max: number; counted: true } | undefined {
    const re = /\{(0|[1-9][0-9]*)(,(0|[1-9][0-9]*)?)?\}/y;
    re.lastIndex = this.#pos;
    const m = re.exec(this.s);
    if (m === null) return undefined;
    this.#pos += m[0].length;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === undefined ? -1 : Number(m[3]);
    if (min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) throw new Re2SyntaxError(`invalid repeat count: ${m[0]}`);
    return { min, max, counted: true };
  }

  /**
   * Parses one atom onto `items`: none for a flag group or an empty \Q\E, one literal each for
   * \Q…\E, so that a repeat after it applies to its last character only.
   */
  #atom(items: Re2Node[]): void {
    switch (this.#peek()) {
      case '(': {
        const group = this.#group();
        if (group !== undefined) items.push(group);
        return;
      }
      case '^':
        this.#pos++;
        items.push({ op: 'assert', kind: this.#flags.oneLine ? 'begin-text' : 'begin-line' });
        return;
      case '$':
        this.#pos++;
        items.push({ op: 'assert', kind: this.#flags.oneLine ? 'end-text' : 'end-line' });
        return;
      case '.':
        this.#pos++;
        items.push({ op: 'char', test: this.#flags.dotNL ? () => true : (cp) => cp !== 0x0a });
        return;
      case '[':
        items.push(this.#bracketClass());
        return;
      case '\\':
        this.#escapeAtom(items);
        return;
      default:
        items.push(this.#literal(this.#nextRune()));
    }
  }

  #literal(r: number): Re2Node {
    return { op: 'char', test: this.#flags.foldCase ? foldedLiteral(r) : (cp) => cp === r };
  }

  #group(): Re2Node | undefined {
    const saved = this.#flags;
    if (this.#peek(1) === '?') {
      if (!this.#perlFlags()) return undefined; // (?flags): no group, flags go on to the enclosing one's end
    } else {
      this.#pos++;
    }
    if (++this.#depth > MAX_NESTING) throw new Re2SyntaxError('expression nests too deeply');
    const sub = this.#alternation();
    if (this.#peek() !== ')') throw new Re2SyntaxError('missing closing )');
    this.#pos++;
    this.#depth--;
    this.#flags = saved;
    return sub;
  }

  /**
   * After `(?`: a named group `(?P<name>`, or flags `(?imsU-imsU)` / `(?imsU-imsU:` (parse.go
   * parsePerlFlags). Returns true when a group opens. Go 1.19 has no `(?<name>`.
   */
  #perlFlags(): boolean {
    const start = this.#pos;
    if (this.s.startsWith('(?P<', start) && this.s.length - start > 4) {
      const end = this.s.indexOf('>', start);
      const name = end < 0 ? '' : this.s.slice(start + 4, end);
      if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Re2SyntaxError('invalid named capture');
      this.#pos = end + 1;
      return true;
    }
    this.#pos += 2;
    let { foldCase, dotNL, oneLine } = this.#flags;
    let negated = false;
    let sawFlag = false;
    while (this.#pos < this.s.length) {
      const c = String.fromCodePoint(this.#nextRune());
      switch (c) {
        case 'i':
          foldCase = !negated;
          sawFlag = true;
          continue;
        case 'm':
          oneLine = negated;
          sawFlag = true;
          continue;
        case 's':
          dotNL = !negated;
          sawFlag = true;
          continue;
        case 'U':
          sawFlag = true; // ungreedy: the same boolean answer
          continue;
        case '-':
          if (negated) break;
          negated = true;
          sawFlag = false;
          continue;
        case ':':
        case ')':
          if (negated && !sawFlag) break;
          this.#flags = { foldCase, dotNL, oneLine };
          return c === ':';
      }
      break;
    }
    throw new Re2SyntaxError(`invalid or unsupported Perl syntax: ${this.s.slice(start, this.#pos)}`);
  }

  /** After a backslash outside brackets (parse.go parse, the '\\' case). */
  #escapeAtom(items: Re2Node[]): void {
    const assertion = ESCAPED_ASSERTIONS.get(this.#peek(1) ?? '');
    if (assertion !== undefined) {
      this.#pos += 2;
      items.push({ op: 'assert', kind: assertion });
      return;
    }
    if (this.#peek(1) === 'C') throw new Re2SyntaxError('invalid escape sequence: \\C'); // any byte: RE2 refuses it
    if (this.#peek(1) === 'Q') {
      // \Q…\E: literals up to \E or the end.
      const end = this.s.indexOf('\\E', this.#pos + 2);
      const stop = end < 0 ? this.s.length : end;
      this.#pos += 2;
      while (this.#pos < stop) items.push(this.#literal(this.#nextRune()));
      if (end >= 0) this.#pos = end + 2;
      return;
    }
    const test = this.#unicodeClass() ?? this.#perlClass();
    items.push(test !== undefined ? { op: 'char', test } : this.#literal(this.#escape()));
  }

  /** `\pN`, `\p{Name}`, `\PN`, `\p{^Name}` (parse.go parseUnicodeClass), or undefined when not at one. */
  #unicodeClass(): CodePointTest | undefined {
    const p = this.#peek(1);
    if (this.#peek() !== '\\' || (p !== 'p' && p !== 'P')) return undefined;
    let negated = p === 'P';
    this.#pos += 2;
    let name: string;
    if (this.#peek() === '{') {
      const end = this.s.indexOf('}', this.#pos);
      if (end < 0) throw new Re2SyntaxError('invalid character class range');
      name = this.s.slice(this.#pos + 1, end);
      this.#pos = end + 1;
    } else {
      name = this.#pos < this.s.length ? String.fromCodePoint(this.#nextRune()) : '';
    }
    if (name.startsWith('^')) {
      negated = !negated;
      name = name.slice(1);
    }
    const table = unicodeClass(name);
    if (table === undefined) throw new Re2SyntaxError(`invalid character class range: \\p{${name}}`);
    const test = this.#flags.foldCase ? folded(table) : table;
    return negated ? (cp) => !test(cp) : test;
  }

  /** `\d \D \s \S \w \W` (parse.go parsePerlClassEscape), or undefined when not at one. */
  #perlClass(): CodePointTest | undefined {
    const letter = this.#peek(1);
    if (this.#peek() !== '\\' || letter === undefined) return undefined;
    const ranges = PERL_GROUPS.get(letter.toLowerCase());
    if (ranges === undefined) return undefined;
    this.#pos += 2;
    return this.#charGroup(ranges, letter !== letter.toLowerCase());
  }

  /** A Perl or POSIX group: folded first, then negated, as Go's appendGroup. */
  #charGroup(ranges: readonly number[], negated: boolean): CodePointTest {
    const test: CodePointTest = this.#flags.foldCase ? folded((cp) => inRanges(ranges, cp)) : (cp) => inRanges(ranges, cp);
    return negated ? (cp) => !test(cp) : test;
  }

  /** A single-character escape after `\` (parse.go parseEscape), consumed. */
  #escape(): number {
    const start = this.#pos;
    this.#pos++; // the backslash
    if (this.#pos >= this.s.length) throw new Re2SyntaxError('trailing backslash at end of expression');
    const c = this.#nextRune();
    const bad = (): never => {
      throw new Re2SyntaxError(`invalid escape sequence: ${this.s.slice(start, this.#pos)}`);
    };
    const isOctal = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '7';
    const ch = String.fromCodePoint(c);
    if (c < 0x80 && !/[0-9A-Za-z]/.test(ch)) return c; // escaped punctuation is itself
    if (ch >= '0' && ch <= '7') {
      // Octal, up to three digits; a single non-zero digit is a backreference, which RE2 does not have.
      if (ch !== '0' && !isOctal(this.#peek())) return bad();
      let r = c - 0x30;
      for (let i = 1; i < 3 && isOctal(this.#peek()); i++) r = r * 8 + (this.s.charCodeAt(this.#pos++) - 0x30);
      return r;
    }
    switch (ch) {
      case 'x': {
        if (this.#peek() === '{') {
          const re = /\{([0-9A-Fa-f]+)\}/y;
          re.lastIndex = this.#pos;
          const m = re.exec(this.s);
          if (m === null) return bad();
          const r = parseInt(m[1] as string, 16);
          if (r > 0x10ffff) return bad();
          this.#pos += m[0].length;
          return r;
        }
        const m = /^[0-9A-Fa-f]{2}/.exec(this.s.slice(this.#pos, this.#pos + 2));
        if (m === null) return bad();
        this.#pos += 2;
        return parseInt(m[0], 16);
      }
      case 'a':
        return 0x07;
      case 'f':
        return 0x0c;
      case 'n':
        return 0x0a;
      case 'r':
        return 0x0d;
      case 't':
        return 0x09;
      case 'v':
        return 0x0b;
    }
    return bad();
  }

  /** `[…]` and `[^…]` (parse.go parseClass). */
  #bracketClass(): Re2Node {
    this.#pos++;
    let negated = false;
    if (this.#peek() === '^') {
      negated = true; // Go's Perl flags include ClassNL: [^a] matches \n
      this.#pos++;
    }
    const ranges: number[] = [];
    const tests: CodePointTest[] = [];
    let first = true; // ] and - are literal first
    while (this.#peek() !== ']' || first) {
      first = false;
      if (this.#pos >= this.s.length) throw new Re2SyntaxError('missing closing ]');
      const posix = this.#posixClass();
      if (posix !== undefined) {
        tests.push(posix);
        continue;
      }
      const group = this.#unicodeClass() ?? this.#perlClass();
      if (group !== undefined) {
        tests.push(group);
        continue;
      }
      const lo = this.#classChar();
      let hi = lo;
      // [a-] means a or -.
      if (this.#peek() === '-' && this.#peek(1) !== undefined && this.#peek(1) !== ']') {
        this.#pos++;
        hi = this.#classChar();
        if (hi < lo) throw new Re2SyntaxError('invalid character class range');
      }
      ranges.push(lo, hi);
    }
    this.#pos++; // ]
    if (ranges.length > 0) tests.push(this.#flags.foldCase ? folded((cp) => inRanges(ranges, cp)) : (cp) => inRanges(ranges, cp));
    const inClass: CodePointTest = (cp) => tests.some((t) => t(cp));
    return { op: 'char', test: negated ? (cp) => !inClass(cp) : inClass };
  }

  /** `[:alpha:]` or `[:^alpha:]` inside brackets (parse.go parseNamedClass), or undefined when not at one. */
  #posixClass(): CodePointTest | undefined {
    if (!this.s.startsWith('[:', this.#pos) || this.s.length - this.#pos <= 2) return undefined;
    const end = this.s.indexOf(':]', this.#pos + 2);
    if (end < 0) return undefined;
    let name = this.s.slice(this.#pos + 2, end);
    const negated = name.startsWith('^');
    if (negated) name = name.slice(1);
    const ranges = POSIX_GROUPS.get(name);
    if (ranges === undefined) throw new Re2SyntaxError(`invalid character class range: ${this.s.slice(this.#pos, end + 2)}`);
    this.#pos = end + 2;
    return this.#charGroup(ranges, negated);
  }

  /** One character inside brackets, escapes allowed (parse.go parseClassChar). */
  #classChar(): number {
    if (this.#pos >= this.s.length) throw new Re2SyntaxError('missing closing ]');
    return this.#peek() === '\\' ? this.#escape() : this.#nextRune();
  }
}

/**
 * Whether nested counted repeats make at most `n` copies of their innermost part (Go
 * regexp/syntax repeatIsValid, including its integer division).
 */
function repeatIsValid(node: Re2Node, n: number): boolean {
  if (node.op === 'repeat' && node.counted) {
    let m = node.max;
    if (m === 0) return true;
    if (m < 0) m = node.min;
    if (m > n) return false;
    if (m > 0) n = Math.trunc(n / m);
  }
  switch (node.op) {
    case 'concat':
    case 'alt':
      return node.subs.every((sub) => repeatIsValid(sub, n));
    case 'repeat':
      return repeatIsValid(node.sub, n);
    default:
      return true;
  }
}
