/**
 * The event stream (GET /api/events) numbers its log entries, so a page whose EventSource
 * reconnects (it sends Last-Event-ID) gets only the entries it missed, not the backlog again; a
 * missing, malformed or out-of-range Last-Event-ID gets the whole backlog.
 */
import { afterAll, expect, it } from 'vitest';
import { startDemo, type Demo } from '../src/demo.js';

let demo: Demo | undefined;
afterAll(async () => {
  await demo?.close();
});

/** Read /api/events until `enough` holds for the log ids read so far (or 20 s), then hang up. */
async function logIds(url: string, lastEventId: string | undefined, enough: (ids: number[]) => boolean): Promise<number[]> {
  const abort = new AbortController();
  const res = await fetch(new URL('/api/events', url), { signal: abort.signal, headers: lastEventId === undefined ? {} : { 'last-event-id': lastEventId } });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const ids = (): number[] => [...text.matchAll(/id: (\d+)\nevent: log\n/g)].map((m) => Number(m[1]));
  const deadline = Date.now() + 20_000;
  // The stream always ends its first burst with a state snapshot.
  while (!(text.includes('event: state') && enough(ids())) && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  abort.abort();
  return ids();
}

it('a reconnecting page gets only the log entries after its Last-Event-ID', { timeout: 60_000 }, async () => {
  demo = await startDemo({ members: 3, port: 0 });
  // The log the server keeps begins with it: make some entries (a start, the joins first seen).
  await fetch(new URL('/api/add', demo.url), { method: 'POST' });
  await fetch(new URL('/api/add', demo.url), { method: 'POST' });
  const all = await logIds(demo.url, undefined, (ids) => ids.length >= 3);
  expect(all.length).toBeGreaterThanOrEqual(3);
  expect(all).toEqual([...all].sort((a, b) => a - b));
  const last = all.at(-1)!;

  await fetch(new URL('/api/add', demo.url), { method: 'POST' });
  const resumed = await logIds(demo.url, String(last), (ids) => ids.length >= 1);
  expect(resumed.length).toBeGreaterThanOrEqual(1);
  expect(resumed.every((id) => id > last), `replayed ${resumed.join(' ')} after ${last}`).toBe(true);

  for (const hostile of ['abc', '-1', '1e308', String(Number.MAX_SAFE_INTEGER), 'x'.repeat(1000)]) {
    const ids = await logIds(demo.url, hostile, (got) => got.length >= all.length);
    expect(ids.slice(0, all.length), `Last-Event-ID ${hostile.slice(0, 20)}`).toEqual(all);
  }
});
