/**
 * The demo in a real headless Chromium (Debian's, driven by playwright-core; `.ci/run` installs
 * it): the page joins over the WebSocket gateway and the UDP members see it alive; pressing crash
 * on a member makes it dead in the page within the configured bound; closing the tab makes the
 * page's member left for the others. A screenshot goes to .ci/out/artifacts/demo.png.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { openDemoPage, type DemoPage } from './chromium-page.js';
import { until } from './until.js';

const ARTIFACTS = process.env['SWIM_ARTIFACTS'] ?? fileURLToPath(new URL('../../../.ci/out/artifacts/', import.meta.url));
// Fast timers so the test takes seconds; the bound below is computed from them.
const FAST = { probeIntervalMs: 200, probeTimeoutMs: 100, adaptiveTimeoutCeilingMs: 100, gossipIntervalMs: 50, pushPullIntervalMs: 5000 };

let opened: DemoPage | undefined;
afterAll(async () => {
  await opened?.close();
});

it('the page joins, sees a crash within the bound, and leaves when the tab closes', { timeout: 90_000 }, async () => {
  opened = await openDemoPage({ members: 6, port: 0, preset: 'lan', config: FAST }, { width: 1280, height: 860 });
  const { demo, page, errors } = opened;
  const { cluster } = demo;

  await page.waitForSelector('body[data-joined]', { timeout: 20_000 });
  const tab = (await page.getAttribute('body', 'data-joined'))!;
  expect(tab).toMatch(/^tab-[0-9a-f]{4}$/);
  const udpMembers = cluster.names();
  await until(`every UDP member sees ${tab} alive`, 20_000, () => udpMembers.every((name) => cluster.member(name)?.member(tab)?.state === 'alive'));
  await page.waitForSelector('g[data-member="m3"][data-state="alive"]', { timeout: 20_000 });

  const bound = demo.page.detectionBoundMs;
  const pressed = Date.now();
  await page.click('button[data-action="crash"][data-member="m3"]');
  await page.waitForSelector('g[data-member="m3"][data-state="dead"]', { timeout: bound + 5_000 });
  const seenDead = Date.now() - pressed;
  console.log(`crash of m3 shown dead in the page after ${seenDead} ms (bound ${bound} ms)`);
  expect(seenDead).toBeLessThanOrEqual(bound);
  // The log tells the death once: the cluster's line, not a second one for this tab's own view.
  await page.waitForFunction(() => Array.from(document.querySelectorAll('#log li')).some((li) => li.textContent?.includes('m3 dead (incarnation')), undefined, { timeout: 10_000 });
  await page.waitForSelector('g[data-member="m3"][data-state="dead"]');
  expect(await page.$$eval('#log li', (items) => items.filter((li) => / m3 dead /.test(li.textContent ?? '')).length)).toBe(1);

  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}demo.png`, fullPage: true });

  await page.close({ runBeforeUnload: true });
  const running = udpMembers.filter((name) => name !== 'm3');
  const seenLeft = () => running.every((name) => cluster.member(name)?.member(tab)?.state === 'left');
  // A loaded machine may be slow to spread it; on failure, say what each member holds instead.
  const left = await until(`the UDP members see ${tab} left`, 20_000, seenLeft).catch((error: Error) => {
    const states = running.map((name) => `${name}=${cluster.member(name)?.member(tab)?.state ?? 'unknown'}`).join(' ');
    throw new Error(`${error.message}; they hold: ${states}`);
  });
  console.log(`tab closed: left everywhere after ${left} ms`);
  expect(errors).toEqual([]);
});
