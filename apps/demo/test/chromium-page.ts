/**
 * The demo and a page of a real headless Chromium on it, for the browser tests: Debian's Chromium
 * (`.ci/run` installs it) driven by playwright-core, the page's errors collected.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { startDemo, type Demo, type DemoOptions } from '../src/demo.js';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export interface DemoPage {
  readonly demo: Demo;
  readonly browser: Browser;
  readonly page: Page;
  /** Uncaught errors of the page, as they happen. */
  readonly errors: string[];
  close(): Promise<void>;
}

/** Start the demo with `options` and open its page at `viewport`. */
export async function openDemoPage(options: DemoOptions, viewport: { readonly width: number; readonly height: number }): Promise<DemoPage> {
  expect(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`).toBe(true);
  const demo = await startDemo(options);
  let browser: Browser;
  try {
    // Root in CI: Chromium's sandbox needs an unprivileged user, so it is turned off.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  } catch (error) {
    await demo.close();
    throw error;
  }
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(demo.url);
  return {
    demo,
    browser,
    page,
    errors,
    close: async () => {
      await browser.close();
      await demo.close();
    },
  };
}
