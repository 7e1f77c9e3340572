/**
 * Failover in a real headless Chromium (Debian's, driven by playwright-core, as browser.test.ts):
 * a page is given two gateway URLs. Gateway A runs in a child process with its own UDP member
 * (fixtures/gateway-process.ts) and is killed with SIGKILL: no close frame reaches the page, no
 * leave reaches the cluster. Gateway B runs here with its own member and the same credential
 * secret. The page reconnects to B and stays the same member: every UDP member and B's member
 * hold it alive under its name at its new relay, at a higher incarnation, and none ever
 * declares it dead or left. The times measured go to the log and into the failure messages.
 */
import { existsSync } from 'node:fs';
import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { createWsGateway, type WsGateway } from '../src/node/index.js';
import { spawnGateway, type GatewayProcess } from './fixtures/spawn-gateway.js';
import { waitFor } from './helpers.js';
import { servePage, type ServedPage } from '@swim/test-support/page-server';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const SECRET = 'browser-failover-cluster-secret';
const UDP_NAMES = ['udp-1', 'udp-2', 'udp-3'];
/** Members of the cluster: the UDP ones, the two gateways' own, the tab. */
const CLUSTER = UDP_NAMES.length + 2 + 1;
/** The lan preset's probe interval (every member here runs it). */
const PROBE_INTERVAL_MS = 1_000;
/**
 * From the kill to the tab alive at its new relay at every member: gossip carries the move within
 * about a second; a member that missed it learns it when it next probes the old relay (one round
 * robin: CLUSTER probe intervals) or from a push-pull (README, "The bound"). Plus 30 s for this
 * machine, shared with benchmarks and other test runs.
 */
const FAILOVER_BOUND_MS = CLUSTER * PROBE_INTERVAL_MS + 30_000;
/** How long A's own member may take to be declared dead everywhere (Lifeguard stretches suspicion under load). */
const GATEWAY_DEAD_WITHIN_MS = 120_000;
const TAB = 'tab-chromium';

let browser: Browser | undefined;
let web: ServedPage | undefined;
let gatewayA: GatewayProcess | undefined;
let gatewayB: WsGateway | undefined;
const members: Member[] = [];

afterAll(async () => {
  await browser?.close();
  gatewayA?.child.kill('SIGKILL');
  await gatewayB?.close();
  await Promise.all(members.map((m) => m.close()));
  await web?.close();
});

/** What the page says about itself: gateway URL, relay address, connection state, incarnation, moves. */
function pageSelf(page: Page): Promise<{ url: string; address: string; connection: string; incarnation: number; moves: string[] }> {
  return page.evaluate(() => {
    const view = window.swimFailover;
    if (view?.error !== undefined) throw new Error(view.error);
    return { url: view?.url() ?? '', address: view?.address() ?? '', connection: view?.connection() ?? 'not started', incarnation: view?.incarnation() ?? 0, moves: view?.moves ?? [] };
  });
}

