import type { BlackoutResult } from '../experiments/blackout.js';
import type { CrashResult } from '../experiments/crash.js';
import { adaptiveSvg } from '../experiments/adaptive-report.js';
import { detectorsSvg } from '../experiments/detectors/svg.js';
import type { ExperimentResult } from '../experiments/index.js';
import type { LossResult } from '../experiments/loss.js';
import { realTimeText, windowText, type SpeedResult } from '../experiments/speed.js';
import type { ProfileName } from '../profiles.js';
import { barChart, lineChart, type Panel } from './chart.js';

/** Dashes tell apart lines that coincide (the corrections often sit on top of each other at zero). */
export const PROFILE_DASHES: Readonly<Partial<Record<ProfileName, string>>> = {
  grace: '7 4',
  'health-at-creation': '2 3',
  'health-at-expiry': '10 3 2 3',
};

/** One colour per profile, the same in every chart; `default` is the green line. */
export const PROFILE_COLORS: Readonly<Record<ProfileName, string>> = {
  memberlist: '#d62728',
  grace: '#ff7f0e',
  'health-at-creation': '#9467bd',
  'health-at-expiry': '#1f77b4',
  default: '#2ca02c',
  'lifeguard-off': '#7f7f7f',
};

export function toSvg(result: ExperimentResult): string {
  switch (result.experiment) {
    case 'blackout':
      return blackoutSvg(result);
    case 'lifeguard-off':
      return lifeguardOffSvg(result);
    case 'crash':
      return crashSvg(result);
    case 'loss':
      return lossSvg(result);
    case 'speed':
      return speedSvg(result);
    case 'detectors':
      return detectorsSvg(result);
    case 'adaptive':
      return adaptiveSvg(result);
  }
}

/** x = outage seconds, y = mean false deaths (log1p), one line per profile, one panel per (nodes, cut). */
export function blackoutSvg(result: BlackoutResult): string {
  const panels: Panel[] = [];
  const { params } = result;
  for (const nodes of params.nodes) {
    const cuts = [...new Set(result.cells.filter((c) => c.nodes === nodes).map((c) => c.cut))].sort((a, b) => a - b);
    for (const cut of cuts) {
      const cells = result.cells.filter((c) => c.nodes === nodes && c.cut === cut);
      const maxS = result.maxSuspicionS[nodes]?.memberlist ?? Object.values(result.maxSuspicionS[nodes] ?? {})[0];
      panels.push({
        title: `${cut} of ${nodes} cut off`,
        series: params.profiles.map((profile) => ({
          name: profile,
          color: PROFILE_COLORS[profile],
          ...(PROFILE_DASHES[profile] === undefined ? {} : { dash: PROFILE_DASHES[profile] }),
          points: cells.filter((c) => c.profile === profile).map((c) => [c.outage, c.meanFalseDeaths] as const),
        })),
        ...(maxS === undefined ? {} : { marker: { x: maxS, label: `max suspicion ${maxS.toFixed(0)} s` } }),
      });
    }
  }
  return lineChart({
    title: 'False deaths after a blackout',
    subtitle: `healthy members declared dead by healthy members, mean of ${params.runs} run${params.runs === 1 ? '' : 's'} per point (seeds ${params.seed}–${params.seed + params.runs - 1}); log scale`,
    xLabel: 'outage (s)',
    yLabel: 'false deaths per outage',
    yScale: 'log1p',
    panels,
  });
}

