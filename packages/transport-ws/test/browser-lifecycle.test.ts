/**
 * A backgrounded page in a real headless Chromium behaves as the README's "Background tabs" says:
 * - hidden (another tab opened in front of it): Chromium throttles its timers, yet it stays alive to
 *   every member for longer than the failure-detection bound, answering probes from its WebSocket
 *   messages, and accuses nobody;
 * - frozen (`Page.setWebLifecycleState`): it leaves (seen left, never dead), and on resume joins
 *   again under its name (alive again).
 * Chromium is driven over the DevTools protocol directly (cdp-chromium.ts says why not Playwright).
 */
import { existsSync } from 'node:fs';
import { failureDetectionBoundMs, presets } from '@swim/core';
import { Member, type MembershipChange } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWsGateway, type WsGateway } from '../src/node/index.js';
import { launchChromium, type CdpBrowser, type CdpPage } from './cdp-chromium.js';
import { sleep, waitFor } from './helpers.js';
import { servePage, type ServedPage } from '@swim/test-support/page-server';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
/**
 * The page's fast timers (browser-page/lifecycle.ts); a left name may be taken by a new address
 * after 1 s. retransmitMult 4 (lan's, not local's 2): in five members, a limit of 2 lets each member
 * that heard the tab's leave pass it to only two of its three peers, and in one run of about ten
 * the third probed the frozen tab, suspected it and (with these short timeouts) declared it dead
 * before the leave reached it.
 */
const config = { probeIntervalMs: 200, probeTimeoutMs: 150, gossipIntervalMs: 50, suspicionMult: 2, suspicionMaxTimeoutMult: 3, pushPullIntervalMs: 3_000, retransmitMult: 4, leftNameReclaimMs: 1_000 };
const UDP_NAMES = ['udp-1', 'udp-2', 'udp-3'];
/** The UDP members, the gateway's member and the tab. */
const CLUSTER_SIZE = UDP_NAMES.length + 2;
/** How long a silent member takes to be dead everywhere, in this cluster (config/detection-bound.ts). */
const BOUND_MS = failureDetectionBoundMs({ ...presets.local(), ...config }, CLUSTER_SIZE);

let gateway: WsGateway | undefined;
let web: ServedPage | undefined;
let browser: CdpBrowser | undefined;
const members: Member[] = [];
/** Every change each UDP member (and the gateway's) saw about a tab, as `observer: event`. */
const seen = new Map<string, string[]>();
let pageUrl = '';

