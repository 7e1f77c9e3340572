/**
 * The headline panel in a real headless Chromium (Debian's, driven by playwright-core): pressing
 * "Run the blackout comparison" starts the side-by-side run (24 members a side, 6 cut off for
 * 30 s, paced at real time), and the page's counters show false deaths on memberlist's side and
 * none on ours once the cut-off members reconnect.
 */
import { afterAll, expect, it } from 'vitest';
import { openDemoPage, type DemoPage } from './chromium-page.js';


let opened: DemoPage | undefined;
afterAll(async () => {
  await opened?.close();
});

it('the headline button runs the comparison and the page counts false deaths on the memberlist side only', { timeout: 150_000 }, async () => {
  opened = await openDemoPage({ members: 2, port: 0 }, { width: 390, height: 800 });
  const { demo, page, errors } = opened;

  await page.click('#headline-start');
  // Convergence, 3 s steady, 30 s outage: the verdicts fire right after reconnection.
  await page.waitForSelector('#headline-phase[data-phase="reconnected"]', { timeout: 90_000 });
  await page.waitForFunction(() => Number(document.querySelector<HTMLElement>('#headline-memberlist')?.dataset['falseDeaths']) > 0, undefined, { timeout: 20_000 });
  const shown = await page.$eval('#headline', (panel) => ({
    memberlist: Number(panel.querySelector<HTMLElement>('#headline-memberlist')!.dataset['falseDeaths']),
    swim: Number(panel.querySelector<HTMLElement>('#headline-swim')!.dataset['falseDeaths']),
    text: panel.textContent ?? '',
  }));
  const seed = (await fetch(new URL('/api/headline', demo.url)).then((r) => r.json()) as { run: { params: { seed: number } } }).run.params.seed;
  expect(shown.memberlist, `seed ${seed}`).toBeGreaterThan(0);
  expect(shown.swim, `seed ${seed}`).toBe(0);
  expect(shown.text).toMatch(/grace period/);
  expect(await page.$eval('#headline', (panel) => panel.scrollWidth <= panel.clientWidth)).toBe(true);
  expect(errors).toEqual([]);
});
