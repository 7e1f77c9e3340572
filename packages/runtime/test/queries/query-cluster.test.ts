// Queries in a simulated cluster on @swim's wire (serf serf.go Query, handleQuery,
// handleQueryResponse): every member acks and answers; filters select exactly the named members;
// the asker handles its own query; query traffic never reaches `message`.
import { afterEach, describe, expect, it } from 'vitest';
import type { Member, QueryReply } from '../../src/index.js';
import { SEED, world, type World } from '../world.js';

let w: World | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (s: string) => new TextEncoder().encode(s);

async function cluster(count: number, tagsOf?: (name: string) => Record<string, string>): Promise<Member[]> {
  w = world('virtual');
  const names = Array.from({ length: count }, (_, i) => `m${i}`);
  const members = names.map((name) => w!.add(name, {}, tagsOf === undefined ? {} : { meta: bytes(JSON.stringify(tagsOf(name))) }));
  for (const m of members.slice(1)) await w.settle(m.join([members[0]!.address]));
  await w.until(() => members.every((m) => m.members().length === count), 20_000);
  return members;
}

async function collect(w: World, handle: AsyncIterable<QueryReply> & { finished: Promise<unknown> }): Promise<QueryReply[]> {
  const replies: QueryReply[] = [];
  const done = (async () => {
    for await (const reply of handle) replies.push(reply);
  })();
  await w.settle(done, 60_000);
  return replies;
}

describe('queries on @swim wire', () => {
  it(`a query to 10 members is acked and answered by all (seed ${SEED})`, async () => {
    const members = await cluster(10);
    const messages: string[] = [];
    for (const m of members) {
      m.handleQuery('whoami', (q) => `${m.name} got ${text(q.payload)} from ${q.from}`);
      m.on('message', ({ key }) => messages.push(String(key)));
    }
    const asker = members[3]!;
    const handle = asker.query('whoami', bytes('hi'), { requestAck: true, timeoutMs: 2_000 });
    const replies = await collect(w!, handle);
    const summary = await handle.finished;
    const names = members.map((m) => m.name).sort();
    expect([...summary.acks].sort()).toEqual(names);
    expect([...summary.responses.keys()].sort()).toEqual(names);
    for (const m of members) expect(text(summary.responses.get(m.name)!)).toBe(`${m.name} got hi from m3`);
    expect(replies.filter((r) => r.kind === 'ack')).toHaveLength(10);
    expect(replies.filter((r) => r.kind === 'response')).toHaveLength(10);
    expect(messages).toEqual([]);
    const received = members.filter((m) => m !== asker).reduce((n, m) => n + m.queries.counters.accepted, 0);
    expect(received).toBe(9);
    expect(asker.queries.counters.sent).toBe(1);
    expect(asker.queries.pending).toBe(0);
  });
});