async function udpMember(name: string): Promise<Member> {
  const transport = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
  const member = new Member({ name, transport, preset: 'local', config });
  members.push(member);
  member.on('change', (change: MembershipChange) => {
    const about = change.member.name;
    if (!about.startsWith('tab-')) return;
    const cause = change.cause === undefined ? '' : ` (${change.cause.kind} by ${change.cause.by})`;
    seen.set(about, [...(seen.get(about) ?? []), `${name}: ${change.event}${cause}`]);
  });
  return member;
}

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`).toBe(true);
  const own = await udpMember('gateway');
  for (const name of UDP_NAMES) await (await udpMember(name)).join([own.address]);
  gateway = await createWsGateway({ seed: own.address, seedName: own.name });
  web = await servePage(new URL('./browser-page/lifecycle.ts', import.meta.url));
  pageUrl = web.url;
  browser = await launchChromium(CHROMIUM);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(members.map((m) => m.close()));
  await gateway?.close();
  await web?.close();
});

interface PageState {
  readonly error: string | undefined;
  readonly visibility: string;
  readonly lives: number;
  readonly events: string[];
  readonly longestHiddenTimerGapMs: number;
  readonly seesAll: boolean;
  readonly counters: Record<string, number> | undefined;
}

function pageState(page: CdpPage): Promise<PageState> {
  return page.evaluate<PageState>(`(() => {
    const view = window.swim;
    return {
      error: view?.error,
      visibility: document.visibilityState,
      lives: view?.lives ?? 0,
      events: view?.events ?? [],
      longestHiddenTimerGapMs: view?.longestHiddenTimerGapMs ?? 0,
      seesAll: ${JSON.stringify(['gateway', ...UDP_NAMES])}.every((n) => view?.state(n) === 'alive'),
      counters: view?.lives ? view.counters() : undefined,
    };
  })()`);
}

/** Open a tab named `tab` and wait until it and every member see each other alive. */
async function joinedTab(tab: string): Promise<CdpPage> {
  const page = await browser!.open(`${pageUrl}?${new URLSearchParams({ gateway: gateway!.url, name: tab })}`);
  expect(await waitFor(async () => (await pageState(page)).seesAll, 30_000), `${tab} does not see every member alive: ${JSON.stringify(await pageState(page))}`).toBe(true);
  const allSee = () => members.every((m) => m.member(tab)?.state === 'alive');
  expect(await waitFor(allSee, 30_000), members.map((m) => `${m.name}: ${m.member(tab)?.state ?? 'unknown'}`).join(', ')).toBe(true);
  return page;
}

/** Members' views of `tab` that are not alive. */
function notAlive(tab: string): string[] {
  return members.filter((m) => m.member(tab)?.state !== 'alive').map((m) => `${m.name}: ${m.member(tab)?.state ?? 'unknown'}`);
}

describe('a backgrounded page in Chromium', () => {
  it('hidden behind another tab, its timers throttled, it stays alive past the failure-detection bound and accuses nobody', { timeout: 120_000 }, async () => {
    const tab = 'tab-hidden';
    const page = await joinedTab(tab);
    const before = (await pageState(page)).counters!;
    const front = await browser!.open('about:blank');
    expect(await waitFor(async () => (await pageState(page)).visibility === 'hidden', 10_000), 'the tab behind another is not hidden').toBe(true);

    // Held hidden three times the bound, checking all along that nobody stops holding it alive.
    const holdMs = 3 * BOUND_MS;
    const until = Date.now() + holdMs;
    const lapses: string[] = [];
    while (Date.now() < until) {
      lapses.push(...notAlive(tab));
      await sleep(50);
    }
    const hidden = await pageState(page);
    expect(hidden.error).toBeUndefined();
    expect(hidden.visibility).toBe('hidden');
    // Chromium did throttle it: a 100 ms timer chain ran about once a second.
    expect(hidden.longestHiddenTimerGapMs, `timer gaps while hidden: ${hidden.longestHiddenTimerGapMs} ms`).toBeGreaterThanOrEqual(900);
    expect(lapses, `held hidden ${holdMs} ms (bound ${BOUND_MS} ms)`).toEqual([]);
    expect(seen.get(tab)?.filter((e) => !e.endsWith(': join')) ?? [], 'what the members saw of the hidden tab').toEqual([]);
    const after = hidden.counters!;
    expect({ suspicionsRaised: after['suspicionsRaised']! - before['suspicionsRaised']!, deathsDeclared: after['deathsDeclared']! - before['deathsDeclared']! }, `the hidden tab's counters: ${JSON.stringify(after)}`).toEqual({ suspicionsRaised: 0, deathsDeclared: 0 });
    expect(hidden.seesAll, 'the hidden tab still sees every member alive').toBe(true);
    await front.send('Page.close').catch(() => {});
    await page.send('Page.close').catch(() => {});
  });

  it('frozen, it leaves (left, never dead); resumed, it joins again under its name', { timeout: 120_000 }, async () => {
    const tab = 'tab-frozen';
    const page = await joinedTab(tab);
    await page.send('Page.setWebLifecycleState', { state: 'frozen' });
    const allSeeLeft = () => members.every((m) => m.member(tab)?.state === 'left');
    expect(await waitFor(allSeeLeft, 10_000), `after freeze: ${notAlive(tab).join(', ')}`).toBe(true);
    // Frozen past the failure-detection bound: still left, nobody declared it dead.
    await sleep(BOUND_MS);
    expect(allSeeLeft(), `frozen ${BOUND_MS} ms: ${notAlive(tab).join(', ')}`).toBe(true);

    await page.send('Page.setWebLifecycleState', { state: 'active' });
    const allSeeAlive = () => members.every((m) => m.member(tab)?.state === 'alive');
    expect(await waitFor(allSeeAlive, 30_000), `after resume: ${notAlive(tab).join(', ')}`).toBe(true);
    const resumed = await pageState(page);
    expect(resumed.error).toBeUndefined();
    expect(resumed.lives, 'a second member, started on resume').toBe(2);
    expect(resumed.events).toEqual(expect.arrayContaining(['freeze:hidden', 'resume:hidden']));
    const events = seen.get(tab) ?? [];
    expect(events.filter((e) => / (dead|suspect)\b/.test(e)), `what the members saw: ${events.join(', ')}`).toEqual([]);
    expect(events.filter((e) => e.endsWith(': left')).length, events.join(', ')).toBe(members.length);
  });
});
