/**
 * One soak run: the network, the agents, Prometheus, the watchers, the nemesis and the samplers;
 * the normalized timeline and the checker's verdict at the end. Everything it started is torn down
 * on the way out, Ctrl-C included.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failureDetectionBoundMs, resolveConfig } from '@swim/core';
import { ConvergenceTracker, type Views } from './convergence.js';
import { checkTimeline, type CheckReport, type SlopeBounds } from './checker/index.js';
import { binaryMissing, Fleet, REPO_ROOT, SOAK_CONFIG, type AgentSlot } from './fleet.js';
import { setUpNetwork } from './network.js';
import { Nemesis, sleep } from './nemesis.js';
import { defaultLongLived, type SoakParams } from './params.js';
import { startPrometheus, type Prometheus } from './prometheus.js';
import { loadSample, procSample } from './resources.js';
import type { ObservationKind } from './checker/index.js';
import type { ContainedError, ConvergenceResult, ExitEntry, NemesisRecord, ResourceSample, SourcedObservation } from './timeline.js';
import { toTimeline } from './to-timeline.js';
import { GroupWatcher } from './watcher.js';

const MEMBER_KINDS: readonly string[] = ['join', 'update', 'suspect', 'alive', 'dead', 'left'];

export interface SoakResult {
  readonly experiment: 'soak';
  readonly params: SoakParams;
  readonly gitSha: string;
  readonly network: { readonly mode: string; readonly why: string | undefined; readonly groups: ReadonlyArray<{ name: string; netns: string | undefined; host: string; agents: number }> };
  readonly config: Readonly<Record<string, number>>;
  readonly boundMs: number;
  readonly convergenceLimitMs: number;
  readonly cap: number;
  /** The agents the nemesis never killed, left or restarted (their slopes are invariant 5's). */
  readonly longLived: readonly string[];
  readonly startedAt: string;
  /** ms from the run's start: the nemesis's end, the run's end. */
  readonly nemesisEnd: number;
  readonly runEnd: number;
  readonly actions: readonly NemesisRecord[];
  readonly observations: readonly SourcedObservation[];
  readonly convergence: readonly ConvergenceResult[];
  readonly samples: readonly ResourceSample[];
  readonly load: ReadonlyArray<{ at: number; load: [number, number, number] }>;
  readonly containedErrors: readonly ContainedError[];
  readonly promContainedErrors: number;
  readonly prometheus: Record<string, number>;
  readonly exits: readonly ExitEntry[];
  /** Monitor streams lost while their agent still ran (re-opened each time). */
  readonly monitorLosses: number;
  readonly slopeBounds: SlopeBounds;
  /** The shared checker's report over the run's timeline (invariants 1-6). */
  readonly check: CheckReport;
  /** Where the agents' logs and the nemesis log were kept (only when something failed), else undefined. */
  readonly keptDir: string | undefined;
  readonly nemesisLog: string;
}

/**
 * Invariant 5's bounds per hour: a leak's rate (16 MiB/h of RSS, 8 MiB/h of heap, 2 fds or sockets
 * an hour), or, on a short run, what the noise of sampling (GC, a push-pull's socket open at the
 * instant) can make of the judged window (8 MiB, 4 fds) when that is more.
 */
export function slopeBoundsFor(runMs: number): SlopeBounds {
  const windowHours = (0.75 * runMs) / 3_600_000;
  const mib = 1024 * 1024;
  return {
    rss: Math.max(16 * mib, (8 * mib) / windowHours),
    heapUsed: Math.max(8 * mib, (8 * mib) / windowHours),
    fds: Math.max(2, 4 / windowHours),
    sockets: Math.max(2, 4 / windowHours),
  };
}

function gitSha(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim() !== '';
    return `${sha}${dirty ? ' (with uncommitted changes)' : ''}`;
  } catch {
    return 'unknown';
  }
}

