/**
 * The Chromium run beside the Node clients: real pages (Debian's Chromium, driven by playwright-core,
 * as packages/transport-ws/test/browser.test.ts does) join through a fresh gateway as members, and the
 * same things are measured: time until every agent sees them alive, close → left (pagehide, so
 * leaveOnPageHide leaves and closes), cut → dead (page.close after the pagehide listener is removed:
 * the page goes without a leave).
 */
import { existsSync } from 'node:fs';
import { servePage, type ServedPage } from '@swim/test-support/page-server';
import { chromium, type Browser, type Page } from 'playwright-core';
import { BenchCluster, TOKEN } from './cluster.js';
import type { ChromiumRun, GatewayParams } from './result.js';
import { countByState, falseEvents, pick, tabNames } from './summary.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export async function runChromium(params: GatewayParams, log: (line: string) => void): Promise<ChromiumRun | string> {
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
  const count = params.chromiumTabs;
  const cluster = await BenchCluster.start(params.udpAgents, count + 16);
  let web: ServedPage | undefined;
  let browser: Browser | undefined;
  const gone = new Map<string, number>();
  const run: { -readonly [K in keyof ChromiumRun]: ChromiumRun[K] } = { tabs: count, joined: 0, allAliveMs: undefined, close: undefined, cut: undefined, falseEvents: 0 };
  let start = Date.now();
  try {
    web = await servePage(new URL('./page.ts', import.meta.url), { title: 'swim bench' });
    const base = web.url;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const context = await browser.newContext();
    const names = tabNames('page', count);
    log(`chromium: ${count} pages…`);
    const pages = new Map<string, Page>();
    start = Date.now();
    // Opened at the bench's rate, as the Node members join.
    for (const name of names) {
      const page = await context.newPage();
      pages.set(name, page);
      void page.goto(`${base}?${new URLSearchParams({ gateway: cluster.url, name, token: TOKEN })}`);
      await new Promise((resolve) => setTimeout(resolve, 1000 / params.joinRate));
    }
    const joined: string[] = [];
    await Promise.all(
      names.map(async (name) => {
        const page = pages.get(name)!;
        const ok = await page.waitForFunction(() => window.bench?.joined === true || window.bench?.error !== undefined, undefined, { timeout: 30_000 }).then(
          () => page.evaluate(() => window.bench?.joined === true),
          () => false,
        );
        if (ok) joined.push(name);
      }),
    );
    run.joined = joined.length;
    run.allAliveMs = (await cluster.waitSeen(joined, 'alive', start, 60_000)).ms;
    log(`chromium: ${joined.length} joined; all alive at every agent ${run.allAliveMs} ms after the first page opened`);

    const closing = pick(joined, params.closeTabs, params.seed + 1);
    const cutting = pick(joined.filter((n) => !closing.includes(n)), params.cutTabs, params.seed + 2);
    const closeAt = Date.now();
    for (const name of closing) gone.set(name, closeAt);
    // pagehide as a closing tab gets it: leaveOnPageHide leaves, then closes the member.
    await Promise.all(closing.map((name) => pages.get(name)!.evaluate(() => void window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false })))));
    run.close = await cluster.waitSeen(closing, 'left', closeAt, 60_000);
    log(`chromium: close → left ${run.close.ms} ms`);

    await Promise.all(cutting.map((name) => pages.get(name)!.evaluate(() => window.bench?.keepOnHide())));
    const cutAt = Date.now();
    for (const name of cutting) gone.set(name, cutAt);
    await Promise.all(cutting.map((name) => pages.get(name)!.close({ runBeforeUnload: false })));
    run.cut = await cluster.waitSeen(cutting, 'dead', cutAt, 90_000);
    log(`chromium: cut → dead ${run.cut.ms} ms`);
  } catch (error) {
    run.error = (error as Error).message;
  } finally {
    try {
      const f = countByState(falseEvents(await cluster.events(start), gone));
      run.falseEvents = f.suspect + f.dead + f.left;
    } catch {
      // the agents are gone: the error above says why
    }
    await browser?.close().catch(() => {});
    await web?.close();
    await cluster.stop();
  }
  return run;
}

