/**
 * The headline panel in a real headless Chromium (Debian's, driven by playwright-core): pressing
 * "Run the blackout comparison" starts the side-by-side run (24 members a side, 6 cut off for
 * 30 s, paced at real time), and the page's counters show false deaths on memberlist's side and
 * none on ours once the cut-off members reconnect.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { startDemo, type Demo } from '../src/demo.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

let browser: Browser | undefined;
let demo: Demo | undefined;
afterAll(async () => {
  await browser?.close();
  await demo?.close();
});

it('the headline button runs the comparison and the page counts false deaths on the memberlist side only', { timeout: 150_000 }, async () => {
  expect(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`).toBe(true);
  demo = await startDemo({ members: 2, port: 0 });
  // Root in CI: Chromium's sandbox needs an unprivileged user, so it is turned off.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(demo.url);

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
