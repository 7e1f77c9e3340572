import type { SwimConfig } from '@swim/core';
import { lineChart } from '../../../report/chart.js';
import { provenance } from '../../../report/provenance.js';
import { table } from '../../../report/table.js';
import type { RunInfo } from '../../index.js';
import { formatPerHour, invariantTable, leastSquaresSlope, type Percentiles } from '../checker/index.js';
import { FAULT_WEIGHTS, RANGES } from './nemesis.js';
import type { SimulatedSoakParams } from './params.js';
import { soakProfileDescription, type SoakProfile } from './profiles.js';
import type { SoakRunResult } from './run.js';

export interface SimulatedSoakRun {
  readonly profile: SoakProfile;
  readonly config: SwimConfig;
  readonly result: SoakRunResult;
}

export interface SimulatedSoakResult {
  readonly experiment: 'soak-simulated';
  readonly params: SimulatedSoakParams;
  /** git HEAD (+dirty) of the code that ran. */
  readonly codeVersion: string;
  readonly longDownMs: number;
  readonly skippedFaults: number;
  readonly runs: readonly SimulatedSoakRun[];
}

const MiB = 1024 * 1024;
const FAULT_ORDER = ['crash', 'crash-long', 'pause', 'blackout', 'partition', 'leave', 'tags', 'broadcast'];

function sec(ms: number): string {
  return Number.isFinite(ms) ? (ms / 1000).toFixed(1) : '—';
}

function pct(p: Percentiles): string {
  return p.count === 0 ? '—' : `${sec(p.p50)} / ${sec(p.p90)} / ${sec(p.p99)} / ${sec(p.max)}`;
}

/** Heap slope over the last three quarters of the hours, bytes per hour (what invariant 5 checks). */
export function heapSlopePerHour(result: SoakRunResult): number {
  const from = result.hours / 4;
  const points = result.hourly.filter((h) => h.hour >= from).map((h) => [h.hour, h.heapUsed] as const);
  // As the checker: fewer than three samples make no slope.
  return points.length < 3 ? Number.NaN : leastSquaresSlope(points);
}

function simulatedPerWall(result: SoakRunResult): string {
  return `${((result.hours * 60) / (result.simWallMs / 1000)).toFixed(1)} min/s`;
}

function summaryRows(result: SimulatedSoakResult): string[][] {
  return result.runs.map(({ profile, result: r }) => {
    const c = r.check;
    const inv = (id: number) => c.invariants.find((i) => i.id === id)!;
    return [
      profile,
      `${sec(r.simWallMs)} + ${sec(r.checkWallMs)}`,
      simulatedPerWall(r),
      String(Object.entries(r.faultsByKind).filter(([k]) => k !== 'tags' && k !== 'broadcast').reduce((a, [, v]) => a + v, 0)),
      r.observations.toLocaleString('en-US'),
      `${inv(1).violations} of ${inv(1).checked}`,
      pct(c.detection.latencyMs),
      String(c.falseDeaths.falseVerdicts.length),
      `${inv(3).violations} of ${inv(3).checked}`,
      pct(c.convergence.latencyMs),
      `${(r.hourly[0]!.heapUsed / MiB).toFixed(1)} → ${(r.hourly[r.hourly.length - 1]!.heapUsed / MiB).toFixed(1)}`,
      Number.isFinite(heapSlopePerHour(r)) ? formatPerHour('heapUsed', heapSlopePerHour(r)) : '— (under 3 samples)',
      String(inv(6).violations),
    ];
  });
}

const SUMMARY_HEAD = [
  'profile',
  'wall s (sim + check)',
  'simulated per wall s',
  'faults',
  'events',
  'inv 1: crashes not seen dead in time',
  'detection s p50/p90/p99/max',
  'inv 2: false death verdicts',
  'inv 3: not converged in time',
  'convergence s p50/p90/p99/max (of those converged)',
  'heap MiB h1 → last',
  'heap slope (last ¾)',
  'inv 6: bad sequences',
];

export function simulatedSoakSummary(result: SimulatedSoakResult): string {
  return `${table(SUMMARY_HEAD, summaryRows(result))}\n\n${falseDeathTable(result)}`;
}

