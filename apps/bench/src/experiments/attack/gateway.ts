/**
 * Finding 5 (gateway) and finding 1 through the gateway. A real gateway process (gateway-main.ts)
 * with its own member, and an agent joined to it. Three client attacks, from raw WebSocket clients:
 * clients that never read while large streams are relayed to them (the gateway buffered them all:
 * 40 × 5 MB → +300 MiB); many sessions from one IP (1,000 connections → 1,000 relays, 3,000 fds);
 * and a client's `suspect <gateway member>@2^32-1` (it crashed the gateway process). Done when the
 * gateway survives every one, within its memory and session caps.
 */
import { pushPullIntervalMs, resolveConfig } from '@swim/core';
import { forgePacket, holdPartialFrame, MAX_INCARNATION, type HeldStream } from './forge.js';
import { firstError } from './incarnation.js';
import { closeWindow, loadChecks, openWindow, worst } from './measure.js';
import { ask, FAST_CONFIG, fdCount, killEach, members, startAgent, startGateway, until, within, type GatewayProcess, type Watched } from './processes.js';
import { check, mib, ms, type Check, type ScenarioResult } from './result.js';
import type { AttackSizes } from './sizes.js';
import { RawWsClient, type Welcome } from './ws-raw.js';

/** The per-IP session cap this deployment configures (createWsGateway's maxSessionsPerIp). */
export const SESSIONS_PER_IP = 16;
/** The evil client connects from its own address, so that the session cap spent by the others does not stop it. */
const EVIL_HOST = '127.0.0.67';
/** The gateway's member push-pulls often, so that the watch for a refutation's effects can be short. */
const CONFIG = { pushPullIntervalMs: 500 };

type Hello = Welcome | { code: number; reason: string };
const welcomed = (reply: Hello): reply is Welcome => 'address' in reply;

async function openClient(gateway: GatewayProcess, name: string, host?: string): Promise<{ client?: RawWsClient; reply: Hello }> {
  try {
    const client = await RawWsClient.connect(gateway.url, host);
    const reply = await client.hello({ name, token: gateway.token });
    if (!welcomed(reply)) client.destroy();
    return { client, reply };
  } catch (error) {
    return { reply: { code: 0, reason: (error as Error).message } };
  }
}

/** Until the writes finish or make no progress for a second. */
async function settle(held: readonly HeldStream[], sent: number, limitMs: number): Promise<number> {
  let flushed = -1;
  let progressAt = Date.now();
  await within(limitMs, () => {
    const now = held.reduce((s, h) => s + h.flushed, 0);
    if (now !== flushed) {
      flushed = now;
      progressAt = Date.now();
    }
    return held.every((h) => h.flushed >= sent || h.closedAt !== undefined) || Date.now() - progressAt >= 1000;
  });
  return Math.max(0, flushed);
}

function tally(replies: readonly Hello[]): string {
  const refused = new Map<string, number>();
  for (const r of replies) {
    if (welcomed(r)) continue;
    // Code 0: refused before the WebSocket opened (the HTTP status is in the reason).
    const why = r.code === 0 ? r.reason : `${r.code} ${r.reason}`.trim();
    refused.set(why, (refused.get(why) ?? 0) + 1);
  }
  return [...refused.entries()].map(([why, n]) => `${n}× ${why}`).join(', ') || 'none';
}

