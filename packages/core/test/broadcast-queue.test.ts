import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BroadcastQueue, type TakenBroadcasts } from '../src/dissemination/broadcast-queue.js';

/** A message whose first byte tags it, so tests can tell parts apart. */
function msg(tag: number, size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  if (size > 0) bytes[0] = tag;
  return bytes;
}

function sizes(taken: TakenBroadcasts): number[] {
  return taken.parts.map((p) => p.length);
}

describe('BroadcastQueue basics', () => {
  it('replaces a queued item with the same key and reports its token', () => {
    const queue = new BroadcastQueue();
    expect(queue.enqueue('node-a', msg(1, 10), 'alive-a')).toEqual([]);
    expect(queue.enqueue('node-b', msg(2, 10))).toEqual([]);
    expect(queue.enqueue('node-a', msg(3, 12), 'suspect-a')).toEqual(['alive-a']);
    expect(queue.enqueue('node-b', msg(4, 12), 'dead-b')).toEqual([]); // replaced item had no token
    expect(queue.size).toBe(2);
    const taken = queue.take(1000, 2, 3);
    expect(taken.parts.map((p) => p[0]).sort()).toEqual([3, 4]);
  });

  it('invalidate removes an item and returns its token', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('a', msg(1, 5), 't-a');
    queue.enqueue('b', msg(2, 5));
    expect(queue.invalidate('a')).toEqual(['t-a']);
    expect(queue.invalidate('a')).toEqual([]);
    expect(queue.invalidate('b')).toEqual([]);
    expect(queue.invalidate('missing')).toEqual([]);
    expect(queue.size).toBe(0);
    expect(queue.take(1000, 0, 5).parts).toEqual([]);
  });

  it('invalidates items in later tiers', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('a', msg(1, 5), 't-a');
    queue.enqueue('b', msg(2, 6), 't-b');
    queue.take(1000, 0, 5);
    queue.enqueue('c', msg(3, 7));
    expect(queue.invalidate('b')).toEqual(['t-b']);
    expect(queue.peek()).toEqual([
      { key: 'c', size: 7, transmits: 0 },
      { key: 'a', size: 5, transmits: 1 },
    ]);
  });

  it('clear drops everything and returns every token', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('a', msg(1, 5), 't-a');
    queue.enqueue('b', msg(2, 5));
    queue.enqueue('c', msg(3, 5), 't-c');
    queue.take(1000, 0, 5);
    expect(queue.clear().sort()).toEqual(['t-a', 't-c']);
    expect(queue.size).toBe(0);
    expect(queue.peek()).toEqual([]);
    expect(queue.clear()).toEqual([]);
  });

  it('sends the least-transmitted items first', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('old', msg(1, 100));
    expect(sizes(queue.take(1000, 0, 4))).toEqual([100]);
    queue.enqueue('new', msg(2, 10));
    // Only one fits: the fresh small item beats the larger, already-sent one.
    const taken = queue.take(110, 2, 4);
    expect(taken.parts.map((p) => p[0])).toEqual([2]);
    // Both now sent once: within the tier, larger first.
    expect(queue.peek()).toEqual([
      { key: 'old', size: 100, transmits: 1 },
      { key: 'new', size: 10, transmits: 1 },
    ]);
  });

  it('takes the largest item that fits within a tier, then fills the rest', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('a', msg(1, 100));
    queue.enqueue('b', msg(2, 50));
    queue.enqueue('c', msg(3, 30));
    queue.enqueue('d', msg(4, 20));
    // free = 85 − 0 − 5 = 80: 50 fits (100 does not); then free = 85 − 55 − 5 = 25: 20 fits, 30 does not.
    const taken = queue.take(85, 5, 3);
    expect(sizes(taken)).toEqual([50, 20]);
    expect(taken.bytes).toBe(70);
  });

  it('prefers the newest item among equal sizes', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('a', msg(1, 10));
    queue.enqueue('b', msg(2, 10));
    queue.enqueue('c', msg(3, 10));
    expect(queue.take(12, 2, 3).parts.map((p) => p[0])).toEqual([3]);
    expect(queue.peek().map((i) => i.key)).toEqual(['b', 'a', 'c']);
    expect(queue.take(36, 2, 3).parts.map((p) => p[0])).toEqual([2, 1, 3]);
  });

  it('peek lists items in take order', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('small-old', msg(0, 5));
    queue.enqueue('big', msg(0, 50));
    queue.enqueue('small-new', msg(0, 5));
    expect(queue.peek()).toEqual([
      { key: 'big', size: 50, transmits: 0 },
      { key: 'small-new', size: 5, transmits: 0 },
      { key: 'small-old', size: 5, transmits: 0 },
    ]);
  });

  it('never returns the same item twice in one take', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('only', msg(1, 10), 'tok');
    const taken = queue.take(10_000, 2, 5);
    expect(taken.parts).toHaveLength(1);
    expect(taken.finished).toEqual([]);
    expect(queue.peek()).toEqual([{ key: 'only', size: 10, transmits: 1 }]);
  });

  it('sends each item exactly transmitLimit times, then finishes it with its token', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('a', msg(1, 10), 'tok-a');
    queue.enqueue('b', msg(2, 10));
    const sends = { a: 0, b: 0 };
    const finished: string[] = [];
    for (let round = 0; round < 10; round++) {
      const taken = queue.take(1400, 2, 4);
      for (const p of taken.parts) sends[p[0] === 1 ? 'a' : 'b']++;
      finished.push(...taken.finished);
    }
    expect(sends).toEqual({ a: 4, b: 4 });
    expect(finished).toEqual(['tok-a']);
    expect(queue.size).toBe(0);
  });

  it('sends once with a transmit limit of 1 (or less)', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('a', msg(1, 10), 'x');
    queue.enqueue('b', msg(2, 10), 'y');
    const taken = queue.take(1400, 2, 0);
    expect(taken.parts).toHaveLength(2);
    expect([...taken.finished].sort()).toEqual(['x', 'y']);
    expect(queue.size).toBe(0);
  });

  it('finishes items above a lowered transmit limit on their next send', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('a', msg(1, 10), 'tok');
    for (let i = 0; i < 5; i++) queue.take(100, 0, 12);
    expect(queue.peek()[0]?.transmits).toBe(5);
    expect(queue.take(100, 0, 4).finished).toEqual(['tok']);
  });

  it('leaves an item that fits no budget queued while smaller ones pass it', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('huge', msg(1, 2000), 'h');
    queue.enqueue('small', msg(2, 10));
    for (let i = 0; i < 5; i++) queue.take(1400, 2, 3);
    expect(queue.peek()).toEqual([{ key: 'huge', size: 2000, transmits: 0 }]);
  });

  it('stops when no room is left for another part', () => {
    const queue = new BroadcastQueue();
    queue.enqueue('empty', new Uint8Array(0));
    expect(queue.take(2, 2, 3).parts).toEqual([]); // free = 0: memberlist stops at free ≤ 0
    expect(queue.take(3, 2, 3).parts).toHaveLength(1);
  });

  it('is nearly free when empty', () => {
    const queue = new BroadcastQueue();
    const first = queue.take(1400, 2, 4);
    expect(first.parts).toEqual([]);
    expect(first.bytes).toBe(0);
    expect(first.finished).toEqual([]);
    // No allocation: the same frozen result every time.
    expect(queue.take(1400, 2, 4)).toBe(first);
    const start = performance.now();
    for (let i = 0; i < 1_000_000; i++) queue.take(1400, 2, 4);
    expect(performance.now() - start).toBeLessThan(1000);
  });

  it('drains a join burst of 1,000 items within budget', () => {
    const queue = new BroadcastQueue();
    for (let i = 0; i < 1000; i++) queue.enqueue(`node-${i}`, msg(i & 0xff, 40 + (i % 17)), `t${i}`);
    const limit = 12;
    const finished = new Set<string>();
    let sent = 0;
    for (let round = 0; queue.size > 0; round++) {
      expect(round).toBeLessThan(1000);
      const taken = queue.take(1400, 2, limit);
      expect(taken.bytes + 2 * taken.parts.length).toBeLessThanOrEqual(1400);
      sent += taken.parts.length;
      for (const t of taken.finished) {
        expect(finished.has(t)).toBe(false);
        finished.add(t);
      }
    }
    expect(sent).toBe(1000 * limit);
    expect(finished.size).toBe(1000);
  });
});

