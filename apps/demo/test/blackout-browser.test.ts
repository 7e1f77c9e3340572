/**
 * A black out driven from the page in Debian's Chromium: the cut-off member is declared dead;
 * once reconnected it runs and is reachable but the others still hold it dead, and the page says
 * so and what brings it back, until it is alive again. Reconnects are off here (memberlist's
 * behaviour) and the timers are not aggressive, so once the death's gossip has died down nothing
 * reaches the member until some new update is gossiped (to recently dead members too, which
 * would make it refute): the line shows at the next snapshot. Whether it then returns by itself or
 * by the restart below, the line goes once it is alive. (The wording with reconnects on is checked
 * in status-text.test.ts.)
 */
import { afterAll, expect, it } from 'vitest';
import { openDemoPage, type DemoPage } from './chromium-page.js';

// Dead members are kept for the whole test; no reconnects; probe timeouts a loaded machine meets.
// The restart rules off, as memberlist has it (docs/restarts.md): with them on, the reconnected
// member's own pings are answered with its death and it refutes within a second, before the page
// has a state to explain.
const FAST = {
  probeIntervalMs: 400,
  probeTimeoutMs: 250,
  adaptiveTimeoutCeilingMs: 250,
  gossipIntervalMs: 100,
  pushPullIntervalMs: 60_000,
  gossipToTheDeadMs: 60_000,
  reconnectIntervalMs: 0,
  answerStaleAlive: false,
  answerAccusedPingers: false,
};

let opened: DemoPage | undefined;
afterAll(async () => {
  await opened?.close();
});

it('after a black out the page explains why the member is still dead, until a restart brings it back', { timeout: 120_000 }, async () => {
  opened = await openDemoPage({ members: 6, port: 0, preset: 'lan', config: FAST }, { width: 1280, height: 860 });
  const { page, errors } = opened;
  await page.waitForSelector('body[data-joined]', { timeout: 20_000 });
  await page.waitForSelector('#graph g[data-member="m3"][data-state="alive"]', { timeout: 20_000 });

  await page.click('button[data-action="blackout"][data-member="m3"]');
  await page.waitForSelector('#matrix g[data-observer="m1"][data-subject="m3"][data-held="dead"]', { timeout: 30_000 });
  await page.waitForSelector('#matrix g[data-observer="m6"][data-subject="m3"][data-held="dead"]', { timeout: 30_000 });
  // Still cut off: held dead for a reason, so no recovery line yet.
  expect(await page.textContent('#recovery-status')).toBe('');

  await page.click('button[data-action="reconnect"][data-member="m3"]');
  await page.waitForFunction(() => /^m3 is running and reachable, but most members hold it dead/.test(document.querySelector('#recovery-status')?.textContent ?? ''), undefined, { timeout: 10_000 });
  expect(await page.textContent('#recovery-status')).toMatch(/this profile never reconnects to a dead member \(memberlist\), so otherwise a restart or a join brings it back$/);

  await page.click('button[data-action="crash"][data-member="m3"]');
  await page.click('button[data-action="restart"][data-member="m3"]');
  await page.waitForSelector('#graph g[data-member="m3"][data-state="alive"]', { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('#recovery-status')?.textContent === '', undefined, { timeout: 30_000 });
  expect(errors).toEqual([]);
});