export async function runGateway(sizes: AttackSizes): Promise<ScenarioResult> {
  const started = performance.now();
  const procs: Watched[] = [];
  const clients: RawWsClient[] = [];
  const held: HeldStream[] = [];
  try {
    const gateway = await startGateway('gw-member', { config: CONFIG, gateway: { maxSessionsPerIp: SESSIONS_PER_IP } });
    procs.push(gateway);
    const peer = await startAgent('gw-peer', { join: [gateway.seed], config: CONFIG });
    procs.push(peer);
    await until('the peer sees the gateway member alive', 30_000, async () => (await members(peer)).find((m) => m.name === gateway.memberName)?.state === 'alive');
    const rows: Array<[string, string]> = [];
    const checks: Check[] = [];
    const figures: Record<string, unknown> = {};
    const alive = () => check('the gateway process is running', gateway.exit === undefined ? 'running' : `EXITED (${gateway.exit.code ?? gateway.exit.signal}: ${firstError(gateway.stderrTail())})`, 'running', gateway.exit === undefined);

    // 1. Clients that never read, with large streams relayed to them.
    {
      const window = await openWindow([gateway]);
      const opened = await Promise.all(Array.from({ length: sizes.slowClients }, (_, i) => openClient(gateway, `slow-${i}`)));
      const relays: string[] = [];
      for (const { client, reply } of opened) {
        if (client === undefined || !welcomed(reply)) continue;
        clients.push(client);
        client.stopReading();
        relays.push(reply.address);
      }
      const streams: HeldStream[] = [];
      for (const relay of relays) for (let s = 0; s < sizes.slowStreams; s++) streams.push(holdPartialFrame(relay, sizes.slowStreamBytes, sizes.slowStreamBytes));
      held.push(...streams);
      const flushed = await settle(streams, sizes.slowStreamBytes, 10 * sizes.watchMs + 60_000);
      await within(sizes.watchMs, () => gateway.exit !== undefined);
      const loads = await closeWindow(window, 60_000);
      const w = worst(loads);
      const refusedStreams = streams.filter((h) => h.closedAt !== undefined).length;
      rows.push([
        'clients that never read',
        `${relays.length} of ${sizes.slowClients} welcomed (refused: ${tally(opened.map((o) => o.reply))}); ${streams.length} streams of ${mib(sizes.slowStreamBytes)} MiB to their relays, ${mib(flushed)} MiB taken, ${refusedStreams} closed by the gateway; gateway RSS growth ${w.rssGrowthMiB} MiB, stall ${ms(w.maxStallMs)}`,
      ]);
      figures['slowReaders'] = { clients: sizes.slowClients, welcomed: relays.length, streams: streams.length, streamBytes: sizes.slowStreamBytes, flushedBytes: flushed, closedByGateway: refusedStreams, loads };
      checks.push(...loadChecks('clients that never read', loads));
      for (const c of clients) c.goodbye();
      for (const h of streams) h.socket.destroy();
    }

    // 2. Many sessions from one IP.
    {
      const window = await openWindow([gateway]);
      const fdsBefore = fdCount(gateway);
      const replies: Hello[] = [];
      const batch = 50;
      for (let first = 0; first < sizes.sessionsFromOneIp; first += batch) {
        const opened = await Promise.all(Array.from({ length: Math.min(batch, sizes.sessionsFromOneIp - first) }, (_, i) => openClient(gateway, `many-${first + i}`)));
        for (const { client, reply } of opened) {
          replies.push(reply);
          if (client !== undefined && welcomed(reply)) clients.push(client);
        }
      }
      const accepted = replies.filter(welcomed).length;
      const gw = await ask<{ sessions: number }>(gateway, 'gateway');
      const fdsAfter = fdCount(gateway);
      const loads = await closeWindow(window, 60_000);
      const w = worst(loads);
      rows.push([
        'sessions from one IP',
        `${accepted} of ${sizes.sessionsFromOneIp} welcomed (refused: ${tally(replies)}); gateway sessions ${gw?.sessions ?? 'n/a'}, fds ${fdsBefore} → ${fdsAfter}; RSS growth ${w.rssGrowthMiB} MiB, stall ${ms(w.maxStallMs)}`,
      ]);
      figures['sessions'] = { attempted: sizes.sessionsFromOneIp, accepted, gatewaySessions: gw?.sessions, fdsBefore, fdsAfter, loads };
      checks.push(check('sessions accepted from one IP', `${accepted} of ${sizes.sessionsFromOneIp}`, `≤ ${SESSIONS_PER_IP} (maxSessionsPerIp)`, accepted <= SESSIONS_PER_IP), ...loadChecks('sessions from one IP', loads));
      for (const c of clients.splice(0)) c.goodbye();
    }

    // 3. A client accuses the gateway's own member at the top incarnation.
    {
      const { client, reply } = await openClient(gateway, 'evil', EVIL_HOST);
      const sent = client !== undefined && welcomed(reply);
      if (sent) {
        clients.push(client);
        client.sendPacket(gateway.seed, forgePacket([{ type: 'suspect', incarnation: MAX_INCARNATION, node: gateway.memberName, from: 'evil' }]));
      }
      const config = resolveConfig({ ...FAST_CONFIG, ...CONFIG });
      await within(2 * pushPullIntervalMs(config.pushPullIntervalMs, 2) + 1000, () => gateway.exit !== undefined);
      const view = peer.exit === undefined ? await members(peer).catch(() => []) : [];
      const seen = view.find((m) => m.name === gateway.memberName);
      rows.push([
        `client sends suspect(${gateway.memberName})@2^32-1`,
        `${sent ? 'sent' : `could not connect: ${welcomed(reply) ? '' : `${reply.code} ${reply.reason}`}`}; gateway ${gateway.exit === undefined ? 'running' : `EXITED: ${firstError(gateway.stderrTail())}`}; the peer sees it ${seen?.state ?? 'absent'}@${seen?.incarnation ?? '-'}`,
      ]);
      figures['accusation'] = { sent, exited: gateway.exit !== undefined, error: gateway.exit === undefined ? undefined : firstError(gateway.stderrTail()), peerSees: seen };
      checks.push(check('the evil client got a session to send from', sent ? 'yes' : 'no', 'yes', sent), alive(), check("the gateway member alive in its peer's view", `${seen?.state ?? 'absent'}@${seen?.incarnation ?? '-'}`, 'alive', seen?.state === 'alive'));
    }
    return { scenario: 'gateway', title: 'WebSocket gateway under client attacks (findings 5 and 1)', wallMs: performance.now() - started, rows, figures, checks };
  } finally {
    for (const c of clients) c.destroy();
    for (const h of held) h.socket.destroy();
    killEach(procs);
  }
}
