/**
 * Finding 5, agent side: stream connections that announce a large frame, send most of it and
 * never finish. The agent buffered every byte of every such frame (250 × 19 MiB: RSS 85 → 710 MiB,
 * loop stalls of 18 s). Reported: RSS growth and stall of the target, connections it still holds
 * once the attacker's writes stop making progress, and whether its peer still sees it alive.
 */
import { holdPartialFrame } from './forge.js';
import { closeWindow, loadChecks, loadRow, openWindow, worst } from './measure.js';
import { killEach, members, startCluster, within, type AgentProcess } from './processes.js';
import { check, mib, ms, type ScenarioResult } from './result.js';
import type { AttackSizes } from './sizes.js';

export async function runStreams(sizes: AttackSizes): Promise<ScenarioResult> {
  const started = performance.now();
  const agents = await startCluster(['streams-target', 'streams-peer']);
  const [target, peer] = agents as [AgentProcess, AgentProcess];
  const held: Array<ReturnType<typeof holdPartialFrame>> = [];
  try {
    const window = await openWindow(agents);
    const t0 = performance.now();
    for (let i = 0; i < sizes.heldStreams; i++) held.push(holdPartialFrame(target.address, sizes.heldAnnouncedBytes, sizes.heldSentBytes));
    // The writes end when all is sent, or stop making progress when the target stops reading.
    let flushed = -1;
    let progressAt = Date.now();
    await within(10 * sizes.watchMs + 60_000, () => {
      const now = held.reduce((s, h) => s + h.flushed, 0);
      if (now !== flushed) {
        flushed = now;
        progressAt = Date.now();
      }
      return held.every((h) => h.flushed >= sizes.heldSentBytes || h.closedAt !== undefined) || Date.now() - progressAt >= 1000;
    });
    const fillMs = performance.now() - t0;
    await within(sizes.watchMs, () => target.exit !== undefined);
    const loads = await closeWindow(window, 60_000);
    const kept = held.filter((h) => h.closedAt === undefined).length;
    const view = peer.exit === undefined ? await members(peer).catch(() => []) : [];
    const seenAs = view.find((m) => m.name === target.name)?.state ?? 'absent';
    const w = worst(loads);
    return {
      scenario: 'streams',
      title: 'Unfinished stream frames (finding 5, agent)',
      wallMs: performance.now() - started,
      rows: [
        ['attack', `${sizes.heldStreams} connections, each announcing ${mib(sizes.heldAnnouncedBytes)} MiB and sending ${mib(sizes.heldSentBytes)} MiB`],
        ['taken by the kernel', `${mib(flushed)} MiB in ${ms(fillMs)}; connections still open after that: ${kept} of ${held.length}`],
        ['target', `RSS growth ${w.rssGrowthMiB} MiB, stall ${ms(w.maxStallMs)} (wall ${ms(w.maxGapMs)}); ${loadRow(loads)}`],
        ["peer's view of the target", seenAs],
      ],
      figures: { connections: sizes.heldStreams, announcedBytes: sizes.heldAnnouncedBytes, sentBytes: sizes.heldSentBytes, flushedBytes: flushed, fillMs, kept, loads, peerSees: seenAs },
      checks: [...loadChecks('held streams', loads), check("the target alive in its peer's view", seenAs, 'alive', seenAs === 'alive')],
    };
  } finally {
    for (const h of held) h.socket.destroy();
    killEach(agents);
  }
}
