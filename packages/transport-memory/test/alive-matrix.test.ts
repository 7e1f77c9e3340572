import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AliveMatrix } from '../src/alive-matrix.js';

type Op = { kind: 'add' } | { kind: 'set'; o: number; s: number; alive: boolean } | { kind: 'down'; index: number } | { kind: 'up'; index: number };

/** The naive view: who holds whom alive, and who is live; converged when every live member holds every other alive. */
function naiveConverged(size: number, alive: ReadonlySet<string>, live: ReadonlySet<number>): boolean {
  for (let o = 0; o < size; o++) {
    if (!live.has(o)) continue;
    for (const s of live) if (s !== o && !alive.has(`${o},${s}`)) return false;
  }
  return true;
}

describe('AliveMatrix (one bit per observer and subject)', () => {
  it('answers converged() as the naive view does, through growth past 32 and 64 members, downs and restarts', () => {
    const op: fc.Arbitrary<Op> = fc.oneof(
      { arbitrary: fc.constant({ kind: 'add' as const }), weight: 2 },
      { arbitrary: fc.record({ kind: fc.constant('set' as const), o: fc.nat(80), s: fc.nat(80), alive: fc.boolean() }), weight: 6 },
      { arbitrary: fc.record({ kind: fc.constant('down' as const), index: fc.nat(80) }), weight: 1 },
      { arbitrary: fc.record({ kind: fc.constant('up' as const), index: fc.nat(80) }), weight: 1 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 70 }), fc.array(op, { maxLength: 300 }), (start, ops) => {
        const matrix = new AliveMatrix();
        const alive = new Set<string>();
        const live = new Set<number>();
        let size = 0;
        const add = () => {
          expect(matrix.add()).toBe(size);
          live.add(size++);
        };
        for (let i = 0; i < start; i++) add();
        for (const o of ops) {
          if (o.kind === 'add') add();
          else if (o.kind === 'set' && o.o < size && o.s < size && o.o !== o.s) {
            matrix.set(o.o, o.s, o.alive);
            if (o.alive) alive.add(`${o.o},${o.s}`);
            else alive.delete(`${o.o},${o.s}`);
          } else if (o.kind === 'down' && o.index < size) {
            matrix.down(o.index);
            live.delete(o.index);
          } else if (o.kind === 'up' && o.index < size && !live.has(o.index)) {
            // A restart: live again, seeing nobody; the others' views of it are kept.
            matrix.up(o.index);
            live.add(o.index);
            for (let s = 0; s < size; s++) alive.delete(`${o.index},${s}`);
          }
          expect(matrix.converged()).toBe(naiveConverged(size, alive, live));
        }
        // Everyone sees every live member alive: converged, whatever came before.
        for (const o of live) for (const s of live) if (o !== s) matrix.set(o, s, true);
        expect(matrix.converged()).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
