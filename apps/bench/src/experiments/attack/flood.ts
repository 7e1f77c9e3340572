/**
 * Finding 2: nothing bounded what a stranger adds. 100,000 forged `alive` messages about fake
 * members (in ~100 datagrams) go to one agent; then push-pulls over TCP to another: 100,000
 * entries, 16,000 (under the default maxPushPullEntries, so it is merged rather than refused) and,
 * in the full run, a 19 MiB frame (issue 10's 700,000 entries in 18 MB, under the old 20 MiB frame
 * cap). For each:
 * table growth (distinct fake names each agent admitted, and GET /members afterwards) against the
 * configured caps, RSS growth and event-loop stall of every agent. Then a real member is killed
 * with SIGKILL and the time until every other agent holds it dead is compared with
 * `failureDetectionBoundMs` for the real cluster size.
 */
import { failureDetectionBoundMs, resolveConfig, type SwimConfig } from '@swim/core';
import { formatDuration } from '../../stats.js';
import { fakeAlivePackets, fakePushPullFrame, pushPullEntriesFor, streamRequest, UdpAttacker, type StreamOutcome } from './forge.js';
import { closeWindow, loadChecks, loadRow, openWindow, worst, type Load } from './measure.js';
import { delay, FAST_CONFIG, getJson, killEach, logged, members, startCluster, within, type AgentProcess } from './processes.js';
import { check, ms, type Check, type ScenarioResult } from './result.js';
import type { AttackSizes } from './sizes.js';

const NAMES = ['flood-a', 'flood-b', 'flood-c', 'flood-d'] as const;

interface Phase {
  readonly label: string;
  readonly target: string;
  readonly sentBytes: number;
  readonly sendMs: number;
  readonly stream?: StreamOutcome;
  /**
   * Fake names each agent took in: the larger of the distinct names it logged a join for (its log
   * may lag behind a flood) and the fakes of this phase in its GET /members afterwards (reaped fakes
   * are gone from there).
   */
  readonly admitted: Record<string, number>;
  /** From the first forged byte sent to the target's last join of a fake: when admissions can have happened. */
  readonly admitSpanMs: number;
  /** GET /members count per agent after the watch. */
  readonly tableSize: Record<string, number | undefined>;
  readonly loads: readonly Load[];
  /** The target's own figure from GET /stats (`process.eventLoopDelayMs`, since it started), where the agent reports one. */
  readonly ownLoopDelay: { readonly p99: number; readonly max: number } | undefined;
  readonly checks: readonly Check[];
}

/** Distinct fake names an agent logged a join for, and the time of the last such join (0 if none). */
function fakeJoins(agent: AgentProcess, prefix: string): { names: number; lastAt: number } {
  const joins = logged(agent, 'join').filter((j) => j.member.name.startsWith(prefix));
  return { names: new Set(joins.map((j) => j.member.name)).size, lastAt: joins.reduce((last, j) => Math.max(last, j.time), 0) };
}

/**
 * The most fake names the caps let one source add over `spanMs`: `maxNewMembersPerSource` per probe
 * interval (each window touched), and never past `maxMembers`. Undefined when the config has no caps.
 */
export function admissionCap(config: SwimConfig, spanMs: number, realMembers: number): number | undefined {
  const c = config as SwimConfig & { maxNewMembersPerSource?: number; maxMembers?: number };
  if (c.maxNewMembersPerSource === undefined || c.maxMembers === undefined) return undefined;
  const windows = Math.floor(spanMs / config.probeIntervalMs) + 1;
  return Math.min(c.maxNewMembersPerSource * windows, c.maxMembers - realMembers);
}

