import type { BlackoutCell, BlackoutResult } from '../experiments/blackout.js';
import { OVERDUE_WINDOW_MS, WATCH_MS } from '../experiments/blackout.js';
import type { CrashResult } from '../experiments/crash.js';
import { adaptiveMarkdown, adaptiveSummary } from '../experiments/adaptive-report.js';
import { detectorsMarkdown, detectorsSummary } from '../experiments/detectors/report.js';
import type { ExperimentResult, RunInfo } from '../experiments/index.js';
import type { LossResult } from '../experiments/loss.js';
import { realTimeText, stormCellText, windowText, type SpeedResult } from '../experiments/speed.js';
import { baseConfig, differingKeys, profileConfig, profileDescription, suspicionBoundsMs, type ProfileName } from '../profiles.js';
import { formatDuration, formatNumber } from '../stats.js';
import { table } from './table.js';

export { table } from './table.js';

/** The results tables only: what `pnpm bench` prints to stdout. */
export function summaryMarkdown(result: ExperimentResult): string {
  switch (result.experiment) {
    case 'blackout':
      return blackoutTables(result);
    case 'lifeguard-off':
      return lifeguardOffTables(result);
    case 'crash':
      return crashTables(result);
    case 'loss':
      return lossTables(result);
    case 'speed':
      return speedTables(result);
    case 'detectors':
      return detectorsSummary(result);
    case 'adaptive':
      return adaptiveSummary(result);
  }
}

const TITLES: Readonly<Record<ExperimentResult['experiment'], string>> = {
  blackout: 'Blackout: false deaths after a correlated outage',
  'lifeguard-off': 'Lifeguard off: one member cut off',
  crash: 'Crash detection time',
  loss: 'False deaths under uniform packet loss',
  speed: 'Simulator speed',
  detectors: 'The lab: failure detectors on a calm and a busy network',
  adaptive: 'Adaptive probe timeouts',
};

/** The full report: title, provenance, results tables, the resolved settings of each profile. */
export function toMarkdown(result: ExperimentResult, info: RunInfo): string {
  if (result.experiment === 'detectors') return detectorsMarkdown(result, info);
  if (result.experiment === 'adaptive') return adaptiveMarkdown(result, info);
  const parts = [
    `# ${TITLES[result.experiment]}`,
    [
      `Command: \`${info.command}\`  `,
      `Date: ${info.date}  `,
      `Node ${info.node}, wall time ${formatDuration(info.wallMs)}`,
    ].join('\n'),
    summaryMarkdown(result),
    settingsMarkdown(result.params.profiles, result.params.nodes),
  ];
  return `${parts.join('\n\n')}\n`;
}

function profileColumns(result: { readonly params: { readonly profiles: readonly ProfileName[] } }): string[] {
  return [...result.params.profiles];
}

function blackoutKeys(result: BlackoutResult): Array<{ nodes: number; cut: number; outage: number; cells: BlackoutCell[] }> {
  const keys: Array<{ nodes: number; cut: number; outage: number; cells: BlackoutCell[] }> = [];
  for (const cell of result.cells) {
    let key = keys.find((k) => k.nodes === cell.nodes && k.cut === cell.cut && k.outage === cell.outage);
    if (key === undefined) keys.push((key = { nodes: cell.nodes, cut: cell.cut, outage: cell.outage, cells: [] }));
    key.cells.push(cell);
  }
  return keys.sort((a, b) => a.nodes - b.nodes || a.cut - b.cut || a.outage - b.outage);
}