// ---------------------------------------------------------------------------------------------
// Property tests against a literal transcription of memberlist's GetBroadcasts.

interface ModelItem {
  key: string;
  bytes: Uint8Array;
  token: string | undefined;
  id: number;
  transmits: number;
}

/** memberlist queue.go, written for clarity: one flat array, filtered and sorted on every pick. */
class ModelQueue {
  items: ModelItem[] = [];
  private nextId = 0;

  enqueue(key: string, bytes: Uint8Array, token?: string): string[] {
    const finished = this.invalidate(key);
    this.items.push({ key, bytes, token, id: this.nextId++, transmits: 0 });
    return finished;
  }

  invalidate(key: string): string[] {
    const item = this.items.find((i) => i.key === key);
    if (item === undefined) return [];
    this.items = this.items.filter((i) => i !== item);
    if (this.items.length === 0) this.nextId = 0;
    return item.token === undefined ? [] : [item.token];
  }

  take(budget: number, overhead: number, limit: number): { parts: Uint8Array[]; finished: string[] } {
    const parts: Uint8Array[] = [];
    const finished: string[] = [];
    const reinsert: ModelItem[] = [];
    if (this.items.length === 0) return { parts, finished };
    const counts = this.items.map((i) => i.transmits);
    let used = 0;
    for (let t = Math.min(...counts); t <= Math.max(...counts); ) {
      const free = budget - used - overhead;
      if (free <= 0) break;
      const fits = this.items
        .filter((i) => i.transmits === t && i.bytes.length <= free)
        .sort((x, y) => y.bytes.length - x.bytes.length || y.id - x.id);
      const keep = fits[0];
      if (keep === undefined) {
        t++;
        continue;
      }
      parts.push(keep.bytes);
      used += overhead + keep.bytes.length;
      this.items = this.items.filter((i) => i !== keep);
      if (keep.transmits + 1 >= limit) {
        if (keep.token !== undefined) finished.push(keep.token);
      } else {
        keep.transmits++;
        reinsert.push(keep);
      }
    }
    this.items.push(...reinsert);
    if (this.items.length === 0) this.nextId = 0;
    return { parts, finished };
  }

