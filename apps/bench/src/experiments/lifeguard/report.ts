import { barChart } from '../../report/chart.js';
import { provenance } from '../../report/provenance.js';
import { table } from '../../report/table.js';
import { formatDuration } from '../../stats.js';
import type { RunInfo } from '../index.js';
import { INTERVAL_TAIL_MS, percentiles, profileTotals, type IntervalCell, type LifeguardResult, type Percentiles, type ProfileTotals, type ThresholdCell } from './run.js';
import { lifeguardProfileConfig, lifeguardProfileDescription, type LifeguardProfile } from './profiles.js';
import { GOAL_FP_PCT, GOAL_MEDIAN_DELAY_S, PAPER_TABLE_IV, PAPER_TABLE_V, PAPER_TABLE_VI, percentOfSwim } from './rules.js';

const PAPER = 'the Lifeguard paper (Dadgar, Phillips, Currey, arXiv 1707.00788)';

function pct(value: number): string {
  if (!Number.isFinite(value)) return '—';
  return value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function seconds(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '—';
}

function paperPct(value: number | undefined): string {
  return value === undefined ? '—' : pct(value);
}

/** Every Interval cell where the default profile raised an FP- (the goal is none). */
function defaultFpMinusCells(result: LifeguardResult): string[] {
  return result.interval
    .filter((c) => c.profile === 'default' && c.runs.some((r) => r.fpMinus > 0))
    .map((c) => `C ${c.concurrency} D ${c.anomalyMs} I ${c.normalMs}: ${c.runs.map((r) => r.fpMinus).join(', ')}`)
    .concat(
      result.threshold
        .filter((c) => c.profile === 'default' && c.runs.some((r) => r.fpMinus > 0))
        .map((c) => `Threshold C ${c.concurrency} D ${c.anomalyMs}: ${c.runs.map((r) => r.fpMinus).join(', ')}`),
    );
}

export interface GoalCheck {
  readonly goal: string;
  readonly measured: string;
  readonly met: boolean | undefined;
}

/** The issue's three goals for the default profile, judged from the totals (undefined: not measured). */
export function goalChecks(result: LifeguardResult): GoalCheck[] {
  const swim = result.totals.find((t) => t.profile === 'swim');
  const ours = result.totals.find((t) => t.profile === 'default');
  if (ours === undefined) return [];
  const fpMinusCells = defaultFpMinusCells(result);
  const cellCount = result.interval.filter((c) => c.profile === 'default').length + result.threshold.filter((c) => c.profile === 'default').length;
  const delay = swim === undefined ? Number.NaN : ours.firstDetect.p50 - swim.firstDetect.p50;
  return [
    {
      goal: 'FP- = 0 in every cell',
      measured: fpMinusCells.length === 0 ? `0 in all ${cellCount} cells` : `FP- in ${fpMinusCells.length} of ${cellCount} cells: ${fpMinusCells.join('; ')}`,
      met: cellCount === 0 ? undefined : fpMinusCells.length === 0,
    },
    {
      goal: `FP at most ${GOAL_FP_PCT}% of SWIM (the paper's Lifeguard)`,
      measured: `${ours.fp} vs ${swim?.fp ?? '—'}: ${pct(ours.percentOfSwim.fp)}%`,
      // No ratio without SWIM false positives to compare with: not measured.
      met: Number.isFinite(ours.percentOfSwim.fp) ? ours.percentOfSwim.fp <= GOAL_FP_PCT : undefined,
    },
    {
      goal: `median first detection within ${GOAL_MEDIAN_DELAY_S} s of SWIM's`,
      measured: `${seconds(ours.firstDetect.p50)} s vs ${seconds(swim?.firstDetect.p50 ?? Number.NaN)} s (${Number.isFinite(delay) ? `${delay >= 0 ? '+' : ''}${delay.toFixed(2)} s` : '—'})`,
      met: Number.isFinite(delay) ? Math.abs(delay) <= GOAL_MEDIAN_DELAY_S : undefined,
    },
  ];
}

function verdict(met: boolean | undefined): string {
  return met === undefined ? 'not measured' : met ? 'met' : 'MISSED';
}

export function lifeguardSummary(result: LifeguardResult): string {
  const rows = result.totals.map((t) => [
    t.profile,
    String(t.fp),
    pct(t.percentOfSwim.fp),
    paperPct(PAPER_TABLE_IV[t.profile]?.fpPct),
    String(t.fpMinus),
    pct(t.percentOfSwim.fpMinus),
    paperPct(PAPER_TABLE_IV[t.profile]?.fpMinusPct),
    seconds(t.firstDetect.p50),
    seconds(t.firstDetect.p99),
    pct(t.percentOfSwim.messages),
    pct(t.percentOfSwim.bytes),
  ]);
  const head = ['profile', 'FP', 'FP % SWIM', 'paper', 'FP-', 'FP- % SWIM', 'paper', 'first detect p50 (s)', 'p99', 'msgs % SWIM', 'bytes % SWIM'];
  const goals = goalChecks(result).map((g) => `- ${g.goal}: ${verdict(g.met)} (${g.measured})`);
  return [table(head, rows), '', ...(goals.length > 0 ? ['Goals for the default profile:', ...goals] : [])].join('\n');
}

function percentilesRow(p: Percentiles): string[] {
  return [seconds(p.p50), seconds(p.p99), seconds(p.p999)];
}

export function lifeguardMarkdown(result: LifeguardResult, info: RunInfo): string {
  const { params } = result;
  const lines: string[] = [];
  const swim = result.totals.find((t) => t.profile === 'swim');
  lines.push(`# Lifeguard paper's evaluation, on the simulator`, '');
  lines.push(`Command: \`${info.command}\`  `, `Date: ${info.date}  `, `Node ${info.node}, wall time ${formatDuration(info.wallMs)}`, '');
  lines.push(
    `Reproduces the evaluation of ${PAPER}, §V: ${params.nodes} members on the deterministic simulator (\`@swim/transport-memory\`, 1-5 ms one-way latency), ` +
      `C of them anomalous at once, in lock-step: every packet to or from them held and delivered when the anomaly ends, every stream hanging, their timers running ` +
      `(the simulator's blackout, docs/corrections-study.md). Probe interval 1 s, suspicion multiplier α 5 in every profile.`,
    '',
  );
  lines.push('## What ran', '');
  const tCells = new Set(result.threshold.map((c) => `${c.concurrency}/${c.anomalyMs}`)).size;
  const iCells = new Set(result.interval.map((c) => `${c.concurrency}/${c.anomalyMs}/${c.normalMs}`)).size;
  lines.push(
    `- Profiles: ${params.profiles.join(', ')}; ${params.runs} run(s) per cell, seeds ${params.seed}–${params.seed + params.runs - 1} (the same members anomalous in every profile).`,
    `- Threshold (${tCells} cells): ${params.quiesceMs / 1000} s quiet after convergence, one anomaly of D ms, then until every member sees every other alive or ${params.windowMs / 1000} s after the anomaly began. C ∈ {${[...new Set(result.threshold.map((c) => c.concurrency))].join(', ')}}, D ∈ {${[...new Set(result.threshold.map((c) => c.anomalyMs))].join(', ')}} ms.`,
    `- Interval (${iCells} cells): ${params.quiesceMs / 1000} s quiet, then anomaly D / normal I cycles until at least ${params.windowMs / 1000} s have passed, then until every member sees every other alive (at most ${INTERVAL_TAIL_MS / 1000} s more). ` +
      `C ∈ {${[...new Set(result.interval.map((c) => c.concurrency))].join(', ')}}, D ∈ {${[...new Set(result.interval.map((c) => c.anomalyMs))].join(', ')}} ms, I ∈ {${[...new Set(result.interval.map((c) => c.normalMs))].join(', ')}} ms.`,
    `- The paper's grid: C ∈ {1, 4, …, 32} (9), D ∈ {128, 512, 2048, 8192, 16384, 32768} ms, I ∈ {1, 4, …, 16384} ms (8), 10 runs each, with 128 Consul agents on one 16-core VM. Its counts are totals over that grid; ours over the grid above, so only the ratios to SWIM compare.`,
    '- FP: a dead event about a member never anomalous in the run, at any member (each member\'s own event counts, whether its timer fired or gossip told it). FP-: such an event at a member never anomalous either. Verdicts: those of the events where the member\'s own suspicion timer fired (the rest were told by gossip); one verdict spreads to up to N - 1 events.',
    '',
  );

  lines.push(`## False positives (Interval runs), beside the paper's Table IV`, '');
  lines.push(
    table(
      ['profile', 'FP', 'FP % of SWIM', 'paper FP %', 'FP-', 'FP- % of SWIM', 'paper FP- %', 'FP verdicts', '% of SWIM', 'FP- verdicts', '% of SWIM'],
      result.totals.map((t) => [
        t.profile,
        String(t.fp),
        pct(t.percentOfSwim.fp),
        paperPct(PAPER_TABLE_IV[t.profile]?.fpPct),
        String(t.fpMinus),
        pct(t.percentOfSwim.fpMinus),
        paperPct(PAPER_TABLE_IV[t.profile]?.fpMinusPct),
        String(t.fpVerdicts),
        pct(percentOfSwim(t.fpVerdicts, swim?.fpVerdicts ?? Number.NaN)),
        String(t.fpMinusVerdicts),
        pct(percentOfSwim(t.fpMinusVerdicts, swim?.fpMinusVerdicts ?? Number.NaN)),
      ]),
    ),
    '',
  );

  lines.push(`## Latency (Threshold runs), beside the paper's Table V`, '');
  lines.push(
    'Seconds from the start of the anomaly: first detection = the first dead event about an anomalous member at a healthy member; full dissemination = when every healthy member has declared it dead (members some healthy member never declared dead are not in the second column). Only anomalies longer than the suspicion timeout are detected.',
    '',
  );
  lines.push(
    table(
      ['profile', 'samples', '1st p50', '1st p99', '1st p99.9', 'paper 1st p50 / p99 / p99.9', 'full p50', 'full p99', 'full p99.9', 'paper full p50 / p99 / p99.9'],
      result.totals.map((t) => {
        const paper = PAPER_TABLE_V[t.profile];
        return [
          t.profile,
          `${t.detections} / ${t.disseminations}`,
          ...percentilesRow(t.firstDetect),
          paper === undefined ? '—' : `${paper.firstDetect.p50} / ${paper.firstDetect.p99} / ${paper.firstDetect.p999}`,
          ...percentilesRow(t.fullDissemination),
          paper === undefined ? '—' : `${paper.fullDissemination.p50} / ${paper.fullDissemination.p99} / ${paper.fullDissemination.p999}`,
        ];
      }),
    ),
    '',
  );

  lines.push(`## Load (Interval runs), beside the paper's Table VI`, '');
  lines.push('Messages: packets sent (a compound packet counts once, as in the paper) plus streams opened; bytes: packet plus stream bytes.', '');
  lines.push(
    table(
      ['profile', 'messages', 'msgs % of SWIM', 'paper msgs %', 'bytes', 'bytes % of SWIM', 'paper bytes %'],
      result.totals.map((t) => [
        t.profile,
        String(t.messages),
        pct(t.percentOfSwim.messages),
        paperPct(PAPER_TABLE_VI[t.profile]?.messagesPct),
        String(t.bytes),
        pct(t.percentOfSwim.bytes),
        paperPct(PAPER_TABLE_VI[t.profile]?.bytesPct),
      ]),
    ),
    '',
  );

  const goals = goalChecks(result);
  if (goals.length > 0) {
    lines.push('## Goals for the default profile', '');
    lines.push(table(['goal', 'measured', 'verdict'], goals.map((g) => [g.goal, g.measured, verdict(g.met)])), '');
  }

  lines.push('## Agreement with the paper', '');
  lines.push(...agreement(result.totals, swim), '');

  const profiles = params.profiles;
  lines.push('## False positives by concurrency', '');
  lines.push('FP (and FP-) as % of the swim profile\'s, over the Interval cells of each C: how each component\'s effect changes as more members are anomalous at once.', '');
  const concurrencies = [...new Set(result.interval.map((c) => c.concurrency))];
  const sumBy = (profile: string, concurrency: number, key: 'fp' | 'fpMinus') =>
    result.interval.filter((c) => c.profile === profile && c.concurrency === concurrency).reduce((s, c) => s + c.runs.reduce((t, r) => t + r[key], 0), 0);
  lines.push(
    table(
      ['C', ...profiles],
      concurrencies.map((c) => [
        String(c),
        ...profiles.map((p) => `${pct(percentOfSwim(sumBy(p, c, 'fp'), sumBy('swim', c, 'fp')))} (${pct(percentOfSwim(sumBy(p, c, 'fpMinus'), sumBy('swim', c, 'fpMinus')))})`),
      ]),
    ),
    '',
  );

  lines.push('## Interval cells', '');
  lines.push('FP / FP- per cell, summed over the runs.', '');
  const keys = [...new Map(result.interval.map((c) => [`${c.concurrency}/${c.anomalyMs}/${c.normalMs}`, c])).values()];
  lines.push(
    table(
      ['C', 'D (ms)', 'I (ms)', ...profiles],
      keys.map((k) => [
        String(k.concurrency),
        String(k.anomalyMs),
        String(k.normalMs),
        ...profiles.map((p) => {
          const cell = result.interval.find((c) => c.profile === p && c.concurrency === k.concurrency && c.anomalyMs === k.anomalyMs && c.normalMs === k.normalMs);
          if (cell === undefined) return '—';
          const fp = cell.runs.reduce((s, r) => s + r.fp, 0);
          const fpMinus = cell.runs.reduce((s, r) => s + r.fpMinus, 0);
          return `${fp} / ${fpMinus}`;
        }),
      ]),
    ),
    '',
  );

  lines.push('## Threshold cells', '');
  lines.push('Median first detection in seconds (anomalous members detected / anomalous members) and FP / FP- per cell.', '');
  const tKeys = [...new Map(result.threshold.map((c) => [`${c.concurrency}/${c.anomalyMs}`, c])).values()];
  lines.push(
    table(
      ['C', 'D (ms)', ...profiles],
      tKeys.map((k) => [
        String(k.concurrency),
        String(k.anomalyMs),
        ...profiles.map((p) => {
          const cell = result.threshold.find((c) => c.profile === p && c.concurrency === k.concurrency && c.anomalyMs === k.anomalyMs);
          if (cell === undefined) return '—';
          const first = cell.runs.flatMap((r) => r.firstDetectMs).map((ms) => ms / 1000);
          const fp = cell.runs.reduce((s, r) => s + r.fp, 0);
          const fpMinus = cell.runs.reduce((s, r) => s + r.fpMinus, 0);
          return `${first.length > 0 ? `${seconds(percentiles(first).p50)} s` : '—'} (${first.length}/${cell.runs.length * k.concurrency}); ${fp} / ${fpMinus}`;
        }),
      ]),
    ),
    '',
  );

  lines.push('## Profiles', '');
  for (const p of profiles) lines.push(`- \`${p}\`: ${lifeguardProfileDescription(p)}`);
  lines.push('');
  const keysShown = ['suspicionMult', 'suspicionMaxTimeoutMult', 'awarenessMaxMultiplier', 'requestNacks', 'buddySystem', 'nackTimeoutRatio', 'overdueGraceMs', 'healthScaling', 'healthPenaltyOrder', 'directRefutation'] as const;
  lines.push(table(['setting', ...profiles], keysShown.map((k) => [k, ...profiles.map((p) => String(lifeguardProfileConfig(p)[k]))])), '');
  return `${lines.join('\n')}\n`;
}

/** Sentences that set each component's effect beside the paper's, from the measured totals. */
export function agreement(totals: readonly ProfileTotals[], swim: ProfileTotals | undefined): string[] {
  if (swim === undefined) return ['No swim profile in this run: nothing to compare with the paper, whose figures are relative to SWIM.'];
  if (swim.fp === 0) return [`The swim baseline raised no false positive over these Interval cells: the ratios are undefined. The paper's grid includes anomalies longer than the suspicion timeout, where SWIM does raise them.`];
  const out: string[] = [];
  for (const t of totals) {
    const paper = PAPER_TABLE_IV[t.profile];
    if (t.profile === 'swim' || paper === undefined) continue;
    const ours = t.percentOfSwim.fp;
    const sameSide = (ours < 100) === (paper.fpPct < 100);
    const factor = ours > 0 ? paper.fpPct / ours : Number.POSITIVE_INFINITY;
    const close = Number.isFinite(factor) && factor <= 3 && factor >= 1 / 3;
    out.push(
      `- \`${t.profile}\`: FP ${pct(ours)}% of SWIM (paper ${pct(paper.fpPct)}%), FP- ${pct(t.percentOfSwim.fpMinus)}% (paper ${pct(paper.fpMinusPct)}%): ` +
        (close ? 'agrees within a factor of 3' : sameSide ? 'same direction, different size' : 'opposite direction') +
        '.',
    );
  }
  const ours = totals.find((t) => t.profile === 'default');
  if (ours !== undefined) {
    out.push(`- \`default\` (not in the paper): FP ${pct(ours.percentOfSwim.fp)}% of SWIM, FP- ${pct(ours.percentOfSwim.fpMinus)}%.`);
    const delay = ours.firstDetect.p50 - swim.firstDetect.p50;
    if (Number.isFinite(delay)) {
      out.push(
        `- \`default\` detects ${delay >= 0 ? `${delay.toFixed(2)} s later` : `${(-delay).toFixed(2)} s earlier`} than SWIM at the median (${ours.detections} anomalous members detected vs ${swim.detections}). ` +
          'Its direct refutation asks the suspect once more one probe timeout (500 ms) before a timeout verdict, so the question costs no time unless a confirmation brings the verdict closer than that (docs/design.md); the rest of the difference is when the first suspicion happens (each profile probes in its own random order).',
      );
    }
  }
  // Where SWIM's false positives come from, from the counts themselves.
  const told = swim.fpMinus - swim.fpMinusVerdicts;
  out.push(
    '',
    `Where SWIM's false positives come from: ${swim.fpVerdicts} verdicts (a member's own suspicion timer) became ${swim.fp} FP events; ` +
      `${swim.fpVerdicts - swim.fpMinusVerdicts} of the verdicts were made by anomalous members, ${swim.fpMinusVerdicts} by healthy ones. ` +
      `Of the ${swim.fpMinus} FP- events, ${told} (${pct(percentOfSwim(told, swim.fpMinus))}%) were healthy members told by gossip of a verdict made elsewhere. ` +
      `FP- is ${pct(percentOfSwim(swim.fpMinus, swim.fp))}% of FP here; in the paper's Table IV, ${pct(percentOfSwim(PAPER_TABLE_IV.swim!.fpMinus, PAPER_TABLE_IV.swim!.fp))}%.`,
    '',
    'Why the figures can differ from the paper\'s, as far as this setup shows:',
    '',
    '- The anomaly. Here a member cut off keeps its timers and every packet to or from it is delivered late, when the anomaly ends (the simulator\'s blackout). ' +
      'So a verdict an anomalous member reached in silence reaches everyone at reconnection, and a dead message at the same incarnation overrides alive (memberlist deadNode): every healthy member that hears it before the victim\'s refutation records a failure. ' +
      'The paper says only that sends and receives were blocked; its FP- share suggests such verdicts rarely spread there. That is the FP- column\'s difference, and why the buddy system, which helps a suspect refute when pinged, barely lowers FP- here.',
    '- The grid. Counts are totals over the cells that ran, and the cells are weighted differently: the paper\'s 9 concurrency levels and 6 anomaly lengths against the few above. ' +
      'Components whose effect depends on C come out differently as the share of large C changes: see the table by concurrency. LHA-Suspicion\'s grows with C, as it would if anomalous members confirmed each other\'s suspicions at reconnection and shrank the timeout (the corrections study\'s leak, docs/corrections-study.md); not traced event by event here.',
    '- Run length and repetitions: the paper ran 10 runs per cell of Consul agents in real time; this is one deterministic run per cell (seeded), so small counts are not averages.',
    '- Load. Likely causes, not measured apart: SWIM\'s own false positives cost traffic (dead and alive gossip, refutations), and anomalous members that never slow down keep filling held packets with gossip, while LHA-Probe slows them down. How much that weighs depends on how many of the cells produce storms.',
  );
  return out;
}

export function lifeguardJson(result: LifeguardResult, info: RunInfo): Record<string, unknown> {
  const { params } = result;
  return {
    ...provenance('lifeguard', info),
    settings: Object.fromEntries(params.profiles.map((p) => [p, { description: lifeguardProfileDescription(p), config: lifeguardProfileConfig(p) }])),
    params,
    paper: { tableIV: PAPER_TABLE_IV, tableV: PAPER_TABLE_V, tableVI: PAPER_TABLE_VI },
    goals: goalChecks(result),
    totals: result.totals,
    threshold: result.threshold.map((c) => {
      const first = c.runs.flatMap((r) => r.firstDetectMs).map((ms) => ms / 1000);
      const full = c.runs.flatMap((r) => r.fullDisseminationMs).map((ms) => ms / 1000);
      return {
        profile: c.profile,
        concurrency: c.concurrency,
        anomalyMs: c.anomalyMs,
        fp: c.runs.reduce((s, r) => s + r.fp, 0),
        fpMinus: c.runs.reduce((s, r) => s + r.fpMinus, 0),
        detected: first.length,
        firstDetect: percentiles(first),
        fullDissemination: percentiles(full),
        runs: c.runs,
      };
    }),
    interval: result.interval.map((c) => ({
      profile: c.profile,
      concurrency: c.concurrency,
      anomalyMs: c.anomalyMs,
      normalMs: c.normalMs,
      fp: c.runs.reduce((s, r) => s + r.fp, 0),
      fpMinus: c.runs.reduce((s, r) => s + r.fpMinus, 0),
      messages: c.runs.reduce((s, r) => s + r.messages, 0),
      bytes: c.runs.reduce((s, r) => s + r.bytes, 0),
      runs: c.runs,
    })),
  };
}

const COLORS = { ours: '#1f77b4', paper: '#aec7e8', oursMinus: '#d62728', paperMinus: '#ff9896' } as const;

/** FP and FP- as % of SWIM per profile, ours beside the paper's (log scale, so 0 stays visible). */
export function lifeguardSvg(result: LifeguardResult): string {
  const profiles = result.totals.filter((t) => t.profile !== 'swim');
  return barChart({
    title: "False positives as % of SWIM: ours vs the Lifeguard paper's Table IV",
    subtitle: `${result.params.nodes} members, Interval runs; bars missing: no paper figure or no SWIM baseline`,
    yLabel: '% of SWIM (log scale)',
    yScale: 'log1p',
    series: [
      { name: 'FP (ours)', color: COLORS.ours },
      { name: 'FP (paper)', color: COLORS.paper },
      { name: 'FP- (ours)', color: COLORS.oursMinus },
      { name: 'FP- (paper)', color: COLORS.paperMinus },
    ],
    groups: profiles.map((t) => ({
      label: t.profile as LifeguardProfile,
      bars: [
        { series: 'FP (ours)', value: t.percentOfSwim.fp, label: pct(t.percentOfSwim.fp) },
        { series: 'FP (paper)', value: PAPER_TABLE_IV[t.profile]?.fpPct ?? Number.NaN },
        { series: 'FP- (ours)', value: t.percentOfSwim.fpMinus, label: pct(t.percentOfSwim.fpMinus) },
        { series: 'FP- (paper)', value: PAPER_TABLE_IV[t.profile]?.fpMinusPct ?? Number.NaN },
      ],
    })),
    reference: { y: 100, label: 'SWIM = 100%' },
  });
}

/** The result back from {@link lifeguardJson}'s document (for --render): its params and per-run rows; totals recomputed. */
export function resultFromJson(document: Record<string, unknown>): LifeguardResult {
  const params = document['params'] as LifeguardResult['params'];
  const threshold = (document['threshold'] as ThresholdCell[]).map((c) => ({ profile: c.profile, concurrency: c.concurrency, anomalyMs: c.anomalyMs, runs: c.runs }));
  const interval = (document['interval'] as IntervalCell[]).map((c) => ({ profile: c.profile, concurrency: c.concurrency, anomalyMs: c.anomalyMs, normalMs: c.normalMs, runs: c.runs }));
  return { experiment: 'lifeguard', params, totals: profileTotals(params.profiles, threshold, interval), threshold, interval };
}