function blackoutTables(result: BlackoutResult): string {
  const profiles = profileColumns(result);
  const { runs, seed } = result.params;
  const keys = blackoutKeys(result);
  const cellOf = (k: (typeof keys)[number], p: string) => k.cells.find((c) => c.profile === p);
  const head = ['nodes', 'cut', 'outage (s)'];
  const lead = (k: (typeof keys)[number]) => [String(k.nodes), String(k.cut), String(k.outage)];

  const sections = [
    `## False deaths per outage\n\nHealthy members declared dead by healthy members (one wrong death usually shows up as dozens), mean of ${runs} run${runs === 1 ? '' : 's'} (seeds ${seed}–${seed + runs - 1}). Watch: ${WATCH_MS / 1000} s after the outage ends.` +
      (result.params.encrypt === true
        ? ` With \`--encrypt\`: members fill packets to an encrypted member's budget (1400 B less the 29-byte envelope of @swim/encryption); the simulator carries the core's bytes on virtual time and does not run the cipher.`
        : ''),
    table(
      [...head, ...profiles],
      keys.map((k) => [...lead(k), ...profiles.map((p) => formatNumber(cellOf(k, p)?.meanFalseDeaths ?? Number.NaN))]),
    ),
  ];
  const totals = profiles.map((p) => result.cells.filter((c) => c.profile === p).reduce((s, c) => s + c.runs.reduce((t, r) => t + r.falseDeaths, 0), 0));
  const runsPer = profiles.map((p) => result.cells.filter((c) => c.profile === p).reduce((s, c) => s + c.runs.length, 0));
  sections.push(
    table(
      ['', ...profiles],
      [
        ['total false deaths', ...totals.map(String)],
        ['runs', ...runsPer.map(String)],
        ['runs with any false death', ...profiles.map((p) => String(result.cells.filter((c) => c.profile === p).reduce((s, c) => s + c.runs.filter((r) => r.falseDeaths > 0).length, 0)))],
      ],
    ),
  );
  sections.push(
    `## Mechanism: verdicts by cut-off members' timers\n\nDead verdicts that cut-off members' own suspicion timers reached about healthy members, summed over the runs: \`overdue (with a confirmation) / all\`, where overdue means within ${OVERDUE_WINDOW_MS / 1000} s after the outage ended.`,
    table(
      [...head, ...profiles],
      keys.map((k) => [
        ...lead(k),
        ...profiles.map((p) => {
          const c = cellOf(k, p);
          if (c === undefined) return '—';
          const sum = (f: (r: BlackoutCell['runs'][number]) => number) => c.runs.reduce((s, r) => s + f(r), 0);
          return `${sum((r) => r.overdueVerdicts)} (${sum((r) => r.overdueConfirmed)}) / ${sum((r) => r.cutTimeoutVerdicts)}`;
        }),
      ]),
    ),
    `## Other counts\n\nPer profile, \`cut-off deaths / still dead\`: verdicts by healthy members about cut-off members (correct when the outage is long; not counted as false), and healthy (observer, subject) pairs not alive at the end of the watch; means per outage.`,
    table(
      [...head, ...profiles],
      keys.map((k) => [
        ...lead(k),
        ...profiles.map((p) => {
          const c = cellOf(k, p);
          if (c === undefined) return '—';
          const m = (f: (r: BlackoutCell['runs'][number]) => number) => formatNumber(c.runs.reduce((s, r) => s + f(r), 0) / c.runs.length);
          return `${m((r) => r.cutMemberDeaths)} / ${m((r) => r.stillDeadAtEnd)}`;
        }),
      ]),
    ),
  );
  return sections.join('\n\n');
}

function lifeguardOffTables(result: BlackoutResult): string {
  const { runs, seed } = result.params;
  return [
    `## False deaths per outage\n\nHealthy members declared dead by healthy members; per run (seeds ${seed}–${seed + runs - 1}) and mean. The corrections study measured 568 per outage with Lifeguard off, 1 member of 128 cut off for 16 s.`,
    table(
      ['nodes', 'cut', 'outage (s)', 'profile', 'per run', 'mean', 'distinct victims (mean)', 'overdue verdicts (mean)'],
      result.cells.map((c) => [
        String(c.nodes),
        String(c.cut),
        String(c.outage),
        c.profile,
        c.runs.map((r) => r.falseDeaths).join(', '),
        formatNumber(c.meanFalseDeaths),
        formatNumber(c.runs.reduce((s, r) => s + r.falseVictims, 0) / c.runs.length),
        formatNumber(c.meanOverdueVerdicts),
      ]),
    ),
  ].join('\n\n');
}

function crashTables(result: CrashResult): string {
  const { crashes, runs } = result.params;
  const s = (v: number) => formatNumber(v, 2);
  return [
    `## Time from a crash to the first dead verdict\n\n${crashes} crashes per run, 5 s apart, ${runs} run${runs === 1 ? '' : 's'} per profile (the same seeds and the same crashed members for every profile). Seconds. \`all survivors\`: until the last survivor declared it dead.`,
    table(
      ['nodes', 'profile', 'crashes', 'median', 'p90', 'max', 'all survivors: median', 'all survivors: max', 'not seen by every survivor', 'false deaths'],
      result.cells.map((c) => [
        String(c.nodes),
        c.profile,
        String(c.firstDead.count),
        s(c.firstDead.median),
        s(c.firstDead.p90),
        s(c.firstDead.max),
        s(c.allDead.median),
        s(c.allDead.max),
        String(c.undetected),
        String(c.runs.reduce((t, r) => t + r.falseDeaths, 0)),
      ]),
    ),
  ].join('\n\n');
}

