/**
 * The headline view in a real headless Chromium (Debian's, driven by playwright-core): the
 * parameters are set on the page (24 members a side, 6 cut off for 30 s), "Run the blackout
 * comparison" starts the side-by-side run, and the page shows false deaths on memberlist's side
 * and none on ours once the cut-off members reconnect, both sides' who-sees-whom matrices with
 * the cut members marked, and fits 390, 1024 and 1280 px with no horizontal overflow. A second
 * run is stopped from the page.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { measureOverflow, WIDTHS } from '../scripts/layout.js';
import { openDemoPage, type DemoPage } from './chromium-page.js';

const ARTIFACTS = process.env['SWIM_ARTIFACTS'] ?? fileURLToPath(new URL('../../../.ci/out/artifacts/', import.meta.url));

let opened: DemoPage | undefined;
afterAll(async () => {
  await opened?.close();
});

async function setParams(page: DemoPage['page'], params: Record<string, number>): Promise<void> {
  for (const [key, value] of Object.entries(params)) await page.fill(`#headline-${key}`, String(value));
}

it('the headline view runs the comparison with the chosen parameters: false deaths on the memberlist side only', { timeout: 150_000 }, async () => {
  opened = await openDemoPage({ members: 2, port: 0 }, { width: 390, height: 800 });
  const { demo, page, errors } = opened;
  mkdirSync(ARTIFACTS, { recursive: true });

  await page.click('nav a[data-view="headline"]');
  await page.waitForSelector('body[data-view="headline"]');
  // Three simulated seconds per real second: the 30 s outage passes in 10 s.
  await setParams(page, { members: 24, cut: 6, outageS: 30, watchS: 15, speed: 3, seed: 7 });
  await page.click('#headline-start');
  // Convergence, 3 s steady, 30 s outage: the verdicts fire right after reconnection.
  await page.waitForSelector('#headline-phase[data-phase="reconnected"]', { timeout: 90_000 });
  await page.waitForFunction(() => Number(document.querySelector<HTMLElement>('#headline-memberlist')?.dataset['falseDeaths']) > 0, undefined, { timeout: 20_000 });
  await page.waitForSelector('#headline-phase[data-phase="done"]', { timeout: 30_000 });
  const shown = await page.$eval('#headline', (view) => ({
    memberlist: Number(view.querySelector<HTMLElement>('#headline-memberlist')!.dataset['falseDeaths']),
    swim: Number(view.querySelector<HTMLElement>('#headline-swim')!.dataset['falseDeaths']),
    text: view.textContent ?? '',
    cut: (view as HTMLElement).dataset['cut']!.split(' '),
    matrices: [...view.querySelectorAll<SVGSVGElement>('svg.matrix')].map((svg) => [svg.dataset['rows'], svg.dataset['columns']]),
    marked: [...view.querySelectorAll('.headline-side[data-side="memberlist"] text.row')].filter((t) => t.textContent?.startsWith('✂')).length,
  }));
  const run = (await fetch(new URL('/api/headline', demo.url)).then((r) => r.json())) as { run: { params: Record<string, number> } };
  expect(run.run.params).toEqual({ members: 24, cut: 6, outageS: 30, watchS: 15, speed: 3, seed: 7 });
  expect(shown.memberlist, 'seed 7').toBeGreaterThan(0);
  expect(shown.swim, 'seed 7').toBe(0);
  expect(shown.text).toMatch(/grace period/);
  expect(shown.cut).toHaveLength(6);
  expect(shown.matrices).toEqual([
    ['24', '24'],
    ['24', '24'],
  ]);
  expect(shown.marked).toBe(6);

  for (const viewport of WIDTHS.slice(0, 3)) {
    await page.setViewportSize(viewport);
    await page.waitForFunction((width) => document.documentElement.clientWidth === width, viewport.width);
    expect(await measureOverflow(page), `headline view at ${viewport.width} px`).toEqual({ excess: 0, offenders: [] });
    await page.screenshot({ path: `${ARTIFACTS}headline-${viewport.width}.png`, fullPage: true });
  }

  // A second run at real time, stopped from the page.
  await setParams(page, { speed: 1 });
  await page.click('#headline-start');
  await page.waitForSelector('#headline-phase[data-phase="steady"]', { timeout: 30_000 });
  await page.click('#headline-stop');
  await page.waitForSelector('#headline-phase[data-phase="stopped"]', { timeout: 10_000 });
  expect(await page.isDisabled('#headline-stop')).toBe(true);
  expect(await page.isDisabled('#headline-start')).toBe(false);
  expect(errors).toEqual([]);
});
