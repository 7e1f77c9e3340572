import { describe, expect, it } from 'vitest';
import {
  DEFAULT_QUERY_CONFIG,
  LamportClock,
  QueryReceiver,
  resolveQueryConfig,
  type FilterSubject,
  type QueryRequest,
} from '../src/index.js';

const self: FilterSubject = { name: 'b', tags: { role: 'web' } };
const query = (overrides: Partial<QueryRequest> = {}): QueryRequest => ({
  name: 'greet',
  payload: new TextEncoder().encode('ping-payload'),
  filters: [],
  requestAck: true,
  noBroadcast: false,
  id: 1778473183,
  ltime: 1,
  timeoutMs: 3_200,
  relayFactor: 0,
  sourceName: 'a',
  sourceAddress: '127.0.0.1:23090',
  ...overrides,
});

describe('QueryReceiver (serf serf.go handleQuery)', () => {
  it('accepts a new query for us: ack at once, deliver with a deadline, gossip it on', () => {
    const receiver = new QueryReceiver({ config: DEFAULT_QUERY_CONFIG });
    expect(receiver.clock.time()).toBe(1); // Serf's start-up increment
    const reception = receiver.receive(query(), self, 50_000);
    expect(reception).toEqual({
      kind: 'accepted',
      rebroadcast: true,
      ack: { ltime: 1, id: 1778473183, from: 'b', ack: true, payload: new Uint8Array() },
      respondBy: 53_200,
      internal: false,
    });
    expect(receiver.clock.time()).toBe(2);
  });

  it('takes each query once: later copies are dropped and not gossiped', () => {
    const receiver = new QueryReceiver({ config: DEFAULT_QUERY_CONFIG });
    expect(receiver.receive(query(), self, 0).kind).toBe('accepted');
    expect(receiver.receive(query(), self, 1)).toEqual({ kind: 'dropped', reason: 'duplicate' });
    expect(receiver.receive(query({ id: 5 }), self, 2).kind).toBe('accepted'); // another asker, same time
  });

  it('witnesses even a query it drops, as Serf', () => {
    const receiver = new QueryReceiver({ config: DEFAULT_QUERY_CONFIG, minTime: 100 });
    expect(receiver.receive(query({ ltime: 50 }), self, 0)).toEqual({ kind: 'dropped', reason: 'before-min-time' });
    expect(receiver.clock.time()).toBe(51);
  });

  it('drops a query too far behind the clock', () => {
    const receiver = new QueryReceiver({ config: resolveQueryConfig({ queryBuffer: 16 }), clock: new LamportClock(100) });
    expect(receiver.receive(query({ ltime: 83 }), self, 0)).toEqual({ kind: 'dropped', reason: 'too-old' });
    expect(receiver.receive(query({ ltime: 84 }), self, 0).kind).toBe('accepted');
  });

  it('drops a malformed ltime without moving the clock', () => {
    const receiver = new QueryReceiver({ config: DEFAULT_QUERY_CONFIG });
    for (const ltime of [-1, 2 ** 60, Number.NaN, 0.5]) {
      expect(receiver.receive(query({ ltime }), self, 0)).toEqual({ kind: 'dropped', reason: 'invalid' });
    }
    expect(receiver.clock.time()).toBe(1);
    expect(receiver.receive(query({ id: -1 }), self, 0)).toEqual({ kind: 'dropped', reason: 'invalid' });
  });

  it('gossips on a query whose filters exclude us, without acking or delivering it', () => {
    const receiver = new QueryReceiver({ config: DEFAULT_QUERY_CONFIG });
    const reception = receiver.receive(query({ filters: [{ kind: 'tag', tag: 'role', expr: '^db$' }] }), self, 0);
    expect(reception).toMatchObject({ kind: 'filtered', rebroadcast: true, filters: { matched: false, failure: { index: 0, reason: 'tag-mismatch' } } });
    // It counts as seen all the same.
    expect(receiver.receive(query({ filters: [{ kind: 'tag', tag: 'role', expr: '^db$' }] }), self, 1)).toEqual({ kind: 'dropped', reason: 'duplicate' });
  });

  it('honours the no-broadcast flag, and sends no ack unless asked', () => {
    const receiver = new QueryReceiver({ config: DEFAULT_QUERY_CONFIG });
    expect(receiver.receive(query({ noBroadcast: true, requestAck: false }), self, 0)).toMatchObject({ kind: 'accepted', rebroadcast: false, ack: undefined });
    expect(receiver.receive(query({ id: 2, noBroadcast: true, filters: [{ kind: 'nodes', names: ['c'] }] }), self, 0)).toMatchObject({
      kind: 'filtered',
      rebroadcast: false,
    });
  });

  it("marks Serf's internal queries", () => {
    const receiver = new QueryReceiver({ config: DEFAULT_QUERY_CONFIG });
    expect(receiver.receive(query({ name: '_serf_ping', payload: new Uint8Array() }), self, 0)).toMatchObject({ kind: 'accepted', internal: true });
  });

  it('gives a malformed or negative timeout no time to respond', () => {
    const receiver = new QueryReceiver({ config: DEFAULT_QUERY_CONFIG });
    expect(receiver.receive(query({ id: 1, timeoutMs: -5 }), self, 100)).toMatchObject({ respondBy: 100 });
    expect(receiver.receive(query({ id: 2, timeoutMs: Number.NaN }), self, 100)).toMatchObject({ respondBy: 100 });
  });

  it("handles our own query first, as Serf's Query: stamped with time(), the clock moves past it", () => {
    const receiver = new QueryReceiver({ config: DEFAULT_QUERY_CONFIG });
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const ltime = receiver.clock.time();
      times.push(ltime);
      expect(receiver.receive(query({ ltime, sourceName: 'b' }), self, 0)).toMatchObject({ kind: 'accepted', ack: { from: 'b' } });
    }
    expect(times).toEqual([1, 2, 3]);
  });
});
