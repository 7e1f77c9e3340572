import { barChart } from '../report/chart.js';
import { provenance } from '../report/provenance.js';
import { table } from '../report/table.js';
import { formatDuration, formatNumber } from '../stats.js';
import {
  ADAPTIVE_KEYS,
  adaptiveProfileConfig,
  adaptiveProfileDescription,
  CRASH_GAP_MS,
  networkDescription,
  STALL_BLAME_MS,
  type AdaptiveCell,
  type AdaptiveProfile,
  type AdaptiveResult,
  type AdaptiveRun,
  type NetworkName,
} from './adaptive.js';
import type { RunInfo } from './index.js';

/** Each adaptive profile against the fixed one of the same preset. */
export const PAIRS: ReadonlyArray<{ readonly preset: string; readonly fixed: AdaptiveProfile; readonly adaptive: AdaptiveProfile }> = [
  { preset: 'lan', fixed: 'fixed-500', adaptive: 'adaptive' },
  { preset: 'wan', fixed: 'wan', adaptive: 'wan-adaptive' },
];

/**
 * The decision rule (fixed before the recorded run, after exploratory ones): the adaptive profile wins on a network if it has at
 * least 20% fewer false suspicions (and at least 3 fewer) over all runs, no more false deaths, and
 * a median crash detection time at most 10% longer. It loses if it has at least 20% (and 3) more
 * false suspicions, more false deaths, or a median detection time more than 10% longer. Otherwise
 * neither wins.
 */
export type Verdict = 'adaptive wins' | 'adaptive loses' | 'no difference';

export interface Comparison {
  readonly nodes: number;
  readonly network: NetworkName;
  readonly preset: string;
  readonly fixed: AdaptiveCell;
  readonly adaptive: AdaptiveCell;
  /** Paired runs (same seed) in which the adaptive profile had fewer / more false suspicions. */
  readonly fewerRuns: number;
  readonly moreRuns: number;
  readonly verdict: Verdict;
  /** True when a cell has fewer than {@link MIN_CRASHES_JUDGED} crashes: detection time is then left out of the verdict. */
  readonly detectionNotJudged: boolean;
}

/** Below this many crashes per cell, the median detection time is too noisy to judge by. */
export const MIN_CRASHES_JUDGED = 10;

function verdictOf(fixed: AdaptiveCell, adaptive: AdaptiveCell, judgeDetection: boolean): Verdict {
  const total = (c: AdaptiveCell) => c.runs.reduce((s, r) => s + r.falseSuspicions, 0);
  const f = total(fixed);
  const a = total(adaptive);
  const slower = judgeDetection && adaptive.firstDead.median > fixed.firstDead.median * 1.1;
  if (a - f >= Math.max(3, 0.2 * f) || adaptive.falseDeaths > fixed.falseDeaths || slower) return 'adaptive loses';
  if (f - a >= Math.max(3, 0.2 * f) && adaptive.falseDeaths <= fixed.falseDeaths && !slower) return 'adaptive wins';
  return 'no difference';
}

export function comparisons(result: AdaptiveResult): Comparison[] {
  const out: Comparison[] = [];
  for (const nodes of result.params.nodes) {
    for (const network of result.params.networks) {
      for (const pair of PAIRS) {
        const cell = (p: AdaptiveProfile) => result.cells.find((c) => c.nodes === nodes && c.network === network && c.profile === p);
        const fixed = cell(pair.fixed);
        const adaptive = cell(pair.adaptive);
        if (fixed === undefined || adaptive === undefined) continue;
        let fewerRuns = 0;
        let moreRuns = 0;
        for (const run of adaptive.runs) {
          const twin = fixed.runs.find((r) => r.seed === run.seed);
          if (twin === undefined) continue;
          if (run.falseSuspicions < twin.falseSuspicions) fewerRuns++;
          if (run.falseSuspicions > twin.falseSuspicions) moreRuns++;
        }
        const judgeDetection = Math.min(fixed.firstDead.count, adaptive.firstDead.count) >= MIN_CRASHES_JUDGED;
        const verdict = verdictOf(fixed, adaptive, judgeDetection);
        out.push({ nodes, network, preset: pair.preset, fixed, adaptive, fewerRuns, moreRuns, verdict, detectionNotJudged: !judgeDetection });
      }
    }
  }
  return out;
}