async function phase(
  label: string,
  agents: readonly AgentProcess[],
  target: AgentProcess,
  prefix: string,
  config: SwimConfig,
  sizes: AttackSizes,
  attack: () => Promise<{ sentBytes: number; stream?: StreamOutcome }>,
): Promise<Phase> {
  const window = await openWindow(agents);
  const startedAt = Date.now();
  const t0 = performance.now();
  const sent = await attack();
  const sendMs = performance.now() - t0;
  await within(sizes.watchMs, () => agents.some((a) => a.exit !== undefined));
  const loads = await closeWindow(window, Math.max(30_000, sizes.detectLimitMs));
  const ownLoopDelay = (await getJson<{ process?: { eventLoopDelayMs: { p99: number; max: number } } }>(target, '/stats', 60_000))?.process?.eventLoopDelayMs;
  const admitted: Record<string, number> = {};
  const tableSize: Record<string, number | undefined> = {};
  for (const a of agents) {
    const view = a.exit === undefined ? await members(a, 60_000).catch(() => undefined) : undefined;
    tableSize[a.name] = view?.length;
    const inTable = view?.filter((m) => m.name.startsWith(prefix)).length ?? 0;
    admitted[a.name] = Math.max(fakeJoins(a, prefix).names, inTable);
  }
  const { lastAt } = fakeJoins(target, prefix);
  // Admissions happened between the first forged byte and the last join logged (or now, if the log lags).
  const spanMs = Math.max(0, (admitted[target.name]! > fakeJoins(target, prefix).names ? Date.now() : lastAt) - startedAt);
  const cap = admissionCap(config, spanMs, agents.length);
  const most = Math.max(...Object.values(admitted));
  const checks: Check[] = [
    check(
      `${label}: table growth within the caps`,
      `${most} fake names admitted (most by one agent)`,
      cap === undefined ? 'caps (maxNewMembersPerSource, maxMembers) not configured' : `≤ ${cap} (maxNewMembersPerSource per probe interval over ${ms(spanMs)}, ≤ maxMembers)`,
      cap !== undefined && most <= cap,
    ),
    ...loadChecks(label, loads),
  ];
  return { label, target: target.name, sentBytes: sent.sentBytes, sendMs, ...(sent.stream === undefined ? {} : { stream: sent.stream }), admitted, admitSpanMs: spanMs, tableSize, loads, ownLoopDelay, checks };
}

function scores(byName: Record<string, number | undefined>): string {
  return Object.entries(byName)
    .map(([n, s]) => `${n.replace('flood-', '')}=${s ?? '-'}`)
    .join(' ');
}

