import { barChart } from '../../report/chart.js';
import { provenance } from '../../report/provenance.js';
import { table } from '../../report/table.js';
import { baseConfig, suspicionBoundsMs } from '../../profiles.js';
import { median } from '../../stats.js';
import type { RunInfo } from '../index.js';
import type { RestartCellKey, RestartParams } from './params.js';
import { MAIN_PROFILES, restartConfig, restartProfileDescription, RESTART_PROFILES, type RestartProfile } from './profiles.js';
import type { RestartRunResult } from './run.js';

/** The target of issue 28: every running member sees every other alive within this long of the last restart. */
export const TARGET_MS = 30_000;

export interface RestartCell extends RestartCellKey {
  readonly results: readonly RestartRunResult[];
}

export interface RestartResult {
  readonly experiment: 'restart';
  readonly params: RestartParams;
  readonly cells: readonly RestartCell[];
}

const RESTART_KEYS = ['answerStaleAlive', 'answerAccusedPingers', 'regossipStaleAccusation', 'relayUnknownAccusations', 'directRefutation', 'reconnectIntervalMs'] as const;

function seconds(ms: number | null, limitMs: number): string {
  return ms === null ? `> ${limitMs / 1000}` : (ms / 1000).toFixed(1);
}

function worstConvergence(cell: RestartCell): number | null {
  let worst = 0;
  for (const r of cell.results) {
    if (r.convergedAfterMs === null) return null;
    worst = Math.max(worst, r.convergedAfterMs);
  }
  return worst;
}

function meetsTarget(cell: RestartCell): boolean {
  const worst = worstConvergence(cell);
  return worst !== null && worst <= TARGET_MS;
}

function cellRow(cell: RestartCell, limitMs: number): string[] {
  const r = cell.results;
  return [
    cell.scenario,
    String(cell.nodes),
    cell.profile,
    String(r.length),
    r.map((x) => seconds(x.convergedAfterMs, limitMs)).join(', '),
    meetsTarget(cell) ? 'yes' : 'no',
    median(r.map((x) => x.stalePairSeconds)).toFixed(0),
    Math.max(...r.map((x) => x.stalePairSeconds)).toFixed(0),
    (Math.max(...r.map((x) => x.longestStaleMs)) / 1000).toFixed(1),
    String(Math.max(...r.map((x) => x.heldDownPeak))),
    String(Math.max(...r.map((x) => x.heldDownAtLastRestart))),
    String(Math.max(...r.map((x) => x.heldDownAtEnd))),
    median(r.map((x) => x.refutations)).toFixed(0),
  ];
}

const HEAD = [
  'scenario',
  'nodes',
  'profile',
  'runs',
  'converged after the last restart, s (each run)',
  `all within ${TARGET_MS / 1000} s`,
  'stale pair-s: median',
  'max',
  'longest stale pair, s',
  'held down ≥ own inc.: peak',
  'at last restart',
  'at end',
  'refutations (median)',
];

export function restartSummary(result: RestartResult): string {
  const main = result.cells.filter((c) => MAIN_PROFILES.includes(c.profile));
  const defaults = result.cells.filter((c) => c.profile === 'default');
  const verdict = defaults.every(meetsTarget)
    ? `Our defaults: every run converged within ${TARGET_MS / 1000} s of the last restart.`
    : `Our defaults: NOT every run converged within ${TARGET_MS / 1000} s of the last restart.`;
  return `${table(HEAD, main.map((c) => cellRow(c, result.params.limitMs)))}\n\n${verdict}`;
}