export async function runSoak(params: SoakParams, outDir: string, say: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<SoakResult> {
  const missing = binaryMissing();
  if (missing !== undefined) throw new Error(missing);
  // Read before the run: the worktree may change during an hour.
  const codeVersion = gitSha();
  const dir = mkdtempSync(join(tmpdir(), 'swim-soak-'));
  const network = setUpNetwork(params.agents, params.network);
  const agentConfig = { ...SOAK_CONFIG, ...params.config };
  const fleet = new Fleet(network, dir, randomBytes(32).toString('base64'), agentConfig);
  const watchers = new Map(network.groups.map((g) => [g.name, new GroupWatcher(g)]));
  let prometheus: Prometheus | undefined;
  let nemesis: Nemesis | undefined;
  let interrupted = false;
  let cleaned: Promise<void> | undefined;
  const cleanUp = () =>
    (cleaned ??= (async () => {
      await fleet.killAll();
      for (const w of watchers.values()) w.close();
      await prometheus?.stop();
      network.close();
    })());
  // Ctrl-C: tear everything down at once (agents run in sessions of their own and would outlive us), then exit.
  const onSignal = () => {
    interrupted = true;
    nemesis?.stop();
    say('interrupted: killing the agents and Prometheus, removing the namespaces');
    void cleanUp().finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(130);
    });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await soak();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanUp();
  }

  async function soak(): Promise<SoakResult> {
    const config = resolveConfig(agentConfig, 'lan');
    const boundMs = failureDetectionBoundMs(config, params.agents);
    const convergenceLimitMs = 2 * boundMs + 30_000;
    say(`soak: ${params.agents} agents on ${network.mode}${network.why === undefined ? '' : ` (${network.why})`}, seed ${params.seed}, nemesis ${params.durationMs / 1000} s, failure detection bound ${boundMs} ms`);
    await fleet.allocate(params.agents, params.longLived ?? defaultLongLived(params.agents));
    const t0Wall = Date.now();
    const rel = (ms: number) => ms - t0Wall;
    let sampling = true;
    const observations: SourcedObservation[] = [];
    const containedErrors: ContainedError[] = [];
    let monitorLosses = 0;

    const record = (agent: string, line: Record<string, unknown>, receivedAt: number, source: SourcedObservation['source']) => {
      const event = line['event'] as string;
      const member = line['member'] as { name: string; incarnation: number } | undefined;
      const time = Date.parse(String(line['time']));
      const at = rel(Number.isFinite(time) ? time : receivedAt);
      if (MEMBER_KINDS.includes(event) && member !== undefined) {
        if (member.name === agent) return;
        // DeathCause: `timeout` is the agent's own verdict; `gossip` names the declarer in `by`.
        const verdictBy = event === 'dead' ? (line['cause'] === 'timeout' ? agent : typeof line['by'] === 'string' ? (line['by'] as string) : undefined) : undefined;
        observations.push({ at, observer: agent, subject: member.name, kind: event as ObservationKind, incarnation: member.incarnation, verdictBy, source });
      } else if (event === 'error') {
        containedErrors.push({ at, agent, where: String(line['where'] ?? ''), error: String(line['error'] ?? '') });
      }
    };

    // A stream opens after the agent logged its start: what it reported before that (its first
    // joins, a restored snapshot) comes from its log, up to the stream's first line.
    interface Backfill {
      lines: string[];
      first: string | undefined;
      done: boolean;
    }
    const backfills = new Map<string, Backfill>();
    const backfillOf = (agent: string, epoch: number): Backfill => {
      const key = `${agent}#${epoch}`;
      let b = backfills.get(key);
      if (b === undefined) backfills.set(key, (b = { lines: [], first: undefined, done: false }));
      return b;
    };
    const settle = (agent: string, b: Backfill, force = false) => {
      if (b.done) return;
      let upTo = b.first === undefined ? -1 : b.lines.indexOf(b.first);
      if (upTo < 0 && !force) return;
      if (upTo < 0) {
        const firstTime = b.first === undefined ? Infinity : Date.parse(String((JSON.parse(b.first) as Record<string, unknown>)['time']));
        upTo = b.lines.findIndex((text) => Date.parse(String((JSON.parse(text) as Record<string, unknown>)['time'])) >= firstTime);
        if (upTo < 0) upTo = b.lines.length;
      }
      for (const text of b.lines.slice(0, upTo)) record(agent, JSON.parse(text) as Record<string, unknown>, Date.now(), 'log');
      b.done = true;
      b.lines = [];
    };
    fleet.onLogLine = (slot, epoch, text) => {
      const b = backfillOf(slot.name, epoch);
      if (b.done) return;
      b.lines.push(text);
      settle(slot.name, b);
    };
    for (const watcher of watchers.values()) {
      watcher.onLine = ({ agent, epoch, at, text, line }) => {
        const b = backfillOf(agent, epoch);
        if (b.first === undefined) {
          b.first = text;
          settle(agent, b);
        }
        record(agent, line, at, 'monitor');
      };
      // A stream lost while its agent still runs (not a stop, a kill or a leave) is counted and opened again.
      watcher.onLost = (agent, epoch) => {
        setTimeout(() => {
          const slot = fleet.slots.find((x) => x.name === agent);
          if (slot === undefined || slot.starts !== epoch || slot.proc?.exit !== undefined || !sampling) return;
          monitorLosses++;
          watcher.watch(agent, slot.rpc, epoch);
        }, 2000);
      };
    }
    fleet.onStarted = (slot: AgentSlot) => watchers.get(slot.group.name)!.watch(slot.name, slot.rpc, slot.starts);

    // Start: the first agent, then the others joining it, a few at a time (a 2-core machine).
    const [first, ...rest] = fleet.slots;
    await fleet.start(first!, []);
    for (let i = 0; i < rest.length; i += 4) await Promise.all(rest.slice(i, i + 4).map((s) => fleet.start(s, [first!.address])));
    prometheus = await startPrometheus(join(dir, 'prometheus'), fleet.slots.map((s) => s.metrics), params.timeScale < 1 ? '2s' : '5s');
    say(`soak: ${params.agents} agents started, Prometheus at ${prometheus.url}`);

    const tracker = new ConvergenceTracker(convergenceLimitMs);
    const samples: ResourceSample[] = [];
    const load: Array<{ at: number; load: [number, number, number] }> = [];
    const affectedNow = new Set<string>();

    const viewsRound = async (): Promise<{ startedAt: number; at: number; views: Views; healthy: string[] }> => {
      const startedAt = rel(Date.now());
      const running = fleet.running().filter((s) => !affectedNow.has(s.name));
      const views = new Map<string, Map<string, string>>();
      await Promise.all(
        running.map(async (s) => {
          const reply = await watchers.get(s.group.name)!.get<{ members: Array<{ name: string; state: string }> }>(s.rpc, '/members');
          if (reply !== undefined) views.set(s.name, new Map(reply.members.map((m) => [m.name, m.state])));
        }),
      );
      return { startedAt, at: rel(Date.now()), views, healthy: running.map((s) => s.name) };
    };

    tracker.expect(0, 'initial', [], 0);
    const pollLoop = (async () => {
      while (sampling) {
        const round = await viewsRound();
        tracker.round(round.startedAt, round.at, round.views, round.healthy);
        await sleep(params.timeScale < 1 ? 1000 : 2000);
      }
    })();
    const sampleOnce = async () => {
      const at = rel(Date.now());
      load.push({ at, load: loadSample() });
      let heap = new Map<string, number>();
      try {
        heap = new Map((await prometheus!.query('nodejs_heap_size_used_bytes{job="swim"}')).map((s) => [s.metric['instance']!, s.value]));
      } catch {
        // Prometheus busy: the /proc figures stand alone this time.
      }
      for (const slot of fleet.running()) {
        const proc = procSample(slot.proc!.pid);
        if (proc !== undefined) samples.push({ at, agent: slot.name, pid: slot.proc!.pid, ...proc, heapUsedBytes: heap.get(slot.metrics) });
      }
    };
    const sampleLoop = (async () => {
      while (sampling) {
        await sampleOnce();
        const until = Date.now() + params.sampleEveryMs;
        while (sampling && Date.now() < until) await sleep(250);
      }
    })();

    // The cluster converges before the nemesis starts.
    while (tracker.pending > 0 && !interrupted) await sleep(500);
    const initial = tracker.results.find((r) => r.kind === 'initial');
    say(`soak: initial convergence ${initial?.ms === undefined ? 'NOT reached' : `${initial.ms} ms`}; nemesis starts`);

    const nemesisLog = join(dir, 'nemesis.jsonl');
    const nemesisStart = rel(Date.now());
    nemesis = new Nemesis(fleet, params.seed, params.timeScale, t0Wall, nemesisLog, {
      ended: (action) => {
        for (const t of action.targets) affectedNow.delete(t);
        if (['kill', 'leave', 'ns-restart', 'cut', 'rotate'].includes(action.kind)) tracker.expect(action.id, action.kind, action.targets, action.end!);
        say(`  ${(action.end! / 1000).toFixed(1)} s: ${action.kind} ${action.targets.join(',') || '-'} ended (${((action.end! - action.start) / 1000).toFixed(1)} s)`);
      },
      affecting: (names) => {
        for (const n of names) affectedNow.add(n);
        tracker.censor(names);
      },
    }, params.ranges);
    if (!interrupted) await nemesis.run(nemesisStart + params.durationMs);
    const nemesisEnd = rel(Date.now());

    // The last convergence: everything back, everyone sees everyone.
    tracker.expect(-1, 'final', [], nemesisEnd);
    const quietUntil = Date.now() + convergenceLimitMs;
    while (tracker.pending > 0 && Date.now() < quietUntil && !interrupted) await sleep(500);
    await sampleOnce();
    sampling = false;
    await Promise.all([pollLoop, sampleLoop]);
    const runEnd = rel(Date.now());
    tracker.close(runEnd);

    const range = `${Math.max(60, Math.ceil(runEnd / 1000))}s`;
    const promFigures: Record<string, number> = {};
    const sumOf = async (q: string) => (await prometheus!.query(q)).reduce((s, x) => s + x.value, 0);
    let promContainedErrors = 0;
    try {
      promContainedErrors = await sumOf(`max_over_time(swim_contained_errors_total{job="swim"}[${range}])`);
      promFigures['max_over_time(swim_contained_errors_total) summed over agents'] = promContainedErrors;
      promFigures['max_over_time(swim_dead_verdicts_total) summed'] = await sumOf(`max_over_time(swim_dead_verdicts_total{job="swim"}[${range}])`);
      promFigures['max_over_time(swim_decode_errors_total) summed'] = await sumOf(`max_over_time(swim_decode_errors_total{job="swim"}[${range}])`);
      promFigures['targets up now'] = await sumOf('up{job="swim"}');
      promFigures['targets ever up (scraped at least once)'] = await sumOf(`max_over_time(up{job="swim"}[${range}])`);
      promFigures['scrapes that failed (count_over_time(up == 0))'] = await sumOf(`count_over_time((up{job="swim"} == 0)[${range}:])`);
    } catch (error) {
      promFigures['query failed'] = 1;
      say(`soak: Prometheus query failed: ${String(error)}`);
    }

    for (const [key, b] of backfills) settle(key.slice(0, key.indexOf('#')), b, true);
    const agents = fleet.slots.map((s) => s.name);
    const exits = fleet.exits.map((e) => ({ ...e, at: rel(e.at) }));
    const slopeBounds = slopeBoundsFor(runEnd);
    const timeline = toTimeline({ agents, start: 0, end: runEnd, observations, records: nemesis.actions, exits, containedErrors, promContainedErrors, samples, sampleEveryMs: params.sampleEveryMs });
    const check = checkTimeline(timeline, { detectionBoundMs: boundMs, graceMs: config.probeTimeoutMs, convergenceBoundMs: convergenceLimitMs, slopeBounds });
    const failed = check.invariants.some((i) => i.violations > 0) || interrupted;
    mkdirSync(outDir, { recursive: true });
    copyFileSync(nemesisLog, join(outDir, 'nemesis.jsonl'));
    writeFileSync(join(outDir, 'observations.jsonl'), observations.map((o) => JSON.stringify(o)).join('\n') + '\n');
    let keptDir: string | undefined;
    if (failed) {
      keptDir = join(outDir, `evidence-seed-${params.seed}`);
      rmSync(keptDir, { recursive: true, force: true });
      mkdirSync(keptDir, { recursive: true });
      execFileSync('sh', ['-c', `cp ${dir}/*.log ${dir}/*.jsonl "${keptDir}/" 2>/dev/null || true`]);
    }
    rmSync(dir, { recursive: true, force: true });
    return {
      experiment: 'soak',
      params,
      gitSha: codeVersion,
      network: { mode: network.mode, why: network.why, groups: network.groups.map((g) => ({ name: g.name, netns: g.netns, host: g.host, agents: g.members.length })) },
      config: agentConfig,
      boundMs,
      convergenceLimitMs,
      cap: nemesis.cap,
      longLived: fleet.slots.filter((x) => x.longLived).map((x) => x.name),
      startedAt: new Date(t0Wall).toISOString(),
      nemesisEnd,
      runEnd,
      actions: nemesis.actions,
      observations,
      convergence: tracker.results,
      samples,
      load,
      containedErrors,
      promContainedErrors,
      prometheus: promFigures,
      exits,
      monitorLosses,
      slopeBounds,
      check,
      keptDir,
      nemesisLog: join(outDir, 'nemesis.jsonl'),
    };
  }
}
