import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeadlineQueue } from '../src/support/deadline-queue.js';

function drain<K extends string>(queue: DeadlineQueue<K>, now: number): K[] {
  const out: K[] = [];
  for (let key = queue.popDue(now); key !== undefined; key = queue.popDue(now)) out.push(key);
  return out;
}

describe('DeadlineQueue', () => {
  it('is empty at first', () => {
    const queue = new DeadlineQueue();
    expect(queue.size).toBe(0);
    expect(queue.next()).toBeUndefined();
    expect(queue.popDue(Infinity)).toBeUndefined();
    expect(queue.get('x')).toBeUndefined();
    expect(queue.has('x')).toBe(false);
    expect(queue.delete('x')).toBe(false);
  });

  it('pops in deadline order', () => {
    const queue = new DeadlineQueue();
    queue.set('c', 30);
    queue.set('a', 10);
    queue.set('d', 40);
    queue.set('b', 20);
    expect(queue.size).toBe(4);
    expect(queue.next()).toBe(10);
    expect(drain(queue, 100)).toEqual(['a', 'b', 'c', 'd']);
    expect(queue.size).toBe(0);
  });

  it('popDue only returns keys whose deadline is ≤ now', () => {
    const queue = new DeadlineQueue();
    queue.set('probe', 100);
    queue.set('gossip', 50);
    expect(queue.popDue(49)).toBeUndefined();
    expect(queue.popDue(50)).toBe('gossip');
    expect(queue.popDue(99)).toBeUndefined();
    expect(queue.next()).toBe(100);
    expect(queue.popDue(NaN)).toBeUndefined();
    expect(queue.popDue(100)).toBe('probe');
  });

  it('moves a key earlier or later', () => {
    const queue = new DeadlineQueue();
    queue.set('a', 10);
    queue.set('b', 20);
    queue.set('c', 30);
    queue.set('c', 5);
    expect(queue.get('c')).toBe(5);
    expect(queue.next()).toBe(5);
    queue.set('c', 25);
    queue.set('a', 40);
    expect(queue.size).toBe(3);
    expect(drain(queue, 100)).toEqual(['b', 'c', 'a']);
  });

  it('deletes keys anywhere in the heap', () => {
    const queue = new DeadlineQueue();
    const deadlines = new Map<string, number>();
    for (let i = 0; i < 20; i++) {
      deadlines.set(`k${i}`, (i * 7) % 20);
      queue.set(`k${i}`, (i * 7) % 20);
    }
    expect(queue.delete('k0')).toBe(true); // the minimum
    expect(queue.delete('k13')).toBe(true);
    expect(queue.delete('k13')).toBe(false);
    expect(queue.has('k13')).toBe(false);
    expect(queue.size).toBe(18);
    const popped = drain(queue, 100);
    expect(popped).not.toContain('k0');
    expect(popped).not.toContain('k13');
    const times = popped.map((k) => deadlines.get(k));
    expect(times).toEqual([...times].sort((a, b) => a! - b!));
  });

  it('breaks ties by the order set() was last called', () => {
    const queue = new DeadlineQueue();
    queue.set('a', 10);
    queue.set('b', 10);
    queue.set('c', 10);
    queue.set('a', 10); // re-set: now the newest of the three
    expect(drain(queue, 10)).toEqual(['b', 'c', 'a']);
  });

  it('keeps ties deterministic after moves between deadlines', () => {
    const queue = new DeadlineQueue();
    queue.set('x', 5);
    queue.set('y', 20);
    queue.set('z', 20);
    queue.set('x', 20);
    queue.set('y', 1);
    queue.set('y', 20);
    expect(drain(queue, 20)).toEqual(['z', 'x', 'y']);
  });

  it('accepts Infinity but rejects NaN deadlines', () => {
    const queue = new DeadlineQueue();
    queue.set('never', Infinity);
    expect(queue.popDue(1e300)).toBeUndefined();
    expect(() => queue.set('bad', NaN)).toThrow(RangeError);
    expect(queue.has('bad')).toBe(false);
  });

  it('keeps at most 16 entries beyond those queued, however many one-off keys pass through', () => {
    const queue = new DeadlineQueue();
    queue.set('probe', 1e9);
    for (let i = 0; i < 10_000; i++) {
      queue.set(`suspect:n${i}`, i);
      if (i % 2 === 0) queue.delete(`suspect:n${i}`);
      else expect(queue.popDue(i)).toBe(`suspect:n${i}`);
      expect(queue.held).toBeLessThanOrEqual(1 + 16);
    }
    expect(queue.size).toBe(1);
    // A key that went dormant and came back is queued as new.
    queue.set('probe', 5);
    expect(queue.popDue(5)).toBe('probe');
    expect(queue.has('probe')).toBe(false);
    queue.set('probe', 6);
    expect(queue.get('probe')).toBe(6);
    expect(queue.popDue(10)).toBe('probe');
  });

  it('narrows keys to a string union', () => {
    const queue = new DeadlineQueue<'probe' | `suspect:${string}`>();
    queue.set('suspect:n1', 3);
    queue.set('probe', 1);
    const first: 'probe' | `suspect:${string}` | undefined = queue.popDue(5);
    expect(first).toBe('probe');
  });
});