export function restartMarkdown(result: RestartResult, info: RunInfo): string {
  const { params } = result;
  const limit = params.limitMs;
  const main = result.cells.filter((c) => MAIN_PROFILES.includes(c.profile));
  const others = result.cells.filter((c) => !MAIN_PROFILES.includes(c.profile));
  const sizes = params.nodes.map((n) => {
    const b = suspicionBoundsMs(baseConfig(), n);
    return `${n} members: ${(b.minMs / 1000).toFixed(2)} s to ${(b.maxMs / 1000).toFixed(2)} s`;
  });
  const s = params.schedule;
  const profiles = [...new Set(result.cells.map((c) => c.profile))] as RestartProfile[];
  const ordered = RESTART_PROFILES.filter((p) => profiles.includes(p));
  const lines = [
    '# Restarting a running cluster',
    '',
    `Command: \`${info.command}\`  `,
    `Date: ${info.date}  `,
    `Node ${info.node}, wall time ${(info.wallMs / 1000).toFixed(0)} s`,
    '',
    'A pre-formed cluster settles, then every member is killed (kill -9) and started again once as a fresh process (`Simulation.restart`: incarnation 1 and an empty table, unless restored from a snapshot), joining through 3 running members.',
    '',
    `- **rolling**: one member at a time in a random order, down ${s.rollingDownMs[0] / 1000}-${s.rollingDownMs[1] / 1000} s (log-uniform), the next stopped ${s.rollingGapMs / 1000} s after; seeds: random running members.`,
    `- **wave**: every member crashes within ${s.waveSpreadMs / 1000} s, down ${s.waveDownMs[0] / 1000}-${s.waveDownMs[1] / 1000} s (log-uniform: from a second to well past the suspicion timeout); seeds: the running members that restarted last, which never heard of its death.`,
    `- **wave-long**: the downtimes of the issue's report: every member crashes within ${s.longWaveSpreadMs / 1000} s, down ${s.longWaveDownMs[0] / 1000}-${s.longWaveDownMs[1] / 1000} s (uniform); seeds as in the wave.`,
    '',
    `Per run: the time from the last restart until every running member sees every other alive (given up ${limit / 1000} s after it); stale pair-seconds, summed over ordered pairs of running members while one held the other dead or left (from the first crash on); the longest such pair; and the running members that some running member held dead or left at or above their own incarnation (their alive cannot override that; only a refutation can), at the peak (sampled each second), at the last restart and at the end. Run i uses seed ${params.seed} + i; both profiles see the same schedule per seed. Suspicion timeout (min to max): ${sizes.join('; ')}.`,
    '',
    '## Our defaults and the memberlist profile',
    '',
    table(HEAD, main.map((c) => cellRow(c, limit))),
    '',
  ];
  if (others.length > 0) {
    lines.push(
      '## Snapshots and the restart rules one at a time',
      '',
      `Up to ${Math.max(...others.map((c) => c.nodes))} members. \`+snapshot\`: each member restarts from the \`member.snapshot()\` it had when it crashed (\`MemberOptions.restore\`: one incarnation above its last, its members preloaded). \`default-before\` is our defaults with every restart rule off, as before this change; \`memberlist+pr345\` adds memberlist PR #345's two rules to the memberlist profile.`,
      '',
      table(HEAD, others.map((c) => cellRow(c, limit))),
      '',
    );
  }
  lines.push('## Profiles', '');
  for (const p of ordered) lines.push(`- \`${p}\`: ${restartProfileDescription(p)}`);
  lines.push('', table(['setting', ...ordered], RESTART_KEYS.map((k) => [k, ...ordered.map((p) => String(restartConfig(p)[k]))])), '');
  lines.push(
    `Everything else is memberlist's LAN defaults with a suspicion multiplier of 5, as in the corrections study (\`baseConfig()\`; the JSON has every setting).`,
    '',
  );
  return lines.join('\n');
}

export function restartJson(result: RestartResult, info: RunInfo): Record<string, unknown> {
  const profiles = [...new Set(result.cells.map((c) => c.profile))];
  return {
    ...provenance('restart', info),
    targetMs: TARGET_MS,
    settings: {
      base: baseConfig(),
      profiles: Object.fromEntries(profiles.map((p) => [p, { description: restartProfileDescription(p), config: restartConfig(p) }])),
    },
    params: result.params,
    cells: result.cells.map((c) => ({ ...c, worstConvergedAfterMs: worstConvergence(c), meetsTarget: meetsTarget(c) })),
  };
}

/** Worst time to convergence after the last restart per scenario and size, one bar per main profile. */
export function restartSvg(result: RestartResult): string {
  const colors: Record<string, string> = { default: '#4c78a8', memberlist: '#e45756' };
  const main = result.cells.filter((c) => MAIN_PROFILES.includes(c.profile));
  const groups = [...new Set(main.map((c) => `${c.scenario} (${c.nodes})`))];
  const limit = result.params.limitMs;
  return barChart({
    title: 'Restarts: time until every running member sees every other alive',
    subtitle: `after the last restart, worst run of each cell (a bar at ${limit / 1000} s did not converge); dashed: the ${TARGET_MS / 1000} s target`,
    yLabel: 'seconds (log scale)',
    yScale: 'log1p',
    series: MAIN_PROFILES.map((p) => ({ name: p, color: colors[p] ?? '#888' })),
    groups: groups.map((label) => ({
      label,
      bars: main
        .filter((c) => `${c.scenario} (${c.nodes})` === label)
        .map((c) => {
          const worst = worstConvergence(c);
          const value = (worst ?? limit) / 1000;
          return { series: c.profile, value, label: worst === null ? `>${limit / 1000}` : value.toFixed(1) };
        }),
    })),
    reference: { y: TARGET_MS / 1000, label: `${TARGET_MS / 1000} s target` },
  });
}
