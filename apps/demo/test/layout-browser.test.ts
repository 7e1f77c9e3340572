/**
 * The page's layout in Debian's Chromium: both views fit 390, 1024, 1280 and 1920 px wide with no
 * horizontal overflow (measured in the page) and no button cut off, and the members table's buttons stay where they
 * are across redraws and when a member crashes (the row's buttons change label, not place).
 * Screenshots of each width go to .ci/out/artifacts/.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { buttonBoxes, clippedButtons, measureOverflow, WIDTHS } from '../scripts/layout.js';
import { openDemoPage, type DemoPage } from './chromium-page.js';

const ARTIFACTS = process.env['SWIM_ARTIFACTS'] ?? fileURLToPath(new URL('../../../.ci/out/artifacts/', import.meta.url));
const FAST = { probeIntervalMs: 200, probeTimeoutMs: 100, adaptiveTimeoutCeilingMs: 100, gossipIntervalMs: 50, pushPullIntervalMs: 5000, gossipToTheDeadMs: 60_000 };

let opened: DemoPage | undefined;
afterAll(async () => {
  await opened?.close();
});

/** Wait until the page has drawn `more` more server snapshots (one every half second). */
async function redraws(page: DemoPage['page'], more: number): Promise<void> {
  const now = Number(await page.getAttribute('body', 'data-snapshots'));
  await page.waitForFunction((target) => Number(document.body.dataset['snapshots']) >= target, now + more, { timeout: 20_000 });
}

it('both views fit every width, and the row buttons do not move', { timeout: 120_000 }, async () => {
  opened = await openDemoPage({ members: 12, port: 0, preset: 'lan', config: FAST }, { width: 1280, height: 800 });
  const { page, errors } = opened;
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.waitForSelector('body[data-joined]', { timeout: 20_000 });
  await page.waitForSelector('#members tr[data-member="m12"]', { timeout: 20_000 });
  await redraws(page, 2);

  const before = await buttonBoxes(page, '#members button');
  expect(Object.keys(before)).toHaveLength(12 * 3);
  await redraws(page, 3);
  expect(await buttonBoxes(page, '#members button'), 'the buttons moved between redraws').toEqual(before);

  await page.click('button[data-action="crash"][data-member="m4"]');
  await page.waitForSelector('button[data-action="restart"][data-member="m4"]', { timeout: 10_000 });
  await page.waitForSelector('#matrix g[data-observer="m1"][data-subject="m4"][data-held="dead"]', { timeout: 20_000 });
  await redraws(page, 2);
  expect(await buttonBoxes(page, '#members button'), 'the buttons moved when m4 crashed').toEqual(before);
  expect(await page.$$eval('#members tr[data-member="m4"] button', (buttons) => buttons.map((b) => [b.textContent, (b as HTMLButtonElement).disabled]))).toEqual([
    ['restart', false],
    ['pause', true],
    ['black out', true],
  ]);

  for (const viewport of WIDTHS) {
    await page.setViewportSize(viewport);
    for (const view of ['live', 'headline'] as const) {
      await page.evaluate((hash) => (location.hash = hash), view);
      await page.waitForSelector(`body[data-view="${view}"]`);
      await redraws(page, 1);
      const overflow = await measureOverflow(page);
      expect(overflow, `${view} view at ${viewport.width} px`).toEqual({ excess: 0, offenders: [] });
      expect(await clippedButtons(page), `buttons cut off in the ${view} view at ${viewport.width} px`).toEqual([]);
      await page.screenshot({ path: `${ARTIFACTS}layout-${view}-${viewport.width}.png`, fullPage: true });
    }
  }
  expect(errors).toEqual([]);
});
