/**
 * Who sees whom: the state every observer holds about every member, one row per observer. The
 * live cluster (GET /api/state) and both sides of the headline run (GET /api/headline) report
 * their views in this shape, so the page draws them with one renderer. Plain data, browser-safe.
 */
import type { MemberState } from '@swim/core';

/** One letter per state in {@link MatrixRow.states}; '-' when the observer has not heard of the member. */
export const STATE_LETTER: Readonly<Record<MemberState, string>> = { alive: 'a', suspect: 's', dead: 'd', left: 'l' };
export const LETTER_STATE: Readonly<Record<string, MemberState | 'unknown'>> = { a: 'alive', s: 'suspect', d: 'dead', l: 'left', '-': 'unknown' };

export interface MatrixRow {
  readonly observer: string;
  readonly healthScore: number;
  /** The state this observer holds about each of the matrix's `members`, one letter each ({@link STATE_LETTER}). */
  readonly states: string;
  /** The incarnation it holds about each, in the same order (0 when unknown). */
  readonly incarnations: readonly number[];
}

export interface ViewMatrix {
  /** The columns. */
  readonly members: readonly string[];
  readonly rows: readonly MatrixRow[];
}

export type StateCounts = Record<MemberState, number>;

/** A row from an observer's lookup of each subject. */
export function matrixRow(
  observer: string,
  healthScore: number,
  subjects: readonly string[],
  lookup: (subject: string) => { readonly state: MemberState; readonly incarnation: number } | undefined,
): MatrixRow {
  let states = '';
  const incarnations: number[] = [];
  for (const subject of subjects) {
    const view = lookup(subject);
    states += view === undefined ? '-' : STATE_LETTER[view.state];
    incarnations.push(view?.incarnation ?? 0);
  }
  return { observer, healthScore, states, incarnations };
}

/** Over every (observer, other member) pair of the matrix: how many are held in each state. */
export function countStates(matrix: ViewMatrix): StateCounts {
  const counts: StateCounts = { alive: 0, suspect: 0, dead: 0, left: 0 };
  for (const row of matrix.rows) {
    for (const [i, letter] of [...row.states].entries()) {
      const state = LETTER_STATE[letter];
      if (matrix.members[i] === row.observer || state === undefined || state === 'unknown') continue;
      counts[state]++;
    }
  }
  return counts;
}

/** Demo names in reading order: numbers inside names compare as numbers (m2 before m10). */
export function byName(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
