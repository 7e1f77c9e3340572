import { isWordChar, type CodePointTest } from './re2-classes.js';
import type { AssertKind, Re2Node } from './re2-parse.js';

/**
 * A parsed expression compiled to a Thompson NFA and run as RE2 runs it (Russ Cox, "Regular
 * Expression Matching Can Be Simple And Fast"): every live state advances one character at a
 * time, each state at most once per position. A match costs at most (characters + 1) × program
 * size steps, whatever the expression; nothing backtracks (docs/design.md, "Queries").
 */

type Inst =
  | { readonly op: 'char'; readonly test: CodePointTest; next: number }
  | { readonly op: 'assert'; readonly kind: AssertKind; next: number }
  | { readonly op: 'split'; x: number; y: number }
  | { readonly op: 'jump'; next: number }
  | { readonly op: 'match' };

/** The program grew past the caller's bound while compiling. */
class TooLarge extends Error {}

/** The outcome of matching a tag expression against a text. */
export interface MatchOutcome {
  /** Whether the expression matches somewhere in the text (Go regexp.MatchString). */
  readonly matched: boolean;
  /** States visited: at most (code points + 1) × the program's size. */
  readonly steps: number;
  /** The step budget ran out first; `matched` is then false. */
  readonly exhausted: boolean;
}

/** A compiled expression. */
export class Re2Program {
  readonly #insts: readonly Inst[];
  readonly #start: number;

  private constructor(insts: readonly Inst[], start: number) {
    this.#insts = insts;
    this.#start = start;
  }

  /** Compiles `node`; undefined when the program would have more than `maxSize` instructions. */
  static compile(node: Re2Node, maxSize: number): Re2Program | undefined {
    const insts: Inst[] = [];
    const emit = (inst: Inst): number => {
      if (insts.length >= maxSize) throw new TooLarge();
      insts.push(inst);
      return insts.length - 1;
    };
    try {
      const match = emit({ op: 'match' });
      const start = compileNode(node, match, emit);
      return new Re2Program(insts, start);
    } catch (err) {
      if (err instanceof TooLarge) return undefined;
      throw err;
    }
  }

  /** Instructions in the program. */
  get size(): number {
    return this.#insts.length;
  }

  /**
   * Whether the expression matches anywhere in `text` (unanchored, as Go's `MatchString`).
   * Stops with `exhausted` once `budget` states have been visited.
   */
  match(text: string, budget = Number.POSITIVE_INFINITY): MatchOutcome {
    const cps = codePoints(text);
    const n = cps.length;
    const size = this.#insts.length;
    let current = new Int32Array(size);
    let next = new Int32Array(size);
    let currentCount = 0;
    let nextCount = 0;
    // mark[pc] === generation: pc is already on the list being built.
    const mark = new Int32Array(size).fill(-1);
    // Each state visited pushes at most two and pops one: the stack never holds more than size + 1.
    const stack = new Int32Array(size + 1);
    let steps = 0;

    /** Adds `pc` and what it reaches without consuming input at position `at` to `list`; true on a match. */
    const add = (list: Int32Array, count: number, pc0: number, at: number): number => {
      let top = 0;
      stack[top++] = pc0;
      while (top > 0) {
        const pc = stack[--top] as number;
        if (mark[pc] === at) continue;
        mark[pc] = at;
        steps++;
        const inst = this.#insts[pc] as Inst;
        switch (inst.op) {
          case 'match':
            return -1;
          case 'char':
            list[count++] = pc;
            break;
          case 'jump':
            stack[top++] = inst.next;
            break;
          case 'split':
            stack[top++] = inst.y;
            stack[top++] = inst.x;
            break;
          case 'assert':
            if (holds(inst.kind, cps, at)) stack[top++] = inst.next;
            break;
        }
      }
      return count;
    };

    for (let at = 0; at <= n; at++) {
      // Unanchored: a new thread starts at every position.
      const added = add(current, currentCount, this.#start, at);
      if (added < 0) return { matched: true, steps, exhausted: false };
      currentCount = added;
      if (steps > budget) return { matched: false, steps, exhausted: true };
      if (at === n) break;
      const cp = cps[at] as number;
      nextCount = 0;
      for (let i = 0; i < currentCount; i++) {
        const inst = this.#insts[current[i] as number] as Extract<Inst, { op: 'char' }>;
        if (!inst.test(cp)) continue;
        const count = add(next, nextCount, inst.next, at + 1);
        if (count < 0) return { matched: true, steps, exhausted: false };
        nextCount = count;
      }
      [current, next] = [next, current];
      currentCount = nextCount;
    }
    return { matched: false, steps, exhausted: false };
  }
}

/** Go iterates a string by runes; a lone surrogate cannot be UTF-8, so it reads as U+FFFD. */
function codePoints(text: string): number[] {
  const out: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    out.push(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
  }
  return out;
}

function holds(kind: AssertKind, cps: readonly number[], at: number): boolean {
  const before = at > 0 ? (cps[at - 1] as number) : -1;
  const after = at < cps.length ? (cps[at] as number) : -1;
  switch (kind) {
    case 'begin-text':
      return at === 0;
    case 'end-text':
      return at === cps.length;
    case 'begin-line':
      return at === 0 || before === 0x0a;
    case 'end-line':
      return at === cps.length || after === 0x0a;
    case 'word-boundary':
      return isWordChar(before) !== isWordChar(after);
    case 'not-word-boundary':
      return isWordChar(before) === isWordChar(after);
  }
}

/** Emits `node` so that it continues at `next`; returns its entry point. Built back to front. */
function compileNode(node: Re2Node, next: number, emit: (inst: Inst) => number): number {
  switch (node.op) {
    case 'empty':
      return next;
    case 'char':
      return emit({ op: 'char', test: node.test, next });
    case 'assert':
      return emit({ op: 'assert', kind: node.kind, next });
    case 'concat': {
      let entry = next;
      for (let i = node.subs.length - 1; i >= 0; i--) entry = compileNode(node.subs[i] as Re2Node, entry, emit);
      return entry;
    }
    case 'alt': {
      let entry = compileNode(node.subs[node.subs.length - 1] as Re2Node, next, emit);
      for (let i = node.subs.length - 2; i >= 0; i--) {
        const x = compileNode(node.subs[i] as Re2Node, next, emit);
        entry = emit({ op: 'split', x, y: entry });
      }
      return entry;
    }
    case 'repeat': {
      let entry = next;
      let copies = node.min;
      if (node.max < 0) {
        // x* loops through a split; x+ is x followed by a split back to it, one copy of x either way.
        const split: Inst = { op: 'split', x: -1, y: next };
        const loop = emit(split);
        split.x = compileNode(node.sub, loop, emit);
        entry = node.min === 0 ? loop : split.x;
        copies = Math.max(0, node.min - 1);
      } else {
        // x{0,k} after the required copies: (x(x(x)?)?)?, each copy free to stop.
        for (let i = 0; i < node.max - node.min; i++) {
          const x = compileNode(node.sub, entry, emit);
          entry = emit({ op: 'split', x, y: next });
        }
      }
      for (let i = 0; i < copies; i++) entry = compileNode(node.sub, entry, emit);
      return entry;
    }
  }
}