function lossTables(result: LossResult): string {
  const profiles = profileColumns(result);
  const { runs, minutes } = result.params;
  const keys = [...new Set(result.cells.map((c) => `${c.nodes}|${c.loss}|${c.fallback}`))];
  const rows = (f: (c: LossResult['cells'][number]) => string) =>
    keys.map((key) => {
      const cells = result.cells.filter((c) => `${c.nodes}|${c.loss}|${c.fallback}` === key);
      const first = cells[0]!;
      return [String(first.nodes), `${Math.round(first.loss * 100)}%`, first.fallback ? 'on' : 'off', ...profiles.map((p) => {
        const c = cells.find((x) => x.profile === p);
        return c === undefined ? '—' : f(c);
      })];
    });
  const nodeHours = result.cells[0]?.runs.reduce((s, r) => s + r.nodeHours, 0) ?? 0;
  return [
    `## False deaths under uniform packet loss\n\n${minutes} simulated minutes per run, ${runs} run${runs === 1 ? '' : 's'} per cell (${formatNumber(nodeHours)} node-hours per cell); packets are lost, streams are not. Dead verdicts per run (mean), and in brackets per node-hour.`,
    table(['nodes', 'loss', 'fallback ping', ...profiles], rows((c) => `${formatNumber(c.meanFalseDeaths)} (${formatNumber(c.falseDeathsPerNodeHour, 3)})`)),
    `Members wrongly declared dead (distinct member and incarnation) per node-hour:`,
    table(['nodes', 'loss', 'fallback ping', ...profiles], rows((c) => formatNumber(c.falseVictimsPerNodeHour, 3))),
  ].join('\n\n');
}

function speedTables(result: SpeedResult): string {
  return [
    `## Simulated seconds per wall-clock second\n\nOne process, one core. The steady state of a pre-formed cluster (every member preloads every other: converged at once, nothing to gossip), run until quiet, then measured ${windowText(result.params.windowS)} (memberlist pushPullScale), so each member's periodic full-state exchange counts once (a preloaded member draws its first at a random point of that interval).`,
    table(
      ['nodes', 'profile', '× real time', 'target', 'ratio to target', 'window (simulated s)', 'push-pulls in it', 'packets / simulated s', 'KB / simulated s', 'streams / simulated s', 'setup wall (CPU)', 'window wall time'],
      result.cells.map((c) => [
        String(c.nodes),
        c.profile,
        realTimeText(c.simSecondsPerWallSecond),
        `${c.target}×`,
        `${formatNumber(c.ratioToTarget, 2)}${c.ratioToTarget >= 1 ? '' : ' (below)'}`,
        formatNumber(c.windowS, 0),
        String(c.pushPulls),
        formatNumber(c.packetsPerSimSecond, 0),
        formatNumber(c.bytesPerSimSecond / 1024, 0),
        formatNumber(c.streamsPerSimSecond, 1),
        `${formatDuration(c.setupWallMs)} (${formatDuration(c.setupCpuMs)})`,
        formatDuration(c.wallMs),
      ]),
    ),
    `## Join storms and memory\n\nEvery member joins through one seed member at the same instant (then through three): simulated, wall and CPU time until every member sees every other alive, given up after ${formatDuration(result.params.stormWallLimitS * 1000)} of wall time. Traffic per member in the steady window; RSS after it; heap and ArrayBuffer bytes after a full collection, per member entry (each member holds every member: nodes² entries).`,
    table(
      ['nodes', 'profile', 'storm, 1 seed', 'storm, 3 seeds', 'wall target', '× real time per CPU s', 'packets / member / s', 'bytes / member / s', 'RSS', 'heap per entry'],
      result.cells.map((c) => [
        String(c.nodes),
        c.profile,
        stormCellText(c.joinStorms[0]),
        stormCellText(c.joinStorms[1]),
        c.stormWallTargetMs === undefined ? '' : formatDuration(c.stormWallTargetMs),
        realTimeText(c.simSecondsPerCpuSecond),
        formatNumber(c.packetsPerMemberPerSecond, 2),
        formatNumber(c.bytesPerMemberPerSecond, 0),
        `${formatNumber(c.rssBytes / 2 ** 20, 0)} MiB`,
        `${formatNumber(c.heapBytesPerEntry, 0)} B`,
      ]),
    ),
  ].join('\n\n');
}

/** The resolved settings: the base, then what each profile sets for the fields the profiles differ in. */
export function settingsMarkdown(profiles: readonly ProfileName[], nodes: readonly number[]): string {
  const base = baseConfig();
  const keys = differingKeys(profiles);
  const baseList = Object.entries(base)
    .filter(([k]) => !(keys as readonly string[]).includes(k))
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
  const bounds = nodes.map((n) => {
    const { minMs, maxMs } = suspicionBoundsMs(base, n);
    return `${n} members: ${(minMs / 1000).toFixed(2)} s to ${(maxMs / 1000).toFixed(2)} s`;
  });
  return [
    `## Settings\n\nmemberlist's LAN defaults with a suspicion multiplier of 5, as in the corrections study. Common to every profile: ${baseList}. Suspicion timeout (min to max): ${bounds.join('; ')}.`,
    table(
      ['setting', ...profiles],
      keys.map((key) => [key, ...profiles.map((p) => String(profileConfig(p)[key]))]),
    ),
    profiles.map((p) => `- \`${p}\`: ${profileDescription(p)}`).join('\n'),
  ].join('\n\n');
}
