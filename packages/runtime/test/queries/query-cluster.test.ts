// Queries in a simulated cluster on @swim's wire (serf serf.go Query, handleQuery,
// handleQueryResponse, event.go Query.Respond): every member acks and answers; filters select
// exactly the named members; the asker handles its own query; query traffic never reaches
// `message`; internal queries never reach the application.
import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingQuery, Member } from '../../src/index.js';
import { SEED, type World } from '../world.js';
import { bytes, cluster, collect, from, text } from './query-world.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const names = (members: readonly Member[]) => members.map((m) => m.name).sort();

describe(`queries on @swim's wire (seed ${SEED})`, () => {
  it('a query to 10 members is acked and answered by all, the asker included', async () => {
    const c = await cluster(10);
    w = c.w;
    const messages: string[] = [];
    for (const m of c.members) {
      m.handleQuery('whoami', (q) => `${m.name} got ${text(q.payload)} from ${q.from}`);
      m.on('message', ({ key }) => messages.push(String(key)));
    }
    const asker = c.members[3]!;
    const handle = asker.query('whoami', bytes('hi'), { requestAck: true, timeoutMs: 2_000 });
    expect(handle.name).toBe('whoami');
    const replies = await collect(w, handle);
    const summary = await handle.finished;
    expect([...summary.acks].sort()).toEqual(names(c.members));
    expect([...summary.responses.keys()].sort()).toEqual(names(c.members));
    for (const m of c.members) expect(text(summary.responses.get(m.name)!)).toBe(`${m.name} got hi from m3`);
    expect(from(replies, 'ack')).toEqual(names(c.members));
    expect(from(replies, 'response')).toEqual(names(c.members));
    expect(summary.totals).toMatchObject({ acks: 10, responses: 10, late: 0 });
    expect(w.clock.now()).toBeGreaterThanOrEqual(handle.deadline);
    expect(messages).toEqual([]);
    expect(c.members.reduce((n, m) => n + m.queries.counters.accepted, 0)).toBe(9);
    expect(asker.queries.counters).toMatchObject({ sent: 1, acksReceived: 10, responsesReceived: 10, received: 0 });
    expect(asker.queries.pending).toBe(0);
  });

  it('without requestAck nobody acks; a handler returning undefined sends no response', async () => {
    const c = await cluster(4);
    w = c.w;
    for (const m of c.members) m.handleQuery('*', (q) => (m.name === 'm2' ? undefined : q.name));
    const replies = await collect(w, c.members[0]!.query('any', undefined, { timeoutMs: 1_000 }));
    expect(from(replies, 'ack')).toEqual([]);
    expect(from(replies, 'response')).toEqual(['m0', 'm1', 'm3']);
  });

  it('a node filter reaches exactly the named members', async () => {
    const c = await cluster(8);
    w = c.w;
    const handled: string[] = [];
    for (const m of c.members) m.handleQuery('ping', () => void handled.push(m.name));
    const replies = await collect(w, c.members[0]!.query('ping', undefined, { filterNodes: ['m2', 'm5', 'nobody'], requestAck: true, timeoutMs: 1_000 }));
    expect(from(replies, 'ack')).toEqual(['m2', 'm5']);
    expect(handled.sort()).toEqual(['m2', 'm5']);
    expect(c.members.reduce((n, m) => n + m.queries.counters.filtered, 0)).toBe(5);
  });

  it('tag filters (RE2, unanchored, ANDed) reach exactly the matching members', async () => {
    const c = await cluster(8, { tags: (name) => ({ role: Number(name.slice(1)) % 2 === 0 ? 'web' : 'db', dc: Number(name.slice(1)) < 4 ? 'east' : 'west' }) });
    w = c.w;
    const replies = await collect(w, c.members[1]!.query('ping', undefined, { filterTags: { role: '^we', dc: 'ea' }, requestAck: true, timeoutMs: 1_000 }));
    expect(from(replies, 'ack')).toEqual(['m0', 'm2']);
    const both = await collect(w, c.members[1]!.query('ping', undefined, { filterNodes: ['m1', 'm6'], filterTags: { role: 'db' }, requestAck: true, timeoutMs: 1_000 }));
    expect(from(both, 'ack')).toEqual(['m1']);
    // An invalid expression matches nobody, as in Serf.
    const invalid = await collect(w, c.members[1]!.query('ping', undefined, { filterTags: { role: '(' }, requestAck: true, timeoutMs: 1_000 }));
    expect(invalid).toEqual([]);
  });

  it("the 'query' event sees each accepted query; respond() refuses twice, late and oversize, as Serf", async () => {
    const c = await cluster(3);
    w = c.w;
    const seen: IncomingQuery[] = [];
    const errors: string[] = [];
    c.members[1]!.on('query', (q) => {
      seen.push(q);
      q.respond('first');
      for (const again of ['second', new Uint8Array(2000)]) {
        try {
          q.respond(again);
        } catch (error) {
          errors.push((error as Error).message);
        }
      }
    });
    let atM2: IncomingQuery | undefined;
    c.members[2]!.on('query', (q) => {
      atM2 = q;
      try {
        q.respond(new Uint8Array(1100));
      } catch (error) {
        errors.push((error as Error).message);
      }
      expect(q.responded).toBe(false);
    });
    const handle = c.members[0]!.query('hello', bytes('x'), { timeoutMs: 500 });
    const replies = await collect(w, handle);
    expect(replies).toEqual([{ kind: 'response', from: 'm1', payload: bytes('first') }]);
    expect(seen.map((q) => [q.name, text(q.payload), q.from, q.ltime, q.id])).toEqual([['hello', 'x', 'm0', handle.ltime, handle.id]]);
    expect(errors.sort()).toEqual(['response already sent', 'response already sent', 'response exceeds limit of 1024 bytes']);
    expect(() => seen[0]!.respond('late')).toThrow('response already sent');
    await w.until(() => w!.clock.now() > atM2!.deadline);
    expect(() => atM2!.respond('late')).toThrow('response is past the deadline');
  });

  it('a handler may answer asynchronously; one that throws is contained and counted', async () => {
    const c = await cluster(3);
    w = c.w;
    const clock = w.clock;
    c.members[1]!.handleQuery('slow', () => new Promise((resolve) => clock.timer(() => resolve('later')).arm(clock.now() + 100)));
    c.members[2]!.handleQuery('slow', () => {
      throw new Error('handler bug');
    });
    const contained: unknown[] = [];
    c.members[2]!.on('error', ({ error }) => contained.push(error));
    const replies = await collect(w, c.members[0]!.query('slow', undefined, { timeoutMs: 1_000 }));
    expect(replies).toEqual([{ kind: 'response', from: 'm1', payload: bytes('later') }]);
    expect(c.members[2]!.queries.counters.handlerErrors).toBe(1);
    expect(contained).toHaveLength(1);
    expect(c.members[1]!.queries.handlersRunning).toBe(0);
  });

  it("Serf's internal queries go to handleInternal only; applications may not send them, except _serf_ping without payload", async () => {
    const c = await cluster(3);
    w = c.w;
    const app: string[] = [];
    for (const m of c.members) {
      m.on('query', (q) => app.push(`event ${q.name}`));
      m.handleQuery('*', (q) => void app.push(`handler ${q.name}`));
      m.queries.handleInternal('_serf_ping', () => undefined);
    }
    c.members[1]!.queries.handleInternal('_serf_list-keys', (q) => `keys of m1 for ${q.from}`);
    const keys = await collect(w, c.members[0]!.queries.queryInternal('_serf_list-keys', undefined, { timeoutMs: 500 }));
    expect(keys).toEqual([{ kind: 'response', from: 'm1', payload: bytes('keys of m1 for m0') }]);
    const ping = await collect(w, c.members[0]!.query('_serf_ping', undefined, { requestAck: true, timeoutMs: 500 }));
    expect(from(ping, 'ack')).toEqual(['m0', 'm1', 'm2']);
    expect(app).toEqual([]);
    expect(() => c.members[0]!.query('_serf_list-keys')).toThrow(RangeError);
    expect(() => c.members[0]!.query('_serf_ping', bytes('x'))).toThrow(RangeError);
    expect(() => c.members[0]!.handleQuery('_serf_ping', () => undefined)).toThrow(RangeError);
    expect(() => c.members[0]!.queries.queryInternal('user')).toThrow(RangeError);
  });

  it('the asker handles its own query first: its own handler answers and its clock moves past the query', async () => {
    const c = await cluster(2);
    w = c.w;
    const asker = c.members[0]!;
    asker.handleQuery('self', () => 'me');
    const before = asker.queries.clock.time();
    const handle = asker.query('self', undefined, { requestAck: true, timeoutMs: 300 });
    expect(handle.ltime).toBe(before);
    expect(asker.queries.clock.time()).toBe(before + 1);
    const replies = await collect(w, handle);
    expect(replies.slice(0, 2)).toEqual([
      { kind: 'ack', from: 'm0' },
      { kind: 'response', from: 'm0', payload: bytes('me') },
    ]);
    // The next query gets a new Lamport time; a peer that saw it witnessed it.
    expect(asker.query('self', undefined, { timeoutMs: 300 }).ltime).toBe(before + 1);
    expect(c.members[1]!.queries.clock.time()).toBeGreaterThan(before);
  });

  it('bad parameters throw a RangeError; too many pending queries an Error; close and abort end a query early', async () => {
    const c = await cluster(2, { queries: { maxPendingQueries: 2 } });
    w = c.w;
    const m = c.members[0]!;
    for (const options of [{ timeoutMs: 0 }, { timeoutMs: 1.5 }, { relayFactor: 256 }, { relayFactor: -1 }, { filterNodes: 'm1' as unknown as string[] }, { filterTags: { role: 1 as unknown as string } }]) {
      expect(() => m.query('q', undefined, options), JSON.stringify(options)).toThrow(RangeError);
    }
    expect(() => m.query('')).toThrow(RangeError);
    expect(() => m.query('big', new Uint8Array(1100))).toThrow('query exceeds limit of 1024 bytes');
    const controller = new AbortController();
    const first = m.query('q', undefined, { timeoutMs: 60_000, signal: controller.signal });
    const second = m.query('q', undefined, { timeoutMs: 60_000 });
    expect(() => m.query('q')).toThrow(/maxPendingQueries/);
    controller.abort();
    second.close();
    await w.settle(Promise.all([first.finished, second.finished]));
    expect(w.clock.now()).toBeLessThan(first.deadline);
    expect(m.queries.pending).toBe(0);
    m.queries.useWire(undefined);
    expect(() => m.query('q')).toThrow(/carries no queries/);
  });

  it("the application may not use the query wire's reserved key prefix or marker byte", async () => {
    const c = await cluster(2);
    w = c.w;
    const m = c.members[0]!;
    expect(() => m.broadcast('swim:query:1:2', bytes('x'))).toThrow(RangeError);
    expect(() => m.send('m1', new Uint8Array([0xc1, 1, 2]))).toThrow(RangeError);
    expect(() => m.send('m1', new Uint8Array([0xc1]))).toThrow(RangeError);
    m.broadcast('swim:other', bytes('x'));
    m.send('m1', bytes('\u00c1 is fine in UTF-8'));
  });

  it('member.close() ends every pending query', async () => {
    const c = await cluster(2);
    w = c.w;
    const handle = c.members[0]!.query('q', undefined, { timeoutMs: 60_000 });
    await c.members[0]!.close();
    const summary = await handle.finished;
    expect(summary.acks).toEqual([]);
    expect(() => c.members[0]!.query('q')).toThrow(/closed/);
  });

  it('reports its counters as metrics', async () => {
    const c = await cluster(3);
    w = c.w;
    await collect(w, c.members[0]!.query('q', undefined, { requestAck: true, timeoutMs: 300 }));
    const families = c.members[0]!.metrics().families;
    const queries = families.find((f) => f.name === 'queries')!;
    expect(queries.samples.find((s) => s.labels['event'] === 'sent')?.value).toBe(1);
    const replies = families.find((f) => f.name === 'query_replies')!;
    expect(replies.samples.find((s) => s.labels['event'] === 'acks_received')?.value).toBe(3);
    expect(families.map((f) => f.name)).toEqual(expect.arrayContaining(['queries_dropped', 'query_relays', 'query_malformed', 'queries_pending']));
  });

  it("slow application handlers fill their slots, not those of Serf's internal queries", async () => {
    const c = await cluster(2, { queries: { maxConcurrentHandlers: 2 } });
    w = c.w;
    const [m0, m1] = c.members as [Member, Member];
    m1.handleQuery('stuck', () => new Promise<undefined>(() => {}));
    m1.queries.handleInternal('_serf_list-keys', () => 'keys');
    for (let i = 0; i < 3; i++) m0.query('stuck', undefined, { timeoutMs: 5_000 });
    await w.until(() => m1.queries.counters.received === 3);
    expect(m1.queries.handlersRunning).toBe(2);
    expect(m1.queries.counters.dropped.busy).toBe(1);
    const keys = await collect(w, m0.queries.queryInternal('_serf_list-keys', undefined, { timeoutMs: 500 }));
    expect(keys).toEqual([{ kind: 'response', from: 'm1', payload: bytes('keys') }]);
  });
});
