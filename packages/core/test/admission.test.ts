import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NewMemberBudget } from '../src/members/admission.js';

/** The budget as it was before expired windows were swept: the model its answers must match. */
class UnsweptBudget {
  readonly #used = new Map<string, { windowStart: number; count: number }>();
  constructor(
    private readonly perWindow: number,
    private readonly windowMs: number,
    private readonly maxSources: number,
  ) {}

  take(source: string, now: number): boolean {
    let entry = this.#used.get(source);
    if (entry === undefined || now - entry.windowStart >= this.windowMs) {
      if (entry === undefined && this.#used.size >= this.maxSources) {
        for (const [s, e] of this.#used) if (now - e.windowStart >= this.windowMs) this.#used.delete(s);
        if (this.#used.size >= this.maxSources) this.#used.clear();
      }
      entry = { windowStart: now, count: 0 };
      this.#used.set(source, entry);
    }
    if (entry.count >= this.perWindow) return false;
    entry.count++;
    return true;
  }
}

describe('NewMemberBudget', () => {
  it('answers as before while fewer sources than its bound are in an open window', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ source: fc.integer({ min: 0, max: 5 }), dt: fc.integer({ min: 0, max: 700 }) }), { maxLength: 300 }),
        (takes) => {
          const budget = new NewMemberBudget(3, 1000, 8);
          const model = new UnsweptBudget(3, 1000, 8);
          let now = 0;
          for (const { source, dt } of takes) {
            now += dt;
            expect(budget.take(`s${source}`, now)).toBe(model.take(`s${source}`, now));
          }
        },
      ),
    );
  });

  it('stops tracking the sources of windows that have ended (a join storm taught by every member)', () => {
    const budget = new NewMemberBudget(64, 1000);
    for (let i = 0; i < 1000; i++) budget.take(`member-${i}:1`, i / 2);
    expect(budget.trackedSources).toBe(1000);
    budget.take('member-0:1', 1_600);
    expect(budget.trackedSources).toBe(1);
  });
});
