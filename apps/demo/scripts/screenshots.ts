/**
 * `pnpm --filter @swim/demo screenshots`: the README's pictures, taken in Debian's Chromium from a
 * running demo and written to apps/demo/docs/. The live view with m3 crashed and m5 paused, at
 * 390, 1024 and 1280 px; the headline view (24 members a side, 6 cut off for 30 s) right after the
 * reconnection, when memberlist's side is killing healthy members, at 390 and 1280 px; a partition
 * at 1280 px, once each half holds the other dead. Each width
 * is checked for horizontal overflow first: a picture of a broken layout is not written.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { startDemo } from '../src/demo.js';
import { measureOverflow, WIDTHS } from './layout.js';

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

async function shoot(page: Page, name: string, viewport: { readonly width: number; readonly height: number }): Promise<void> {
  await page.setViewportSize(viewport);
  await page.waitForFunction((width) => document.documentElement.clientWidth === width, viewport.width);
  const overflow = await measureOverflow(page);
  if (overflow.excess > 0) throw new Error(`${name} at ${viewport.width} px overflows by ${overflow.excess} px: ${overflow.offenders.join(', ')}`);
  const path = `${DOCS}${name}-${viewport.width}.png`;
  await page.screenshot({ path });
  process.stdout.write(`wrote ${path}\n`);
}

mkdirSync(DOCS, { recursive: true });
const demo = await startDemo({ port: 0 });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: WIDTHS[2] });
  await page.goto(demo.url);
  await page.waitForSelector('body[data-joined]', { timeout: 20_000 });
  await page.click('button[data-action="crash"][data-member="m3"]');
  await page.click('button[data-action="pause"][data-member="m5"]');
  await page.waitForSelector('#graph g[data-member="m3"][data-state="dead"]', { timeout: 30_000 });
  await page.hover('#graph g[data-member="m5"]');
  for (const viewport of WIDTHS.slice(0, 3)) await shoot(page, 'live', viewport);

  await page.click('nav a[data-view="headline"]');
  for (const [key, value] of Object.entries({ members: 24, cut: 6, outageS: 30, watchS: 30, speed: 2, seed: 1 })) await page.fill(`#headline-${key}`, String(value));
  await page.click('#headline-start');
  await page.waitForFunction(() => Number(document.querySelector<HTMLElement>('#headline-memberlist')?.dataset['falseDeaths']) > 0, undefined, { timeout: 120_000 });
  // Two more polls: the verdicts spread through memberlist's side.
  await page.waitForTimeout(1_000);
  await page.click('#headline-stop');
  await page.waitForSelector('#headline-phase[data-phase="stopped"]');
  for (const viewport of [WIDTHS[0], WIDTHS[2]]) await shoot(page, 'headline', viewport);

  await page.click('nav a[data-view="live"]');
  await page.click('button[data-action="restart"][data-member="m3"]');
  await page.click('button[data-action="resume"][data-member="m5"]');
  await page.waitForSelector('#graph g[data-member="m3"][data-state="alive"]', { timeout: 30_000 });
  await page.click('#partition');
  await page.waitForSelector('#matrix g[data-observer="m12"][data-subject="m1"][data-held="dead"]', { timeout: 30_000 });
  await page.waitForSelector('#graph g[data-member="m12"][data-state="dead"]', { timeout: 30_000 });
  await shoot(page, 'partition', WIDTHS[2]);
} finally {
  await browser.close();
  await demo.close();
}