type Op =
  | { kind: 'set'; key: string; at: number }
  | { kind: 'delete'; key: string }
  | { kind: 'pop'; now: number }
  | { kind: 'query'; key: string };

/** The obviously-correct model: a map scanned linearly for the minimum (deadline, set order). */
class NaiveDeadlines {
  private readonly entries = new Map<string, { at: number; seq: number }>();
  private seq = 0;

  set(key: string, at: number): void {
    this.entries.set(key, { at, seq: this.seq++ });
  }
  delete(key: string): boolean {
    return this.entries.delete(key);
  }
  get(key: string): number | undefined {
    return this.entries.get(key)?.at;
  }
  private earliest(): [string, { at: number; seq: number }] | undefined {
    let best: [string, { at: number; seq: number }] | undefined;
    for (const entry of this.entries) {
      if (best === undefined || entry[1].at < best[1].at || (entry[1].at === best[1].at && entry[1].seq < best[1].seq)) {
        best = entry;
      }
    }
    return best;
  }
  next(): number | undefined {
    return this.earliest()?.[1].at;
  }
  popDue(now: number): string | undefined {
    const best = this.earliest();
    if (best === undefined || best[1].at > now) return undefined;
    this.entries.delete(best[0]);
    return best[0];
  }
  get size(): number {
    return this.entries.size;
  }
}

describe('DeadlineQueue against a naive model', () => {
  // More keys than the dormant entries kept (16), so reuse and the drop of dormant ones both happen.
  const key = fc.constantFrom(...Array.from({ length: 40 }, (_, i) => `k${i}`));
  // Few distinct deadlines so ties are common.
  const time = fc.integer({ min: 0, max: 12 });
  const op: fc.Arbitrary<Op> = fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('set' as const), key, at: time }), weight: 4 },
    { arbitrary: fc.record({ kind: fc.constant('delete' as const), key }), weight: 1 },
    { arbitrary: fc.record({ kind: fc.constant('pop' as const), now: time }), weight: 3 },
    { arbitrary: fc.record({ kind: fc.constant('query' as const), key }), weight: 1 },
  );

  it('agrees on every operation', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const queue = new DeadlineQueue();
        const model = new NaiveDeadlines();
        for (const o of ops) {
          switch (o.kind) {
            case 'set':
              queue.set(o.key, o.at);
              model.set(o.key, o.at);
              break;
            case 'delete':
              expect(queue.delete(o.key)).toBe(model.delete(o.key));
              break;
            case 'pop':
              expect(queue.popDue(o.now)).toBe(model.popDue(o.now));
              break;
            case 'query':
              expect(queue.get(o.key)).toBe(model.get(o.key));
              expect(queue.has(o.key)).toBe(model.get(o.key) !== undefined);
              break;
          }
          expect(queue.size).toBe(model.size);
          expect(queue.held).toBeLessThanOrEqual(queue.size + 16);
          expect(queue.next()).toBe(model.next());
        }
        // Drain everything: the full order must match too.
        for (;;) {
          const expected = model.popDue(Infinity);
          expect(queue.popDue(Infinity)).toBe(expected);
          if (expected === undefined) break;
        }
      }),
      { numRuns: 500 },
    );
  });
});
