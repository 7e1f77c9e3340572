/**
 * A partition driven from the page in Debian's Chromium: the tab sides with the gateway's half, so
 * it shows the far half dead while the far half holds the tab dead; the page's who-sees-whom
 * matrix shows each half holding the other dead; the page states the cut, then after heal that the
 * reconnect is at work, and everyone comes back alive, in the ring and in the matrix.
 */
import { afterAll, expect, it } from 'vitest';
import { openDemoPage, type DemoPage } from './chromium-page.js';
import { until } from './until.js';

// Dead members are kept (not reaped) for the whole test, so the page can show them dead.
const FAST = { probeIntervalMs: 200, probeTimeoutMs: 100, adaptiveTimeoutCeilingMs: 100, gossipIntervalMs: 50, pushPullIntervalMs: 5000, gossipToTheDeadMs: 60_000, reconnectIntervalMs: 1000 };

let opened: DemoPage | undefined;

/** Wait until, in the page's matrix, every `observers` row holds every `subjects` column `held` (a row's own column aside). */
async function matrixHolds(page: DemoPage['page'], observers: readonly string[], subjects: readonly string[], held: string, timeout: number): Promise<void> {
  await page.waitForFunction(
    ({ observers, subjects, held }) =>
      observers.every((observer) => subjects.every((subject) => subject === observer || document.querySelector(`#matrix g[data-observer="${observer}"][data-subject="${subject}"]`)?.getAttribute('data-held') === held)),
    { observers, subjects, held },
    { timeout },
  );
}
afterAll(async () => {
  await opened?.close();
});

it('partition from the page: each half holds the other dead; heal brings all back alive', { timeout: 120_000 }, async () => {
  opened = await openDemoPage({ members: 6, port: 0, preset: 'lan', config: FAST }, { width: 1280, height: 860 });
  const { demo, page, errors } = opened;
  const { cluster } = demo;
  await page.waitForSelector('body[data-joined]', { timeout: 20_000 });
  const tab = (await page.getAttribute('body', 'data-joined'))!;
  const names = cluster.names();
  await until(`every member sees ${tab} alive`, 20_000, () => names.every((name) => cluster.member(name)?.member(tab)?.state === 'alive'));
  for (const name of names) await page.waitForSelector(`g[data-member="${name}"][data-state="alive"]`, { timeout: 20_000 });

  await page.click('#partition');
  await page.waitForFunction(() => document.querySelector('#partition-status')?.textContent?.startsWith('partition in force: m1 m2 m3 + gateway + this tab'), undefined, { timeout: 10_000 });
  for (const far of ['m4', 'm5', 'm6']) await page.waitForSelector(`g[data-member="${far}"][data-state="dead"]`, { timeout: 30_000 });
  for (const near of ['m1', 'm2', 'm3', 'gateway']) expect(await page.getAttribute(`g[data-member="${near}"]`, 'data-state')).toBe('alive');
  await until(`the far half holds ${tab}, the gateway and m1 dead`, 30_000, () =>
    ['m4', 'm5', 'm6'].every((far) => [tab, 'gateway', 'm1'].every((near) => cluster.member(far)?.member(near)?.state === 'dead')),
  );
  const near = ['m1', 'm2', 'm3', 'gateway', tab];
  const far = ['m4', 'm5', 'm6'];
  await matrixHolds(page, near, far, 'dead', 30_000);
  await matrixHolds(page, far, near, 'dead', 30_000);
  await matrixHolds(page, near, near.slice(0, 4), 'alive', 10_000);
  expect(await page.$$eval('#matrix text.column', (labels) => labels.filter((l) => l.textContent?.startsWith('✂')).map((l) => l.textContent))).toEqual(['✂ m4', '✂ m5', '✂ m6']);

  await page.click('#heal');
  await page.waitForFunction(() => /^partition healed \d+ s ago: (reconnection under way; the next reconnect tick is (m\d+|gateway)'s in [\d.]+ s|no member holds another failed)/.test(document.querySelector('#partition-status')?.textContent ?? ''), undefined, { timeout: 10_000 });
  for (const name of [...names, 'gateway']) await page.waitForSelector(`g[data-member="${name}"][data-state="alive"]`, { timeout: 40_000 });
  await until(`every member sees ${tab} alive again`, 40_000, () => names.every((name) => cluster.member(name)?.member(tab)?.state === 'alive'));
  await matrixHolds(page, [...near, ...far], [...near, ...far], 'alive', 40_000);
  expect(errors).toEqual([]);
});
