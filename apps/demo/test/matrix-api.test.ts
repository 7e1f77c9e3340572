/** Who sees whom as data: rows from an observer's views, and the state counts over its pairs. */
import { expect, it } from 'vitest';
import { byName, countStates, matrixRow } from '../src/matrix-api.js';

const views: Record<string, Record<string, { state: 'alive' | 'suspect' | 'dead' | 'left'; incarnation: number }>> = {
  a: { a: { state: 'alive', incarnation: 1 }, b: { state: 'suspect', incarnation: 2 }, c: { state: 'dead', incarnation: 1 } },
  b: { a: { state: 'alive', incarnation: 1 }, b: { state: 'alive', incarnation: 3 } },
  c: { c: { state: 'alive', incarnation: 2 }, a: { state: 'left', incarnation: 4 } },
};

it.each([
  ['a', 'asd', [1, 2, 1]],
  ['b', 'aa-', [1, 3, 0]],
  ['c', 'l-a', [4, 0, 2]],
])('observer %s: states %s, incarnations %j', (observer, states, incarnations) => {
  const row = matrixRow(observer, 0, ['a', 'b', 'c'], (subject) => views[observer]![subject]);
  expect(row).toEqual({ observer, healthScore: 0, states, incarnations });
});

it('counts every (observer, other member) pair once; an observer about itself and unknown members are not counted', () => {
  const members = ['a', 'b', 'c'];
  const rows = members.map((observer) => matrixRow(observer, 0, members, (subject) => views[observer]![subject]));
  // a: b suspect, c dead; b: a alive (c unknown); c: a left (b unknown).
  expect(countStates({ members, rows })).toEqual({ alive: 1, suspect: 1, dead: 1, left: 1 });
});

it('orders names with their numbers as numbers', () => {
  expect(['m10', 'gateway', 'm2', 'tab-00ff', 'm1'].sort(byName)).toEqual(['gateway', 'm1', 'm2', 'm10', 'tab-00ff']);
});
