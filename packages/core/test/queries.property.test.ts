import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isLamportTime,
  LamportClock,
  MAX_LAMPORT_TIME,
  QueryCollector,
  SeenQueries,
  TagPattern,
  type QueryResponse,
} from '../src/index.js';

/** Lamport times as peers send them: mostly plausible, sometimes anything a decoder could let through. */
const anyTime = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 2_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_LAMPORT_TIME, MAX_LAMPORT_TIME - 1, 2 ** 53, 2 ** 64) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.maxSafeNat() },
);

type ClockOp = { readonly op: 'increment' } | { readonly op: 'witness'; readonly t: number };
const clockOp: fc.Arbitrary<ClockOp> = fc.oneof(
  fc.constant<ClockOp>({ op: 'increment' }),
  anyTime.map((t): ClockOp => ({ op: 'witness', t })),
);

describe('LamportClock (property)', () => {
  it('never goes back, never leaves the exact integers, and ends past every time it witnessed', () => {
    fc.assert(
      fc.property(fc.array(clockOp, { maxLength: 60 }), (ops) => {
        const clock = new LamportClock();
        let witnessedMax = -1;
        for (const step of ops) {
          const before = clock.time();
          if (step.op === 'increment') {
            const t = clock.increment();
            if (t === undefined) expect(before).toBe(MAX_LAMPORT_TIME);
            else expect(t).toBe(before + 1);
          } else {
            const accepted = clock.witness(step.t);
            expect(accepted).toBe(isLamportTime(step.t));
            if (accepted) witnessedMax = Math.max(witnessedMax, step.t);
          }
          const after = clock.time();
          expect(after).toBeGreaterThanOrEqual(before);
          expect(Number.isSafeInteger(after) && after <= MAX_LAMPORT_TIME).toBe(true);
          expect(after).toBeGreaterThan(witnessedMax);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

/** Streams of (ltime, id): mostly a narrow window of times and ids, so that repeats are common. */
const arrival = fc.record({
  ltime: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 60 }) }, { weight: 1, arbitrary: anyTime }),
  id: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 6 }) }, { weight: 1, arbitrary: fc.oneof(fc.nat(), fc.integer(), fc.double()) }),
});

