/** Browsers fetch /favicon.ico unprompted: the demo answers it with a small SVG, not a 404. */
import { afterAll, expect, it } from 'vitest';
import { startDemo, type Demo } from '../src/demo.js';

let demo: Demo | undefined;
afterAll(async () => {
  await demo?.close();
});

it('/favicon.ico is an SVG icon', { timeout: 30_000 }, async () => {
  demo = await startDemo({ members: 1, port: 0 });
  const res = await fetch(new URL('/favicon.ico', demo.url));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/svg+xml');
  expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*>.*<\/svg>$/);
});
