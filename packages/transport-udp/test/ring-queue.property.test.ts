import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RingQueue } from '../src/ring-queue.js';

describe('RingQueue', () => {
  // Pushes outweigh shifts, so the ring fills up while its head is past 0: growth must unroll from it.
  it('behaves as an array used first-in first-out, across growth and wrap-around (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof({ arbitrary: fc.integer(), weight: 3 }, { arbitrary: fc.constant('shift' as const), weight: 2 }), { minLength: 40, maxLength: 300, size: 'max' }), (ops) => {
        const ring = new RingQueue<number>();
        const model: number[] = [];
        for (const op of ops) {
          if (op === 'shift') {
            if (model.length === 0) continue;
            expect(ring.peek()).toBe(model[0]);
            expect(ring.shift()).toBe(model.shift());
          } else {
            ring.push(op);
            model.push(op);
          }
          expect(ring.length).toBe(model.length);
        }
        const rest: number[] = [];
        while (ring.length > 0) rest.push(ring.shift());
        expect(rest).toEqual(model);
      }),
      { numRuns: 300 },
    );
  });
});