const f1 = (v: number) => formatNumber(v, 1);
const f2 = (v: number) => formatNumber(v, 2);
const sum = (runs: readonly AdaptiveRun[], f: (r: AdaptiveRun) => number) => runs.reduce((s, r) => s + f(r), 0);
const seeds = (p: AdaptiveResult['params']) => (p.runs === 1 ? `seed ${p.seed}` : `seeds ${p.seed}–${p.seed + p.runs - 1}`);

/** The results tables: what `pnpm bench adaptive` prints. */
export function adaptiveSummary(result: AdaptiveResult): string {
  const { params } = result;
  const lead = (c: AdaptiveCell) => [...(params.nodes.length > 1 ? [String(c.nodes)] : []), c.network, c.profile];
  const head = [...(params.nodes.length > 1 ? ['nodes'] : []), 'network', 'profile'];
  const sections = [
    `## False suspicions and false deaths\n\n${params.nodes.join(', ')} members, ${params.runs} run${params.runs === 1 ? '' : 's'} per cell (${seeds(params)}; the same seeds, stalls and crashed members for every profile). Counted over ${params.minutes} simulated minutes after a warm-up of ${params.warmupPasses} probe passes, with every member alive: \`false suspicions\` = distinct (member, incarnation) suspected, per run; \`not stall\` = those neither about nor raised by a member stalled within ${STALL_BLAME_MS / 1000} s before; \`false deaths\` = dead verdicts about live members (distinct victims in brackets), from the window to the end of the crash phase. \`indirect\`: share of probes that asked helpers. \`wait\`: mean direct-ack wait. \`degraded\`: probes run with a health-stretched interval, per node-hour.`,
    table(
      [...head, 'false suspicions per run', 'per node-hour', 'not stall, per node-hour', 'false deaths', 'indirect', 'wait (ms)', 'degraded'],
      result.cells.map((c) => [
        ...lead(c),
        c.runs.map((r) => r.falseSuspicions).join(', '),
        f2(c.falseSuspicionsPerNodeHour),
        f2(c.otherSuspicionsPerNodeHour),
        `${c.falseDeaths} (${c.falseVictims})`,
        `${(c.indirectShare * 100).toFixed(2)}%`,
        formatNumber(c.meanTimeoutMs, 0),
        f1(sum(c.runs, (r) => r.degradedProbes) / c.nodeHours),
      ]),
    ),
    `## Crash detection\n\n${params.crashes} crash${params.crashes === 1 ? '' : 'es'} per run, ${CRASH_GAP_MS / 1000} s apart, after the window. Seconds from the crash to the first dead verdict by a survivor, and to the last survivor's.`,
    table(
      [...head, 'crashes', 'first: median', 'p90', 'max', 'all survivors: median', 'max', 'undetected'],
      result.cells.map((c) => [
        ...lead(c),
        String(c.firstDead.count),
        f2(c.firstDead.median),
        f2(c.firstDead.p90),
        f2(c.firstDead.max),
        f2(c.allDead.median),
        f2(c.allDead.max),
        String(c.undetected),
      ]),
    ),
  ];
  const pairs = comparisons(result);
  const windowed = result.cells.flatMap((c) => c.runs);
  const all = sum(windowed, (r) => r.falseSuspicions);
  if (all > 0) {
    const stalled = sum(windowed, (r) => r.stallSuspicions);
    // Right after the false-suspicion table.
    sections.splice(
      2,
      0,
      `Of the ${all} false suspicions in all cells, ${stalled} (${((100 * stalled) / all).toFixed(1)}%) were about, or raised by, a member stalled within ${STALL_BLAME_MS / 1000} s before.`,
    );
  }
  if (pairs.length > 0) {
    sections.push(
      `## Adaptive against fixed, per preset\n\nThe rule (fixed before this run, after exploratory runs): adaptive wins if it has at least 20% (and 3) fewer false suspicions over all runs, no more false deaths, and a median detection time at most 10% longer; it loses on 20% (and 3) more false suspicions, any more false deaths, or a median detection more than 10% longer. Detection time is judged only with at least ${MIN_CRASHES_JUDGED} crashes per cell.`,
      table(
        [...(params.nodes.length > 1 ? ['nodes'] : []), 'network', 'preset', 'false suspicions (fixed → adaptive)', 'runs fewer / more', 'false deaths', 'first dead median (s)', 'indirect probes', 'verdict'],
        pairs.map((p) => [
          ...(params.nodes.length > 1 ? [String(p.nodes)] : []),
          p.network,
          p.preset,
          `${sum(p.fixed.runs, (r) => r.falseSuspicions)} → ${sum(p.adaptive.runs, (r) => r.falseSuspicions)}`,
          `${p.fewerRuns} / ${p.moreRuns}`,
          `${p.fixed.falseDeaths} → ${p.adaptive.falseDeaths}`,
          `${f2(p.fixed.firstDead.median)} → ${f2(p.adaptive.firstDead.median)}`,
          `${sum(p.fixed.runs, (r) => r.indirectProbes)} → ${sum(p.adaptive.runs, (r) => r.indirectProbes)}`,
          p.detectionNotJudged ? `${p.verdict} (detection not judged: under ${MIN_CRASHES_JUDGED} crashes)` : p.verdict,
        ]),
      ),
      (['adaptive wins', 'adaptive loses', 'no difference'] as const)
        .map((v) => `${v}: ${pairs.filter((p) => p.verdict === v).length} of ${pairs.length}`)
        .join('; ') + '.',
    );
  }
  return sections.join('\n\n');
}