export async function runFlood(sizes: AttackSizes): Promise<ScenarioResult> {
  const started = performance.now();
  const agents = await startCluster(NAMES);
  const [a, b, , d] = agents as [AgentProcess, AgentProcess, AgentProcess, AgentProcess];
  const attacker = await UdpAttacker.open();
  const config = resolveConfig(FAST_CONFIG);
  try {
    const phases: Phase[] = [];
    // 1. Forged alives over UDP, paced a little so that the kernel's receive buffer does not drop them.
    phases.push(
      await phase(`${sizes.fakeAlives.toLocaleString('en')} fake alives (UDP)`, agents, a, 'fake-udp-', config, sizes, async () => {
        const packets = fakeAlivePackets('fake-udp-', sizes.fakeAlives, sizes.alivesPerDatagram);
        for (const [i, packet] of packets.entries()) {
          await attacker.send(a.address, packet);
          if (i % 10 === 9) await delay(5);
        }
        return { sentBytes: packets.reduce((s, p) => s + p.length, 0) };
      }),
    );
    // 2. Push-pulls with many entries, one TCP stream each.
    for (const [i, size] of sizes.pushPulls.entries()) {
      const prefix = `fake-pp${i}-`;
      const entries = 'entries' in size ? size.entries : pushPullEntriesFor(prefix, size.frameBytes);
      const near = 'frameBytes' in size ? `, a ${(size.frameBytes / 2 ** 20).toFixed(0)} MiB frame` : '';
      phases.push(
        await phase(`push-pull of ${entries.toLocaleString('en')} entries${near} (TCP)`, agents, b, prefix, config, sizes, async () => {
          const framed = fakePushPullFrame(prefix, entries);
          const stream = await streamRequest(b.address, framed, Math.max(30_000, sizes.detectLimitMs));
          return { sentBytes: framed.length, stream };
        }),
      );
    }

    // 3. A real crash afterwards: every other agent must hold it dead within the usual bound.
    const boundMs = failureDetectionBoundMs(config, agents.length);
    const observers = agents.filter((x) => x !== d && x.exit === undefined);
    // Lifeguard's local health: probes of fakes that never answer (and fake helpers that never nack) raise it and slow probing.
    const health = async () => Object.fromEntries(await Promise.all(observers.map(async (o) => [o.name, (await getJson<{ healthScore: number }>(o, '/members', 60_000))?.healthScore] as const)));
    const healthAtKill = await health();
    const killedAt = Date.now();
    d.child.kill('SIGKILL');
    const deadAt = () => observers.map((o) => logged(o, 'dead', d.name).find((e) => e.time >= killedAt - 1000)?.time);
    await within(sizes.detectLimitMs, () => deadAt().every((t) => t !== undefined));
    const times = deadAt();
    const detectedMs = times.every((t) => t !== undefined) ? Math.max(...(times as number[])) - killedAt : undefined;
    const missing = observers.filter((_, i) => times[i] === undefined).map((o) => o.name);
    const healthAfter = await health();
    const lost = agents.filter((x) => x !== d && x.exit !== undefined).map((x) => x.name);

    const rows: Array<[string, string]> = [];
    const figures: Record<string, unknown> = { config: { maxMembers: (config as { maxMembers?: number }).maxMembers, maxNewMembersPerSource: (config as { maxNewMembersPerSource?: number }).maxNewMembersPerSource, maxPushPullEntries: (config as { maxPushPullEntries?: number }).maxPushPullEntries, probeIntervalMs: config.probeIntervalMs } };
    const checks: Check[] = [];
    for (const p of phases) {
      const w = worst(p.loads);
      rows.push([
        `${p.label} → ${p.target}`,
        `${(p.sentBytes / 1e6).toFixed(1)} MB in ${ms(p.sendMs)}${p.stream === undefined ? '' : ` (stream: ${p.stream.end} after ${ms(p.stream.ms)})`}; fake names admitted ${Object.entries(p.admitted)
          .map(([n, c]) => `${n.replace('flood-', '')}=${c}`)
          .join(' ')}; GET /members ${Object.entries(p.tableSize)
          .map(([n, c]) => `${n.replace('flood-', '')}=${c ?? '-'}`)
          .join(' ')}; worst RSS growth ${w.rssGrowthMiB} MiB, worst stall ${ms(w.maxStallMs)} (wall ${ms(w.maxGapMs)})${p.ownLoopDelay === undefined ? '' : `; ${p.target}'s own GET /stats loop delay since start: p99 ${ms(p.ownLoopDelay.p99)}, max ${ms(p.ownLoopDelay.max)}`}`,
      ]);
      rows.push([`  per agent`, loadRow(p.loads)]);
      figures[p.label] = { target: p.target, sentBytes: p.sentBytes, sendMs: p.sendMs, stream: p.stream, admitted: p.admitted, admitSpanMs: p.admitSpanMs, tableSize: p.tableSize, loads: p.loads, ownLoopDelay: p.ownLoopDelay };
      checks.push(...p.checks);
    }
    // Fakes still in the tables stretch the probe rotation: the bound for a table of that size, for comparison.
    const tableAtKill = Math.max(...Object.values(phases.at(-1)!.tableSize).map((n) => n ?? 0));
    const tableBoundMs = failureDetectionBoundMs(config, tableAtKill);
    rows.push([
      `kill -9 ${d.name} afterwards`,
      `${detectedMs === undefined ? `not seen dead by ${missing.join(', ')} within ${ms(sizes.detectLimitMs)}` : `all others hold it dead after ${ms(detectedMs)}`}; bound ${ms(boundMs)} (failureDetectionBoundMs, n=${agents.length}); for the ${tableAtKill} members in the largest table it would be ${formatDuration(tableBoundMs)}; health scores at the kill ${scores(healthAtKill)}, at the end ${scores(healthAfter)}`,
    ]);
    figures['detection'] = { detectedMs, boundMs, missing, lost, tableAtKill, tableBoundMs, healthAtKill, healthAfter };
    checks.push(
      check(
        'kill -9 after the floods detected within the bound',
        detectedMs === undefined ? `not detected by ${[...missing, ...lost].join(', ')} within ${ms(sizes.detectLimitMs)}` : ms(detectedMs),
        `≤ ${ms(boundMs)}`,
        detectedMs !== undefined && detectedMs <= boundMs && lost.length === 0,
      ),
    );
    return { scenario: 'flood', title: 'Fake members: alive flood and huge push-pulls (finding 2)', wallMs: performance.now() - started, rows, figures, checks };
  } finally {
    attacker.close();
    killEach(agents);
  }
}