export function lifeguardOffSvg(result: BlackoutResult): string {
  const { params } = result;
  return barChart({
    title: 'What Lifeguard prevents',
    subtitle: `false deaths per outage, mean of ${params.runs} run${params.runs === 1 ? '' : 's'}; log scale`,
    yLabel: 'false deaths per outage',
    yScale: 'log1p',
    series: params.profiles.map((p) => ({ name: p, color: PROFILE_COLORS[p] })),
    groups: result.cells
      .map((c) => `${c.nodes}|${c.cut}|${c.outage}`)
      .filter((key, i, all) => all.indexOf(key) === i)
      .map((key) => {
        const cells = result.cells.filter((c) => `${c.nodes}|${c.cut}|${c.outage}` === key);
        const first = cells[0]!;
        return {
          label: `${first.cut} of ${first.nodes} cut off ${first.outage} s`,
          bars: cells.map((c) => ({ series: c.profile, value: c.meanFalseDeaths, label: +c.meanFalseDeaths.toFixed(1) + '' })),
        };
      }),
  });
}

/** Median, p90 and max of the time to the first dead verdict, per profile. */
export function crashSvg(result: CrashResult): string {
  const stats = [
    { name: 'median', color: '#4c78a8' },
    { name: 'p90', color: '#f58518' },
    { name: 'max', color: '#e45756' },
  ];
  const runs = result.params.runs;
  return barChart({
    title: 'Time to detect a crash',
    subtitle: `crash to the first member's dead verdict; ${result.params.crashes} crashes × ${runs} run${runs === 1 ? '' : 's'} per profile`,
    yLabel: 'seconds',
    yScale: 'linear',
    series: stats,
    groups: result.cells.map((c) => ({
      label: result.params.nodes.length > 1 ? `${c.profile} (${c.nodes})` : c.profile,
      bars: [
        { series: 'median', value: c.firstDead.median, label: c.firstDead.median.toFixed(1) },
        { series: 'p90', value: c.firstDead.p90, label: c.firstDead.p90.toFixed(1) },
        { series: 'max', value: c.firstDead.max, label: c.firstDead.max.toFixed(1) },
      ],
    })),
  });
}

/** False deaths per node-hour, grouped by (loss, fallback ping), one bar per profile. */
export function lossSvg(result: LossResult): string {
  const { params } = result;
  const keys = [...new Set(result.cells.map((c) => `${c.nodes}|${c.loss}|${c.fallback}`))];
  return barChart({
    title: 'False deaths under packet loss',
    subtitle: `${params.minutes} simulated min per run, ${params.runs} run${params.runs === 1 ? '' : 's'}; dead verdicts per node-hour, log scale`,
    yLabel: 'false deaths per node-hour',
    yScale: 'log1p',
    series: params.profiles.map((p) => ({ name: p, color: PROFILE_COLORS[p] })),
    groups: keys.map((key) => {
      const cells = result.cells.filter((c) => `${c.nodes}|${c.loss}|${c.fallback}` === key);
      const first = cells[0]!;
      const nodes = params.nodes.length > 1 ? `n=${first.nodes}, ` : '';
      return {
        label: `${nodes}${Math.round(first.loss * 100)}% loss, fallback ${first.fallback ? 'on' : 'off'}`,
        bars: cells.map((c) => ({ series: c.profile, value: c.falseDeathsPerNodeHour })),
      };
    }),
  });
}

/** Simulated seconds per wall second per cluster size, next to the target (grey). */
export function speedSvg(result: SpeedResult): string {
  const profiles = result.params.profiles;
  return barChart({
    title: 'Simulator speed',
    subtitle: `simulated seconds per wall-clock second in the steady state of a pre-formed cluster (${windowText(result.params.windowS)}), one core; log scale`,
    yLabel: '× real time',
    yScale: 'log1p',
    series: [...profiles.map((p) => ({ name: p, color: PROFILE_COLORS[p] })), { name: 'target', color: '#bbbbbb' }],
    groups: result.params.nodes.map((nodes) => {
      const cells = result.cells.filter((c) => c.nodes === nodes);
      const target = cells[0]?.target ?? Number.NaN;
      return {
        label: `${nodes} members`,
        bars: [
          ...cells.map((c) => ({ series: c.profile, value: c.simSecondsPerWallSecond, label: realTimeText(c.simSecondsPerWallSecond) })),
          { series: 'target', value: target, label: `${target}×` },
        ],
      };
    }),
  });
}