it('a page given two gateways survives the SIGKILL of its gateway: alive through the other, same name, never declared dead', { timeout: 2 * FAILOVER_BOUND_MS + GATEWAY_DEAD_WITHIN_MS + 120_000 }, async () => {
  expect(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`).toBe(true);
  for (const name of UDP_NAMES) {
    const member = new Member({ name, transport: await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } }), preset: 'lan' });
    if (members.length > 0) await member.join([members[0]!.address]);
    members.push(member);
  }
  const ownB = new Member({ name: 'gateway-b', transport: await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } }), preset: 'lan' });
  members.push(ownB);
  await ownB.join([members[0]!.address]);
  gatewayB = await createWsGateway({ seed: ownB.address, seedName: ownB.name, credentialSecret: SECRET });
  gatewayA = await spawnGateway('gateway-a', members[0]!.address, SECRET);

  // Every membership event about the tab, at every member that stays up.
  const events: Array<{ at: number; observer: string; event: string; address: string }> = [];
  for (const member of members) {
    member.on('change', ({ event, member: about }) => {
      if (about.name === TAB) events.push({ at: performance.now(), observer: member.name, event, address: about.address });
    });
  }
  const holds = () => members.map((m) => `${m.name}: ${m.member(TAB)?.state ?? 'unknown'}@${m.member(TAB)?.address ?? '-'}`).join(', ');

  web = await servePage(new URL('./browser-page/failover.ts', import.meta.url));
  const pageUrl = web.url;
  // Root in CI: Chromium's sandbox needs an unprivileged user, so it is turned off.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const query = new URLSearchParams([['name', TAB], ['gateway', gatewayA.url], ['gateway', gatewayB.url]]);
  await page.goto(`${pageUrl}?${query}`);

  const everyone = [...UDP_NAMES, 'gateway-a', 'gateway-b'];
  const tabSeesAll = () => page.evaluate((names) => names.every((n) => window.swimFailover?.state(n) === 'alive'), everyone);
  expect(await waitFor(tabSeesAll, 60_000), `${TAB} does not see every member alive`).toBe(true);
  expect(await waitFor(() => members.every((m) => m.member(TAB)?.state === 'alive'), 60_000), `not every member sees ${TAB} alive: ${holds()}`).toBe(true);
  const before = await pageSelf(page);
  // The list is tried in order: the page starts on A.
  expect(before.url).toBe(gatewayA.url);
  expect(members.every((m) => m.member(TAB)?.address === before.address), holds()).toBe(true);

  const killedAt = performance.now();
  gatewayA.child.kill('SIGKILL');

  const onB = await waitFor(async () => {
    const now = await pageSelf(page);
    return now.url === gatewayB!.url && now.connection === 'open';
  }, FAILOVER_BOUND_MS);
  const welcomedMs = Math.round(performance.now() - killedAt);
  const after = await pageSelf(page);
  expect(onB, `the page did not reach gateway B within ${FAILOVER_BOUND_MS} ms of the SIGKILL: ${JSON.stringify(after)}`).toBe(true);
  expect(after.address).not.toBe(before.address);
  expect(after.moves).toEqual([after.address]);
  expect(gatewayB.sessions().map((s) => [s.name, s.address])).toEqual([[TAB, after.address]]);

  const movedEverywhere = () => members.every((m) => m.member(TAB)?.state === 'alive' && m.member(TAB)?.address === after.address);
  const moved = await waitFor(movedEverywhere, FAILOVER_BOUND_MS);
  const failoverMs = Math.round(performance.now() - killedAt);
  expect(
    moved,
    `${TAB} not alive at its new relay ${after.address} everywhere within ${FAILOVER_BOUND_MS} ms of the SIGKILL (welcomed by B after ${welcomedMs} ms): ${holds()}; events: ${JSON.stringify(events)}`,
  ).toBe(true);
  // The same name, one entry, a higher incarnation than before the move.
  const incarnationAfter = (await pageSelf(page)).incarnation;
  expect(incarnationAfter).toBeGreaterThan(before.incarnation);
  for (const m of members) expect(m.member(TAB)!.incarnation, m.name).toBe(incarnationAfter);

  // Once A's own member is dead everywhere, any suspicion of the tab raised at the kill has timed out too.
  expect(
    await waitFor(() => UDP_NAMES.every((name) => members.find((m) => m.name === name)!.member('gateway-a')?.state === 'dead'), GATEWAY_DEAD_WITHIN_MS),
    `gateway-a not declared dead everywhere within ${GATEWAY_DEAD_WITHIN_MS} ms: ${members.map((m) => `${m.name}: ${m.member('gateway-a')?.state}`).join(', ')}`,
  ).toBe(true);
  const downs = events.filter((e) => e.event === 'dead' || e.event === 'left');
  expect(downs, `${TAB} declared dead or left (welcomed by B after ${welcomedMs} ms, alive at its new relay everywhere after ${failoverMs} ms): ${JSON.stringify(downs)}`).toEqual([]);
  expect(movedEverywhere(), `after gateway-a's death: ${holds()}`).toBe(true);
  const suspicions = events.filter((e) => e.event === 'suspect' && e.at >= killedAt).length;
  console.log(`Chromium failover: SIGKILL of gateway A; the page was welcomed by B after ${welcomedMs} ms and alive at its new relay at all ${members.length} members after ${failoverMs} ms; ${suspicions} suspect events, 0 dead, 0 left`);
  expect(errors).toEqual([]);
});