  peek(): Array<{ key: string; size: number; transmits: number }> {
    return [...this.items]
      .sort((x, y) => x.transmits - y.transmits || y.bytes.length - x.bytes.length || y.id - x.id)
      .map((i) => ({ key: i.key, size: i.bytes.length, transmits: i.transmits }));
  }

  clear(): string[] {
    const tokens = this.items.flatMap((i) => (i.token === undefined ? [] : [i.token]));
    this.items = [];
    this.nextId = 0;
    return tokens;
  }
}

type QueueOp =
  | { kind: 'enqueue'; key: string; size: number; withToken: boolean }
  | { kind: 'take'; budget: number; overhead: number; limitDelta: number }
  | { kind: 'invalidate'; key: string }
  | { kind: 'clear' };

const keyArb = fc.constantFrom('n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'n8', 'n9', 'u0', 'u1');
const opArb: fc.Arbitrary<QueueOp> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      key: keyArb,
      // Few sizes so ties are common; now and then one larger than most budgets.
      size: fc.oneof(fc.constantFrom(0, 8, 16, 16, 24, 40), fc.integer({ min: 0, max: 300 })),
      withToken: fc.boolean(),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('take' as const),
      budget: fc.integer({ min: 0, max: 200 }),
      overhead: fc.integer({ min: 0, max: 4 }),
      limitDelta: fc.integer({ min: -2, max: 2 }),
    }),
    weight: 5,
  },
  { arbitrary: fc.record({ kind: fc.constant('invalidate' as const), key: keyArb }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'clear' as const }), weight: 1 },
);

/** Runs `ops` on the queue and on the model side by side: every result and the order of what stays queued agree. */
function expectSameAsModel(ops: readonly QueueOp[], baseLimit: number): void {
  const queue = new BroadcastQueue();
  const model = new ModelQueue();
  let serial = 0;
  for (const op of ops) {
    switch (op.kind) {
      case 'enqueue': {
        const bytes = new Uint8Array(op.size);
        const token = op.withToken ? `tok${serial++}` : undefined;
        expect(queue.enqueue(op.key, bytes, token)).toEqual(model.enqueue(op.key, bytes, token));
        break;
      }
      case 'take': {
        const limit = Math.max(0, baseLimit + op.limitDelta);
        const taken = queue.take(op.budget, op.overhead, limit);
        const expected = model.take(op.budget, op.overhead, limit);
        expect(taken.parts.length).toBe(expected.parts.length);
        taken.parts.forEach((p, i) => expect(p).toBe(expected.parts[i]));
        expect(taken.finished).toEqual(expected.finished);
        expect(taken.bytes).toBe(expected.parts.reduce((sum, p) => sum + p.length, 0));
        break;
      }
      case 'invalidate':
        expect(queue.invalidate(op.key)).toEqual(model.invalidate(op.key));
        break;
      case 'clear':
        expect(queue.clear().sort()).toEqual(model.clear().sort());
        break;
    }
    expect(queue.size).toBe(model.items.length);
    expect(queue.peek()).toEqual(model.peek());
  }
}