describe('SeenQueries (property)', () => {
  it('never takes a query twice, whatever the stream, when each time is witnessed first (serf handleQuery)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 4 }), fc.array(arrival, { maxLength: 200 }), (size, maxIds, stream) => {
        const clock = new LamportClock(1);
        const seen = new SeenQueries({ size, maxIdsPerLTime: maxIds, clock });
        const taken = new Set<string>();
        for (const { ltime, id } of stream) {
          clock.witness(ltime);
          const admission = seen.admit(ltime, id);
          const key = `${ltime}/${id}`;
          if (admission === 'new') {
            expect(taken.has(key), key).toBe(false);
            taken.add(key);
          }
          // Within the window, with room in the slot, a first copy is taken and a repeat caught.
          if (taken.has(key) && admission !== 'new') expect(['duplicate', 'too-old']).toContain(admission);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('catches every repeat within the window: times and ids that fit are taken once each, then always duplicates', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ ltime: fc.integer({ min: 1, max: 15 }), id: fc.integer({ min: 0, max: 3 }) }), { maxLength: 100 }), (stream) => {
        // 16 slots cover every time in the stream (1..15, clock at most 16), 4 ids fit each slot.
        const clock = new LamportClock(1);
        const seen = new SeenQueries({ size: 16, maxIdsPerLTime: 4, clock });
        const taken = new Set<string>();
        for (const { ltime, id } of stream) {
          clock.witness(ltime);
          const key = `${ltime}/${id}`;
          expect(seen.admit(ltime, id)).toBe(taken.has(key) ? 'duplicate' : 'new');
          taken.add(key);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('holds at most size × maxIdsPerLTime ids, for any stream', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.record({ ltime: fc.oneof(fc.integer({ min: 0, max: 40 }), anyTime), id: fc.nat() }), { maxLength: 300 }),
        fc.boolean(),
        (size, maxIds, stream, witness) => {
          const clock = new LamportClock(1);
          const seen = new SeenQueries({ size, maxIdsPerLTime: maxIds, clock });
          let taken = 0;
          for (const { ltime, id } of stream) {
            if (witness) clock.witness(ltime);
            if (seen.admit(ltime, id) === 'new') taken++;
            expect(seen.idsHeld).toBeLessThanOrEqual(size * maxIds);
            expect(seen.idsHeld).toBeLessThanOrEqual(taken);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

const names = ['a', 'b', 'c', 'd', 'e'];
const reply = fc.record({
  from: fc.constantFrom(...names),
  ack: fc.boolean(),
  now: fc.integer({ min: 0, max: 2_000 }),
  ours: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  size: fc.integer({ min: 0, max: 8 }),
});

describe('QueryCollector (property)', () => {
  it('counts each member once per kind, and takes nothing after the deadline', () => {
    fc.assert(
      fc.property(fc.array(reply, { maxLength: 80 }), fc.boolean(), fc.integer({ min: 1, max: 6 }), (replies, requestAck, capacity) => {
        const deadline = 1_000;
        const collector = new QueryCollector({ ltime: 3, id: 9, deadline, requestAck, capacity, maxPayloadBytes: 6 });
        const acked = new Set<string>();
        const responded = new Set<string>();
        // Sorted by arrival, as a shell feeds them.
        const sorted = [...replies].sort((x, y) => x.now - y.now);
        for (const r of sorted) {
          const message: QueryResponse = { ltime: 3, id: r.ours ? 9 : 10, from: r.from, ack: r.ack, payload: new Uint8Array(r.size) };
          const outcome = collector.accept(message, r.now);
          if (outcome === 'ack') {
            expect(acked.has(r.from)).toBe(false);
            acked.add(r.from);
          }
          if (outcome === 'response') {
            expect(responded.has(r.from)).toBe(false);
            responded.add(r.from);
          }
          if (outcome === 'ack' || outcome === 'response') {
            expect(r.now).toBeLessThanOrEqual(deadline);
            expect(r.ours).toBe(true);
          }
          if (r.now > deadline && r.ours) expect(outcome).toBe('late');
        }
        expect([...collector.acks].sort()).toEqual([...acked].sort());
        expect([...collector.responses.keys()].sort()).toEqual([...responded].sort());
        expect(acked.size).toBeLessThanOrEqual(capacity);
        expect(responded.size).toBeLessThanOrEqual(capacity);
        if (!requestAck) expect(acked.size).toBe(0);
        const totals = collector.totals();
        expect(totals.acks + totals.responses + totals.duplicates + totals.late + totals.dropped).toBe(replies.length);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('tag expressions (property)', () => {
  // Any string at all, as a hostile asker may send: compiling never throws, and matching visits
  // at most (length + 1) × program size states.
  const text = fc.string({ unit: fc.constantFrom('a', 'b', '-', '\n', 'é'), maxLength: 40 });
  const expr = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: fc.constantFrom('a', 'b', '(', ')', '|', '*', '+', '?', '{', '}', ',', '2', '[', ']', '^', '$', '\\', '.', '-'), maxLength: 30 }),
  );

  it('compiles or refuses any string, and matches within (length + 1) × size steps', () => {
    fc.assert(
      fc.property(expr, text, (e, t) => {
        const pattern = TagPattern.compile(e);
        if (!(pattern instanceof TagPattern)) {
          expect(typeof pattern.error).toBe('string');
          return;
        }
        const outcome = pattern.match(t);
        expect(outcome.exhausted).toBe(false);
        expect(outcome.steps).toBeLessThanOrEqual(([...t].length + 1) * pattern.size);
      }),
      { numRuns: 3000 },
    );
  });
});