function falseDeathTable(result: SimulatedSoakResult): string {
  const causes = [...new Set(result.runs.flatMap((r) => r.result.check.falseDeaths.byCause.map((c) => c.cause)))].sort();
  if (causes.length === 0) return 'No false death verdicts in any profile.';
  const head = ['cause (the pair’s most recent fault)'];
  for (const r of result.runs) head.push(`${r.profile}: verdicts`, 'since the fault s p50 / max', 'members reached p50 / max');
  const rows = causes.map((cause) => {
    const row = [cause];
    for (const r of result.runs) {
      const c = r.result.check.falseDeaths.byCause.find((x) => x.cause === cause);
      row.push(c === undefined ? '0' : String(c.count), c === undefined ? '—' : `${sec(c.sinceFaultMs.p50)} / ${sec(c.sinceFaultMs.max)}`, c === undefined ? '—' : `${c.reached.p50} / ${c.reached.max}`);
    }
    return row;
  });
  const total = ['total', ...result.runs.flatMap((r) => [String(r.result.check.falseDeaths.falseVerdicts.length), '', ''])];
  return table(head, [...rows, total]);
}

export function simulatedSoakMarkdown(result: SimulatedSoakResult, info: RunInfo): string {
  const p = result.params;
  const first = result.runs[0]?.result;
  const lines = [
    '# A simulated day under a nemesis (issue 29)',
    '',
    `Command: \`${info.command}\`  `,
    `Code: ${result.codeVersion}  `,
    `Date: ${info.date}  `,
    `Node ${info.node}, wall time ${(info.wallMs / 1000).toFixed(0)} s`,
    '',
    `${p.members} simulated members (real cores and runtimes on virtual time, \`Simulation.startCluster\`), ${p.hours} simulated hours, seed ${p.seed}, ${p.loss * 100} % packet loss on every link all day. A fault every ~${p.faultEveryMs / 1000} s (uniform 0.5-1.5×), on members no other fault holds, at most a quarter of the cluster at once; both profiles see the same faults. Weights: ${Object.entries(FAULT_WEIGHTS)
      .map(([k, w]) => `${k} ${w}`)
      .join(', ')}.`,
    '',
    `- **crash**: kill -9, restarted after ${RANGES.crashDownMs[0] / 1000}-${RANGES.crashDownMs[1] / 1000} s, half of them from the snapshot taken at the crash (\`MemberOptions.restore\`), joining through 3 running members.`,
    `- **crash-long**: kill -9, down ${sec(result.longDownMs)} s (the longest failure-detection bound + 30 s), so that invariant 1 has crashes every member must see.`,
    `- **pause**: SIGSTOP ${RANGES.pauseMs[0] / 1000}-${RANGES.pauseMs[1] / 1000} s. **blackout**: ${RANGES.blackoutMembers[0]}-${RANGES.blackoutMembers[1]} members cut off ${RANGES.blackoutMs[0] / 1000}-${RANGES.blackoutMs[1] / 1000} s. **partition**: ${RANGES.partitionShare * 100} % cut off from the rest ${RANGES.partitionMs[0] / 1000}-${RANGES.partitionMs[1] / 1000} s, then healed.`,
    `- **leave**: a graceful leave; the process exits 2 s later and a new one rejoins ${RANGES.leaveDownMs[0] / 1000}-${RANGES.leaveDownMs[1] / 1000} s after the leave.`,
    `- a tag (meta) update every ~${p.tagsEveryMs / 60_000} min and a user broadcast every ~${p.broadcastEveryMs / 60_000} min (random running members).`,
    '',
    `Faults skipped for lack of room under the quarter: ${result.skippedFaults}.`,
    '',
    '## Summary',
    '',
    table(SUMMARY_HEAD, summaryRows(result)),
    '',
    'Detection latency: from each kill to each running member’s dead (or left), over every pair that saw it while the member was down. Convergence: from each heal, restart, rejoin until every running member sees every other alive, for those not interrupted by the next fault.',
    '',
    '## False death verdicts, ours beside memberlist’s',
    '',
    'A verdict is a dead event whose declarer (DeathCause `by`) is the observer itself; it is false when the subject ran, was a member and not paused, the declarer was not paused, and no blackout or partition separated them throughout [verdict − probeTimeoutMs, verdict]. Verdicts about a member killed within the detection bound before are set apart (they may be about its previous process). Classified by the most recent fault involving the pair.',
    '',
    falseDeathTable(result),
    '',
  ];
  if (first !== undefined) {
    lines.push('## Faults injected', '', table(['fault', 'count'], FAULT_ORDER.filter((k) => first.faultsByKind[k] !== undefined).map((k) => [k, String(first.faultsByKind[k])])), '');
  }
  for (const { profile, result: r } of result.runs) {
    const c = r.check;
    lines.push(
      `## ${profile}`,
      '',
      soakProfileDescription(profile),
      '',
      `Bounds: detection ${sec(c.options.detectionBoundMs)} s (\`failureDetectionBoundMs\` at ${r.members} members), grace ${c.options.graceMs} ms (probeTimeoutMs), convergence ${sec(c.options.convergenceBoundMs)} s${p.convergenceBoundMs === undefined ? ' (one push-pull interval at this size plus a probe interval: what gossip misses, the next push-pull repairs)' : ''}. Heap after a ${r.heapForcedGc ? 'forced' : 'NOT forced (no gc available)'} GC.`,
      '',
      invariantTable(c),
      '',
      `Events: ${Object.entries(r.observationsByKind)
        .map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`)
        .join(', ')}; ${r.packetsDelivered.toLocaleString('en-US')} packets delivered; ${r.joinRetries} join retries. Crash detection: ${c.detection.kills} kills, ${c.detection.notRequired} (kill, observer) pairs restarted before the bound (not required). Death verdicts: ${c.falseDeaths.verdicts}, ${c.falseDeaths.previousLife} about a member killed within the bound (set apart). Convergence: ${c.convergence.triggers.length} triggers measured, ${c.convergence.censored} interrupted by the next fault before the bound, ${c.convergence.superseded} during another fault (measured from its end). Sequence violations by rule: ${Object.entries(c.sequenceViolationsByRule)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}.`,
      '',
    );
    const fv = c.falseDeaths.falseVerdicts.slice(0, 10);
    if (fv.length > 0) {
      lines.push(
        `First ${fv.length} false verdicts:`,
        '',
        table(
          ['at s', 'declarer', 'subject', 'incarnation', 'cause', 'since s', 'reached'],
          fv.map((f) => [sec(f.at), f.declarer, f.subject, String(f.incarnation), f.cause, sec(f.sinceFaultMs), String(f.reached)]),
        ),
        '',
      );
    }
  }
  lines.push('## Heap per simulated hour', '');
  lines.push(
    table(
      ['hour', ...result.runs.flatMap((r) => [`${r.profile} heap MiB`, 'table entries', 'wall'])],
      (first?.hourly ?? []).map((h, i) => [String(h.hour), ...result.runs.flatMap((r) => {
        const x = r.result.hourly[i]!;
        return [(x.heapUsed / MiB).toFixed(1), x.tableEntries.toLocaleString('en-US'), sec(x.wallMs)];
      })]),
    ),
    '',
    'Table entries: every running member’s table summed (dead and left not yet reaped included). The JSON has every setting and every measured value.',
    '',
  );
  return lines.join('\n');
}

export function simulatedSoakJson(result: SimulatedSoakResult, info: RunInfo): Record<string, unknown> {
  return {
    ...provenance('soak-simulated', info),
    codeVersion: result.codeVersion,
    params: result.params,
    longDownMs: result.longDownMs,
    skippedFaults: result.skippedFaults,
    runs: result.runs.map((r) => ({ profile: r.profile, description: soakProfileDescription(r.profile), config: r.config, heapSlopePerHour: heapSlopePerHour(r.result), ...r.result })),
  };
}

const COLORS: Record<SoakProfile, string> = { defaults: '#4c78a8', memberlist: '#e45756' };

/** Heap per simulated hour, and false death verdicts so far, per profile. */
export function simulatedSoakSvg(result: SimulatedSoakResult): string {
  return lineChart({
    title: `A simulated day: ${result.params.members} members, ${result.params.hours} h, a fault every ~${result.params.faultEveryMs / 1000} s`,
    subtitle: 'heap after GC (MiB) each simulated hour, and false death verdicts so far',
    xLabel: 'simulated hours',
    yLabel: 'MiB / verdicts (log scale)',
    yScale: 'log1p',
    panels: [
      { title: 'heap after GC, MiB', series: result.runs.map((r) => ({ name: r.profile, color: COLORS[r.profile], points: r.result.hourly.map((h) => [h.hour, h.heapUsed / MiB] as const) })) },
      {
        title: 'false death verdicts so far',
        series: result.runs.map((r) => ({
          name: r.profile,
          color: COLORS[r.profile],
          points: r.result.hourly.map((h) => [h.hour, r.result.check.falseDeaths.falseVerdicts.filter((f) => f.at <= h.hour * 3_600_000).length] as const),
        })),
      },
    ],
  });
}