describe('BroadcastQueue properties', () => {
  it('matches memberlist GetBroadcasts exactly, including with varying transmit limits', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 150 }), fc.integer({ min: 1, max: 6 }), expectSameAsModel),
      { numRuns: 400 },
    );
  });

  it('matches memberlist GetBroadcasts when takes stop inside a tier (items of one size climb out of id order)', () => {
    // Budgets that fit a few 10-byte items: a take leaves older items of a size behind, a later
    // take sends them with newer ones, and that run lands among items sent before it.
    const narrowOp: fc.Arbitrary<QueueOp> = fc.oneof(
      {
        arbitrary: fc.record({
          kind: fc.constant('enqueue' as const),
          key: fc.integer({ min: 0, max: 15 }).map((i) => `k${i}`),
          size: fc.constantFrom(10, 10, 10, 20),
          withToken: fc.boolean(),
        }),
        weight: 4,
      },
      {
        arbitrary: fc.record({
          kind: fc.constant('take' as const),
          budget: fc.integer({ min: 0, max: 45 }),
          overhead: fc.constantFrom(0, 1),
          limitDelta: fc.integer({ min: 0, max: 2 }),
        }),
        weight: 4,
      },
      { arbitrary: fc.record({ kind: fc.constant('invalidate' as const), key: fc.integer({ min: 0, max: 15 }).map((i) => `k${i}`) }), weight: 1 },
    );
    fc.assert(fc.property(fc.array(narrowOp, { maxLength: 200 }), fc.integer({ min: 2, max: 8 }), expectSameAsModel), { numRuns: 400 });
  });

  it('respects budgets and transmit limits, and finishes every token exactly once', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), fc.integer({ min: 1, max: 5 }), (ops, limit) => {
        const queue = new BroadcastQueue();
        /** Per enqueued message (by identity): its token and how often it has been sent. */
        const sent = new Map<Uint8Array, { token: string | undefined; count: number }>();
        const tokenOf = new Map<string, Uint8Array>();
        const finishedCount = new Map<string, number>();
        const finishedByLimit = new Set<string>();
        let serial = 0;
        const finish = (tokens: readonly string[]) => {
          for (const t of tokens) finishedCount.set(t, (finishedCount.get(t) ?? 0) + 1);
        };

        for (const op of ops) {
          switch (op.kind) {
            case 'enqueue': {
              const bytes = new Uint8Array(op.size);
              const token = op.withToken ? `tok${serial++}` : undefined;
              sent.set(bytes, { token, count: 0 });
              if (token !== undefined) tokenOf.set(token, bytes);
              finish(queue.enqueue(op.key, bytes, token));
              break;
            }
            case 'take': {
              const taken = queue.take(op.budget, op.overhead, limit);
              // Budget: parts plus overhead per part never exceed it.
              expect(taken.bytes + op.overhead * taken.parts.length).toBeLessThanOrEqual(Math.max(op.budget, 0));
              // No item twice in one take.
              expect(new Set(taken.parts).size).toBe(taken.parts.length);
              for (const part of taken.parts) {
                const record = sent.get(part);
                expect(record).toBeDefined();
                // Never sent after it was finished (by any route).
                if (record!.token !== undefined) expect(finishedCount.has(record!.token)).toBe(false);
                record!.count++;
                expect(record!.count).toBeLessThanOrEqual(limit);
              }
              for (const t of taken.finished) {
                expect(sent.get(tokenOf.get(t)!)!.count).toBe(limit);
                finishedByLimit.add(t);
              }
              finish(taken.finished);
              break;
            }
            case 'invalidate':
              finish(queue.invalidate(op.key));
              break;
            case 'clear':
              finish(queue.clear());
              break;
          }
        }
        finish(queue.clear());

        // Every token finished exactly once; tokenless items never produce one.
        expect([...finishedCount.keys()].sort()).toEqual([...tokenOf.keys()].sort());
        for (const count of finishedCount.values()) expect(count).toBe(1);
        // Items that reached the limit were sent exactly `limit` times; none more.
        for (const record of sent.values()) expect(record.count).toBeLessThanOrEqual(limit);
        for (const t of finishedByLimit) expect(sent.get(tokenOf.get(t)!)!.count).toBe(limit);
      }),
      { numRuns: 400 },
    );
  });
});