/** The full report: title, provenance, method, results, settings. */
export function adaptiveMarkdown(result: AdaptiveResult, info: RunInfo): string {
  const { params } = result;
  const rtt = result.cells
    .filter((c) => c.network !== 'lan')
    .flatMap((c) => c.runs)
    .filter((r) => Number.isFinite(r.rttMedianMs));
  const rttLine =
    rtt.length === 0
      ? ''
      : ` Direct RTTs measured on the WAN-like networks: median ${formatNumber(rtt.reduce((s, r) => s + r.rttMedianMs, 0) / rtt.length, 0)} ms, 99th percentile ${formatNumber(rtt.reduce((s, r) => s + r.rttP99Ms, 0) / rtt.length, 0)} ms (means over runs; acks later than the probe are not seen).`;
  return `${[
    '# Adaptive probe timeouts',
    [`Command: \`${info.command}\`  `, `Date: ${info.date}  `, `Node ${info.node}, wall time ${formatDuration(info.wallMs)}`].join('\n'),
    `Does deriving each probe's direct-ack wait from the target's RTTs (\`probeTimeoutMode: 'adaptive'\`: mean + z·max(std, floor) of its last RTTs, clamped to [floor, ceiling]) beat the fixed wait? Each run converges a cluster, warms up for ${params.warmupPasses} probe passes (every member then holds about that many RTTs of every other), counts false suspicions and deaths over ${params.minutes} simulated minutes, then crashes ${params.crashes} members.${rttLine}`,
    adaptiveSummary(result),
    settingsSection(params.profiles, params.networks),
  ].join('\n\n')}\n`;
}

function settingsSection(profiles: readonly AdaptiveProfile[], networks: readonly NetworkName[]): string {
  return [
    '## Settings',
    table(
      ['setting', ...profiles],
      ADAPTIVE_KEYS.map((key) => [key, ...profiles.map((p) => String(adaptiveProfileConfig(p)[key]))]),
    ),
    'Everything else is the preset as shipped (the `adaptiveTimeout*` settings apply only in adaptive mode).',
    profiles.map((p) => `- \`${p}\`: ${adaptiveProfileDescription(p)}`).join('\n'),
    'Networks:',
    networks.map((n) => `- \`${n}\`: ${networkDescription(n)}`).join('\n'),
  ].join('\n\n');
}

