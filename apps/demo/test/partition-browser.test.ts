/**
 * A partition driven from the page in Debian's Chromium: the tab sides with the gateways' half, so
 * it shows the far half dead while the far half holds the tab dead; the page's who-sees-whom
 * matrix shows each half holding the other dead; the page states the cut, then after heal that the
 * reconnect is at work, and everyone comes back alive, in the ring and in the matrix.
 */
import { failureDetectionBoundMs, resolveConfig } from '@swim/core';
import { afterAll, expect, it } from 'vitest';
import { openDemoPage, type DemoPage } from './chromium-page.js';
import { until } from './until.js';

// Dead members are kept (not reaped) for the whole test, so the page can show them dead.
const FAST = { probeIntervalMs: 200, probeTimeoutMs: 100, adaptiveTimeoutCeilingMs: 100, gossipIntervalMs: 50, pushPullIntervalMs: 5000, gossipToTheDeadMs: 60_000, reconnectIntervalMs: 1000 };

/**
 * How long each half may take to hold the other dead: the detection bound of the cluster (six
 * members, two gateways, the tab) stretched by local health at its worst, as in partition.test.ts:
 * each half's probes across the cut fail without nacks, so its members' health scores climb and
 * stretch their suspicion timeouts. A flat 30 s missed it on a loaded machine.
 */
const FAST_CONFIG = resolveConfig(FAST, 'lan');
const SPLIT_WAIT_MS = failureDetectionBoundMs(FAST_CONFIG, 9) * FAST_CONFIG.awarenessMaxMultiplier;

let opened: DemoPage | undefined;

/** Wait until, in the page's matrix, every `observers` row holds every `subjects` column `held` (a row's own column aside). */
async function matrixHolds(page: DemoPage['page'], observers: readonly string[], subjects: readonly string[], held: string, timeout: number): Promise<void> {
  await page
    .waitForFunction(
      ({ observers, subjects, held }) =>
        observers.every((observer) => subjects.every((subject) => subject === observer || document.querySelector(`#matrix g[data-observer="${observer}"][data-subject="${subject}"]`)?.getAttribute('data-held') === held)),
      { observers, subjects, held },
      { timeout },
    )
    .catch(async (error: Error) => {
      // Say which cells were not `held` when the wait ended.
      const cells = await page.evaluate(
        ({ observers, subjects }) =>
          observers.flatMap((observer) =>
            subjects
              .filter((subject) => subject !== observer)
              .map((subject) => `${observer}→${subject} ${document.querySelector(`#matrix g[data-observer="${observer}"][data-subject="${subject}"]`)?.getAttribute('data-held') ?? 'missing'}`),
          ),
        { observers, subjects },
      );
      throw new Error(`${error.message}; not ${held}: ${cells.filter((cell) => !cell.endsWith(` ${held}`)).join(', ')}`);
    });
}
afterAll(async () => {
  await opened?.close();
});

it('partition from the page: each half holds the other dead; heal brings all back alive', { timeout: 120_000 + 3 * SPLIT_WAIT_MS }, async () => {
  opened = await openDemoPage({ members: 6, port: 0, preset: 'lan', config: FAST }, { width: 1280, height: 860 });
  const { demo, page, errors } = opened;
  const { cluster } = demo;
  await page.waitForSelector('body[data-joined]', { timeout: 20_000 });
  const tab = (await page.getAttribute('body', 'data-joined'))!;
  const names = cluster.names();
  await until(`every member sees ${tab} alive`, 20_000, () => names.every((name) => cluster.member(name)?.member(tab)?.state === 'alive'));
  for (const name of names) await page.waitForSelector(`g[data-member="${name}"][data-state="alive"]`, { timeout: 20_000 });

  await page.click('#partition');
  await page.waitForFunction(() => document.querySelector('#partition-status')?.textContent?.startsWith('partition in force: m1 m2 m3 + gateways + this tab'), undefined, { timeout: 10_000 });
  for (const far of ['m4', 'm5', 'm6']) await page.waitForSelector(`g[data-member="${far}"][data-state="dead"]`, { timeout: SPLIT_WAIT_MS });
  for (const near of ['m1', 'm2', 'm3', 'gateway-a', 'gateway-b']) expect(await page.getAttribute(`g[data-member="${near}"]`, 'data-state')).toBe('alive');
  await until(`the far half holds ${tab}, the gateways and m1 dead`, SPLIT_WAIT_MS, () =>
    ['m4', 'm5', 'm6'].every((far) => [tab, 'gateway-a', 'gateway-b', 'm1'].every((near) => cluster.member(far)?.member(near)?.state === 'dead')),
  ).catch((error: Error) => {
    const held = ['m4', 'm5', 'm6'].map((far) => `${far}: ${[tab, 'gateway-a', 'gateway-b', 'm1'].map((near) => `${near} ${cluster.member(far)?.member(near)?.state}`).join(' ')} (health ${cluster.member(far)?.healthScore})`);
    throw new Error(`${error.message}; they hold: ${held.join('; ')}`);
  });
  const near = ['m1', 'm2', 'm3', 'gateway-a', 'gateway-b', tab];
  const far = ['m4', 'm5', 'm6'];
  await matrixHolds(page, near, far, 'dead', SPLIT_WAIT_MS);
  await matrixHolds(page, far, near, 'dead', SPLIT_WAIT_MS);
  await matrixHolds(page, near, near.slice(0, 5), 'alive', 10_000);
  expect(await page.$$eval('#matrix text.column', (labels) => labels.filter((l) => l.textContent?.startsWith('✂')).map((l) => l.textContent))).toEqual(['✂ m4', '✂ m5', '✂ m6']);

  await page.click('#heal');
  await page.waitForFunction(() => /^partition healed \d+ s ago: (reconnection under way; the next reconnect tick is (m\d+|gateway-[ab])'s in [\d.]+ s|no member holds another failed)/.test(document.querySelector('#partition-status')?.textContent ?? ''), undefined, { timeout: 10_000 });
  for (const name of [...names, 'gateway-a', 'gateway-b']) await page.waitForSelector(`g[data-member="${name}"][data-state="alive"]`, { timeout: 40_000 });
  await until(`every member sees ${tab} alive again`, 40_000, () => names.every((name) => cluster.member(name)?.member(tab)?.state === 'alive'));
  await matrixHolds(page, [...near, ...far], [...near, ...far], 'alive', 40_000);
  expect(errors).toEqual([]);
});
