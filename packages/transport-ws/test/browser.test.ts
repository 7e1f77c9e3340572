/**
 * A real headless Chromium (Debian's, driven by playwright-core, as the demo's browser test): a tab
 * served over https joins an encrypted cluster of UDP members through a `wss://` gateway whose
 * relays hold the cluster keyring. The self-signed certificate is made here and trusted by its
 * public key alone (--ignore-certificate-errors-spki-list), not by turning certificate checks off.
 */
import { existsSync } from 'node:fs';
import { generateKey, Keyring, secureTransport, type SecureTransport } from '@swim/encryption';
import { Member } from '@swim/runtime';
import { createUdpTransport } from '@swim/transport-udp';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWsGateway, type WsGateway } from '../src/node/index.js';
import { waitFor } from './helpers.js';
import { servePage, type ServedPage } from '@swim/test-support/page-server';
import { selfSigned, type SelfSigned } from './self-signed.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const config = { probeIntervalMs: 200, probeTimeoutMs: 150, gossipIntervalMs: 50, suspicionMult: 2, suspicionMaxTimeoutMult: 3, pushPullIntervalMs: 3_000 };
const UDP_NAMES = ['udp-1', 'udp-2', 'udp-3'];
const KEY = generateKey();

/** A UDP member of the encrypted cluster, with its own keyring (as a separate process would have). */
async function encryptedMember(name: string): Promise<{ member: Member; transport: SecureTransport }> {
  const udp = await createUdpTransport({ bind: { host: '127.0.0.1', port: 0 } });
  const transport = secureTransport(udp, { keyring: Keyring.from([KEY]) });
  return { member: new Member({ name, transport, preset: 'local', config }), transport };
}

let tls: SelfSigned;
let gateway: WsGateway | undefined;
let web: ServedPage | undefined;
let browser: Browser | undefined;
const members: Member[] = [];

beforeAll(async () => {
  tls = await selfSigned();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(members.map((m) => m.close()));
  await gateway?.close();
  await web?.close();
});

it('a tab joins an encrypted cluster through wss:// and the UDP members see it alive', { timeout: 120_000 }, async () => {
  expect(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`).toBe(true);
  const own = await encryptedMember('gateway');
  const gatewayMember = own.member;
  members.push(gatewayMember);
  const transports = [own.transport];
  for (const name of UDP_NAMES) {
    const { member, transport } = await encryptedMember(name);
    members.push(member);
    transports.push(transport);
    await member.join([gatewayMember.address]);
  }
  gateway = await createWsGateway({
    tls: { cert: tls.cert, key: tls.key },
    seed: gatewayMember.address,
    seedName: gatewayMember.name,
    encryption: { keyring: own.transport.keyring! },
  });
  // The test page (index.html and its bundle from browser-page/) over https with the test's certificate.
  web = await servePage(new URL('./browser-page/main.ts', import.meta.url), { tls });
  const pageUrl = web.url;

  // Root in CI: Chromium's sandbox needs an unprivileged user, so it is turned off.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', `--ignore-certificate-errors-spki-list=${tls.spkiSha256}`] });
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const tab = 'tab-1';
  await page.goto(`${pageUrl}?${new URLSearchParams({ gateway: gateway.url, name: tab })}`);

  const everyone = ['gateway', ...UDP_NAMES];
  const tabSees = () => page.evaluate((names) => {
    const view = window.swim;
    if (view?.error !== undefined) throw new Error(view.error);
    return names.every((n) => view?.state(n) === 'alive');
  }, everyone);
  // Judged by what the wait saw: asking again could catch a member that a loaded host let fall
  // suspect for a moment since (CI beside a benchmark: true in the wait, false after).
  expect(await waitFor(tabSees, 30_000), `${tab} does not see every member alive`).toBe(true);
  const udpSee = () => members.every((m) => m.member(tab)?.state === 'alive');
  expect(await waitFor(udpSee, 30_000), members.map((m) => `${m.name}: ${m.member(tab)?.state ?? 'unknown'}`).join(', ')).toBe(true);
  expect(gateway.sessions().map((s) => s.name)).toEqual([tab]);
  // It went through encryption both ways, and nothing failed to decrypt anywhere. The relay
  // encrypts what the tab sends and decrypts what UDP members send it; both sides can see each
  // other alive through the gateway's push-pull and gossip before either has sent the other a
  // packet, so each direction is waited for.
  const relayCounters = () => gateway!.encryptionCounters()!;
  expect(await waitFor(() => relayCounters().packetsEncrypted > 0, 30_000), 'no packet from the tab reached a UDP member through the relay').toBe(true);
  expect(await waitFor(() => relayCounters().packetsDecrypted > 0, 30_000), 'no packet from a UDP member reached the tab through the relay').toBe(true);
  const relay = relayCounters();
  expect([relay, ...transports.map((t) => t.counters)].map((c) => c.decryptFailures)).toEqual([0, 0, 0, 0, 0]);
  expect(errors).toEqual([]);
});