export function adaptiveJson(result: AdaptiveResult, info: RunInfo): Record<string, unknown> {
  const { experiment, params, cells } = result;
  return {
    ...provenance(experiment, info),
    settings: {
      profiles: Object.fromEntries(params.profiles.map((p) => [p, { description: adaptiveProfileDescription(p), config: adaptiveProfileConfig(p) }])),
      networks: Object.fromEntries(params.networks.map((n) => [n, networkDescription(n)])),
    },
    params,
    cells,
    comparisons: comparisons(result).map((c) => ({
      nodes: c.nodes,
      network: c.network,
      preset: c.preset,
      fixed: c.fixed.profile,
      adaptive: c.adaptive.profile,
      fewerRuns: c.fewerRuns,
      moreRuns: c.moreRuns,
      verdict: c.verdict,
      detectionNotJudged: c.detectionNotJudged,
    })),
  };
}

export const ADAPTIVE_COLORS: Readonly<Record<AdaptiveProfile, string>> = {
  'fixed-500': '#1f77b4',
  adaptive: '#2ca02c',
  wan: '#ff7f0e',
  'wan-adaptive': '#9467bd',
};

/** Two bar charts stacked in one SVG: false suspicions per node-hour, and crash detection time. */
export function adaptiveSvg(result: AdaptiveResult): string {
  const { params } = result;
  const label = (c: AdaptiveCell) => (params.nodes.length > 1 ? `${c.network}, n=${c.nodes}` : `${c.network} network`);
  const groups = [...new Set(result.cells.map(label))];
  const suspicions = barChart({
    title: 'False suspicions',
    subtitle: `distinct members suspected per node-hour while all are alive; ${params.runs} run${params.runs === 1 ? '' : 's'} × ${params.minutes} min per bar; log scale`,
    yLabel: 'per node-hour',
    yScale: 'log1p',
    series: params.profiles.map((p) => ({ name: p, color: ADAPTIVE_COLORS[p] })),
    groups: groups.map((g) => ({
      label: g,
      bars: result.cells.filter((c) => label(c) === g).map((c) => ({ series: c.profile, value: c.falseSuspicionsPerNodeHour, label: c.falseSuspicionsPerNodeHour.toFixed(2) })),
    })),
  });
  const detection = barChart({
    title: 'Crash detection',
    subtitle: `median time from a crash to the first dead verdict; ${params.crashes} crashes × ${params.runs} run${params.runs === 1 ? '' : 's'} per bar`,
    yLabel: 'seconds',
    yScale: 'linear',
    series: params.profiles.map((p) => ({ name: p, color: ADAPTIVE_COLORS[p] })),
    groups: groups.map((g) => ({
      label: g,
      bars: result.cells.filter((c) => label(c) === g).map((c) => ({ series: c.profile, value: c.firstDead.median, label: c.firstDead.median.toFixed(1) })),
    })),
  });
  const indirect = barChart({
    title: 'Probes that asked helpers',
    subtitle: 'share of probes whose direct ack missed the wait (each sends ping-reqs to 3 helpers and opens a fallback stream ping)',
    yLabel: '% of probes',
    yScale: 'linear',
    series: params.profiles.map((p) => ({ name: p, color: ADAPTIVE_COLORS[p] })),
    groups: groups.map((g) => ({
      label: g,
      bars: result.cells.filter((c) => label(c) === g).map((c) => ({ series: c.profile, value: c.indirectShare * 100, label: (c.indirectShare * 100).toFixed(1) })),
    })),
  });
  return stack([suspicions, detection, indirect]);
}

/** Stacks complete SVG documents vertically inside one outer SVG. */
function stack(charts: readonly string[]): string {
  const size = (svg: string) => {
    const m = /^<svg [^>]*width="([\d.]+)" height="([\d.]+)"/.exec(svg);
    return { width: Number(m?.[1] ?? 0), height: Number(m?.[2] ?? 0) };
  };
  const sizes = charts.map(size);
  const width = Math.max(...sizes.map((s) => s.width));
  const height = sizes.reduce((s, x) => s + x.height, 0);
  let y = 0;
  const inner = charts.map((svg, i) => {
    const placed = svg.trimEnd().replace(/^<svg /, `<svg x="0" y="${y}" `);
    y += sizes[i]!.height;
    return placed;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">\n<rect width="100%" height="100%" fill="#ffffff"/>\n${inner.join('\n')}\n</svg>\n`;
}
