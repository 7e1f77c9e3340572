import { describe, expect, it } from 'vitest';
import { QueryCollector, type CollectorOptions, type QueryResponse } from '../src/index.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const options: CollectorOptions = { ltime: 7, id: 1234, deadline: 10_000, requestAck: true, capacity: 8 };
const ack = (from: string): QueryResponse => ({ ltime: 7, id: 1234, from, ack: true, payload: new Uint8Array() });
const response = (from: string, text = `hello from ${from}`): QueryResponse => ({ ltime: 7, id: 1234, from, ack: false, payload: bytes(text) });

describe('QueryCollector (serf query.go QueryResponse, serf.go handleQueryResponse)', () => {
  it('counts the first ack and the first response of each member, separately', () => {
    const collector = new QueryCollector(options);
    expect(collector.accept(ack('a'), 1)).toBe('ack');
    expect(collector.accept(ack('b'), 2)).toBe('ack');
    expect(collector.accept(response('a'), 3)).toBe('response');
    expect(collector.accept(ack('a'), 4)).toBe('duplicate'); // a relayed copy
    expect(collector.accept(response('a', 'again'), 5)).toBe('duplicate');
    expect([...collector.acks]).toEqual(['a', 'b']);
    expect([...collector.responses].map(([from, p]) => [from, new TextDecoder().decode(p)])).toEqual([['a', 'hello from a']]);
    expect(collector.totals()).toEqual({ acks: 2, responses: 1, duplicates: 2, late: 0, dropped: 0 });
  });

  it('takes replies up to the deadline, none after it (Go: Finished when now is after the deadline)', () => {
    const collector = new QueryCollector(options);
    expect(collector.finished(10_000)).toBe(false);
    expect(collector.accept(ack('a'), 10_000)).toBe('ack');
    expect(collector.finished(10_001)).toBe(true);
    expect(collector.accept(ack('b'), 10_001)).toBe('late');
    expect(collector.accept(response('c'), 20_000)).toBe('late');
    expect(collector.totals()).toMatchObject({ acks: 1, responses: 0, late: 2 });
  });

  it('takes nothing once closed', () => {
    const collector = new QueryCollector(options);
    collector.close();
    expect(collector.finished(0)).toBe(true);
    expect(collector.accept(ack('a'), 0)).toBe('late');
  });

  it('drops replies to another query: other ltime or other id (serf "query reply ID mismatch")', () => {
    const collector = new QueryCollector(options);
    expect(collector.accept({ ...ack('a'), ltime: 8 }, 1)).toBe('mismatch');
    expect(collector.accept({ ...ack('a'), id: 99 }, 1)).toBe('mismatch');
    expect(collector.totals()).toMatchObject({ acks: 0, dropped: 2 });
  });

  it('drops acks to a query that asked for none, but takes its responses', () => {
    const collector = new QueryCollector({ ...options, requestAck: false });
    expect(collector.accept(ack('a'), 1)).toBe('unrequested-ack');
    expect(collector.accept(response('a'), 1)).toBe('response');
  });

  it('keeps at most capacity distinct members, acks and responses each', () => {
    const collector = new QueryCollector({ ...options, capacity: 2 });
    expect(['a', 'b', 'c'].map((n) => collector.accept(ack(n), 1))).toEqual(['ack', 'ack', 'full']);
    expect(['a', 'b', 'c'].map((n) => collector.accept(response(n), 1))).toEqual(['response', 'response', 'full']);
    expect(collector.accept(ack('a'), 1)).toBe('duplicate');
  });

  it('refuses a response payload longer than the response size limit, and a malformed one', () => {
    const collector = new QueryCollector({ ...options, maxPayloadBytes: 4 });
    expect(collector.accept(response('a', '12345'), 1)).toBe('refused');
    expect(collector.accept(response('a', '1234'), 1)).toBe('response');
    expect(collector.accept({ ...response('b'), payload: 'text' as unknown as Uint8Array }, 1)).toBe('refused');
    expect(collector.accept({ ...response('c'), from: 5 as unknown as string }, 1)).toBe('refused');
  });

  it('keeps a copy of the payload, not a view into the packet it came in', () => {
    const packet = bytes('xxhiyy');
    const collector = new QueryCollector(options);
    collector.accept({ ...response('a'), payload: packet.subarray(2, 4) }, 1);
    packet.fill(0);
    const kept = collector.responses.get('a') as Uint8Array;
    expect(new TextDecoder().decode(kept)).toBe('hi');
    expect(kept.buffer.byteLength).toBe(2);
  });
});
