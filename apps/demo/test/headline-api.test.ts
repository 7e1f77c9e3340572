/**
 * The headline run through the demo server's API: bad parameters are refused with every problem
 * listed, a second run while one goes is refused, stop ends the run and frees the slot.
 */
import { afterAll, expect, it } from 'vitest';
import { startDemo, type Demo } from '../src/demo.js';

let demo: Demo | undefined;
afterAll(async () => {
  await demo?.close();
});

async function call(path: string, body?: unknown, raw?: string): Promise<{ status: number; body: Record<string, any> }> {
  const init: RequestInit = body === undefined && raw === undefined ? { method: 'GET' } : { method: 'POST', body: raw ?? JSON.stringify(body) };
  const res = await fetch(new URL(path, demo!.url), init);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

it('refuses bad parameters and a second concurrent run; stop frees the slot', { timeout: 90_000 }, async () => {
  demo = await startDemo({ members: 2, port: 0 });

  const bad = await call('/api/headline/start', { members: 65, outageS: 4, cut: 0 });
  expect(bad.status).toBe(400);
  expect(bad.body['problems']).toHaveLength(3);
  expect((await call('/api/headline/start', { outageS: 121 })).status).toBe(400);
  expect((await call('/api/headline/start', { members: 24, cut: 13 })).status).toBe(400);
  expect((await call('/api/headline/start', undefined, '{"members": 24,')).status).toBe(400);
  expect((await call('/api/headline/start', undefined, 'x'.repeat(5000))).status).toBe(413);
  expect((await call('/api/headline/start')).status).toBe(405);
  expect((await call('/api/headline')).body['run']).toBeNull();

  // Paced at real time: the run lasts a minute of wall time, long enough to be refused a second.
  const first = await call('/api/headline/start', { members: 12, cut: 3, outageS: 30, speed: 1 });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  expect(first.body['cut']).toHaveLength(3);
  const second = await call('/api/headline/start', { members: 12, cut: 3, outageS: 30, speed: 1 });
  expect(second.status).toBe(409);

  const status = await call('/api/headline');
  expect(status.body['running']).toBe(true);
  expect(status.body['explanation']['memberlist']).toMatch(/stale/);
  expect(status.body['run']['sides'].map((s: { side: string }) => s.side)).toEqual(['memberlist', 'swim']);

  expect((await call('/api/headline/stop', {})).body['stopped']).toBe(true);
  // Poll the status (bounded) until the run has ended at its next step.
  let phase = '';
  const deadline = Date.now() + 20_000;
  while (phase !== 'stopped' && Date.now() < deadline) {
    phase = (await call('/api/headline')).body['run']['phase'];
    if (phase !== 'stopped') await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(phase, 'the run stops within 20 s').toBe('stopped');
  expect((await call('/api/headline')).body['running']).toBe(false);

  const again = await call('/api/headline/start', { members: 8, cut: 2, outageS: 5, speed: 0 });
  expect(again.status, JSON.stringify(again.body)).toBe(200);
});
