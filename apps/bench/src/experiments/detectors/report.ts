import { table } from '../../report/table.js';
import { provenance } from '../../report/provenance.js';
import { formatDuration } from '../../stats.js';
import type { RunInfo } from '../index.js';
import { findings, type Finding } from './findings.js';
import { HEARTBEAT_INTERVAL_MS, type Regime } from './model.js';
import {
  CRASHES_PER_TRACE,
  SCORE_END_MARGIN_MS,
  SCORE_START_MS,
  SLICE_CRASHES,
  type AdaptationRow,
  type DetectorRow,
  type DetectorsResult,
  type RegimeTable,
} from './run.js';
import { LAB_BUSY_SLICES, LAB_CALM_AGAIN_SLICES, LAB_PHASES, LAB_TABLES, LAB_TRACE_STATS } from './lab-figures.js';
import { ADAPTATION_SETTINGS, TABLE_SETTINGS } from './settings.js';

const f2 = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '—');
const f1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '—');

/** A false-alarm rate: enough digits to show a small nonzero rate as nonzero. */
function perHour(row: DetectorRow): string {
  if (row.alarms === 0) return '0';
  if (row.perHour >= 10) return f1(row.perHour);
  if (row.perHour >= 0.1) return f2(row.perHour);
  return row.perHour.toFixed(3);
}

function regimeSection(t: RegimeTable, runs: number): string {
  const lab = LAB_TABLES[t.regime];
  const hours = Math.round(t.rows[0]?.hours ?? 0);
  return [
    `## ${t.regime === 'calm' ? 'Calm' : 'Busy'} network\n\n${runs} traces of ${t.hoursPerTrace} h (${hours} scored hours, ${(t.rows[0]?.crashes ?? 0).toLocaleString('en-US')} crashes per detector); the lab's figures are from one 4-hour trace. \`tolerates\`: the silence accepted after the last heartbeat of a trace (median over traces). \`per ${t.hoursPerTrace}-h trace\`: the 10th–90th percentile of the rate over our traces, and how many had none. \`lab's rule\`: the same crashes timed the lab's way (see the closing note).`,
    table(
      ['detector', 'tolerates (s)', 'lab', 'false alarms/h', 'lab', `per ${t.hoursPerTrace}-h trace (none)`, 'mean detection (s)', "lab's rule", 'lab', 'p99 (s)', "lab's rule", 'lab'],
      t.rows.map((r) => {
        const s = lab[r.key];
        return [
          r.label,
          f2(r.toleratesS),
          s === undefined ? '—' : f2(s.tolerates),
          perHour(r),
          s === undefined ? '—' : f1(s.perHour),
          `${f2(r.perTrace.p10)}–${f2(r.perTrace.p90)} (${r.perTrace.zeroTraces}/${r.perTrace.traces})`,
          f2(r.meanDetectionS),
          f2(r.labRule.meanDetectionS),
          s === undefined ? '—' : f2(s.mean),
          f2(r.p99DetectionS),
          f2(r.labRule.p99DetectionS),
          s === undefined ? '—' : f2(s.p99),
        ];
      }),
    ),
  ].join('\n\n');
}

function adaptationSection(result: DetectorsResult): string {
  const a = result.adaptation;
  const rows = a.rows;
  const labPhase = (r: AdaptationRow, p: number) => LAB_PHASES[r.key]?.[p];
  return [
    `## Calm → busy → calm\n\n${a.traces} traces of one hour calm, one hour busy, one hour calm again; the lab's figures are from one trace. False alarms per trace: mean [min–max] over our traces. Mean detection: ${CRASHES_PER_TRACE} crashes per phase per trace.`,
    table(
      ['detector', 'phase', 'false alarms per trace', 'lab', 'traces with any', 'mean detection (s)', 'lab'],
      rows.flatMap((r) =>
        r.phases.map((p, i) => [r.label, p.name, `${f2(p.meanAlarms)} [${p.minAlarms}–${p.maxAlarms}]`, String(labPhase(r, i)?.alarms ?? '—'), `${p.tracesWithAlarms}/${a.traces}`, f2(p.meanDetectionS), f2(labPhase(r, i)?.mean ?? Number.NaN)]),
      ),
    ),
    `False alarms in each 10 minutes after the network turns busy: ours (mean per trace) / the lab's (one trace).`,
    table(
      ['detector', ...[1, 2, 3, 4, 5, 6].map((i) => `${(i - 1) * 10}–${i * 10} min`), 'last busy-hour alarm (min after the switch, median)'],
      rows.map((r) => [r.label, ...r.busySliceAlarms.map((v, i) => `${f2(v)} / ${LAB_BUSY_SLICES[r.key]?.[i] ?? '—'}`), f1(r.lastBusyAlarmMin)]),
    ),
    `Mean detection time (s) in each 10 minutes after the network calms down again (${SLICE_CRASHES} crashes per slice per trace): ours / the lab's.`,
    table(
      ['detector', ...[1, 2, 3, 4, 5, 6].map((i) => `${(i - 1) * 10}–${i * 10} min`)],
      rows.map((r) => [r.label, ...r.calmAgainSliceDetectionS.map((v, i) => `${f2(v)} / ${f2(LAB_CALM_AGAIN_SLICES[r.key]?.[i] ?? Number.NaN)}`)]),
    ),
    `How the horizon (the silence tolerated) moves: its level over the last 10 minutes of each phase, the minutes the median horizon takes to cover 90% of the change after each switch, and its jitter late in the busy hour. Chart: \`detectors.svg\`.`,
    table(
      ['detector', 'calm (s)', 'busy (s)', 'calm again (s)', 'to busy (min)', 'back to calm (min)', 'busy jitter, sd (s)'],
      rows.map((r) => [r.label, f2(r.horizonLevelsS[0]!), f2(r.horizonLevelsS[1]!), f2(r.horizonLevelsS[2]!), f1(r.adaptToBusyMin), f1(r.adaptToCalmMin), f2(r.busyHorizonJitterS)]),
    ),
  ].join('\n\n');
}

function findingsTable(list: readonly Finding[]): string {
  return table(
    ['finding (the lab)', 'ours', 'verdict'],
    list.map((f) => [f.claim, f.ours, f.verdict]),
    ['l', 'l', 'l'],
  );
}

/** What `pnpm bench detectors` prints: the tables and the verdicts. */
export function detectorsSummary(result: DetectorsResult): string {
  const list = findings(result);
  const held = list.filter((f) => f.verdict === 'held').length;
  return [
    ...result.tables.map((t) => regimeSection(t, result.params.runs)),
    adaptationSection(result),
    `## The lab's findings\n\n${held} of ${list.length} held as stated; see the verdicts.`,
    findingsTable(list),
  ].join('\n\n');
}

function regimeRow(r: Regime): string[] {
  return [
    r.name,
    `${r.medianDelayMs} ms`,
    String(r.sigma),
    `${+(r.loss * 100).toFixed(2)}%`,
    r.stallEveryMs > 0 ? `every ${r.stallEveryMs / 60_000} min on average (exponential gaps), ${r.stallMinMs / 1000}–${r.stallMaxMs / 1000} s (uniform)` : 'none',
  ];
}

function modelSection(result: DetectorsResult): string {
  const stats = result.model.stats;
  const rows = stats.map((s) => {
    const lab = LAB_TRACE_STATS[s.regime as 'calm' | 'busy'];
    const spread = (v: { median: number; min: number; max: number }, fmt: (x: number) => string) => `${fmt(v.median)} [${fmt(v.min)}–${fmt(v.max)}]`;
    return [
      s.regime,
      spread(s.counted, (x) => String(Math.round(x))),
      String(lab.counted),
      spread(s.medianDelayMs, (x) => x.toFixed(0)),
      String(lab.medianDelayMs),
      spread(s.longestSilenceS, f2),
      f2(lab.longestSilenceS),
      spread(s.p999SilenceS, f2),
      f2(lab.p999SilenceS),
    ];
  });
  const check = stats.map((s) => [
    s.regime,
    `${(s.lossRate * 100).toFixed(3)}%`,
    `${(s.lossParameter * 100).toFixed(3)}%`,
    `${s.meanDelayMs.toFixed(1)} ms`,
    `${s.meanDelayParameterMs.toFixed(1)} ms`,
    f2(s.stallsPerHour),
    f2(s.stallsPerHourParameter),
  ]);
  return [
    `## The heartbeat model\n\nOne heartbeat every ${HEARTBEAT_INTERVAL_MS / 1000} s. Each is lost with the regime's probability; the rest take a log-normal delay (median × e^(σZ)). A stall holds back every heartbeat sent while it lasts and releases them together when it ends, each with its own delay. The monitor counts a heartbeat only if it is newer than every one it has (sequence numbers). The regimes are the lab's:`,
    table(['regime', 'median delay', 'σ of ln(delay)', 'loss', 'stalls'], result.model.regimes.map(regimeRow), ['l', 'r', 'r', 'r', 'l']),
    `One hour of each network (the lab's step 1): ours as the median [min–max] over ${stats[0]?.traces ?? 0} one-hour traces, the lab's from one.`,
    table(['regime', 'heartbeats counted (of 3,600)', 'lab', 'median delay (ms)', 'lab', 'longest silence (s)', 'lab', '99.9th pct. silence (s)', 'lab'], rows),
    `The model against its parameters, over the same traces: loss rate, mean link delay (log-normal mean = median · e^(σ²/2)) and stalls per hour.`,
    table(['regime', 'loss', 'parameter', 'mean delay', 'parameter', 'stalls/h', 'parameter'], check),
  ].join('\n\n');
}

function settingsSection(): string {
  const describe = (spec: Record<string, unknown>) =>
    Object.entries(spec)
      .map(([k, v]) => `${k} ${typeof v === 'number' && !Number.isFinite(v) ? '∞' : String(v)}`)
      .join(', ');
  const all = [...TABLE_SETTINGS, ...ADAPTATION_SETTINGS.filter((a) => !TABLE_SETTINGS.some((t) => t.key === a.key))];
  return [
    `## Detector settings\n\nBuilt with \`createFailureDetector\` from @swim/detectors, with the options that make each one the lab's detector. Phi accrual learns every interval (\`learnWhileSuspected: true\`, as the lab's window; Pekko and the package default skip an interval that ends a suspicion). Exponential phi starts at 1 s and learns every interval, as the lab's (Cassandra starts at 2 s and does not learn intervals above 2 s).`,
    table(
      ['detector', 'options'],
      all.map((s) => [s.label, describe(s.spec as unknown as Record<string, unknown>)]),
      ['l', 'l'],
    ),
  ].join('\n\n');
}

/** Share of our traces whose rate is below the lab's single-trace figure. */
function rankOf(row: DetectorRow, labValue: number): number {
  const rates = row.perTraceRates;
  return rates.filter((r) => r < labValue).length / rates.length;
}

function notesSection(result: DetectorsResult): string {
  const list = findings(result);
  const by = (v: string) => list.filter((f) => f.verdict === v).map((f) => `\`${f.id}\``);
  const held = by('held');
  const partly = by('partly');
  const not = by('did not hold');
  const row = (regime: 'calm' | 'busy', key: string) => result.tables.find((t) => t.regime === regime)!.rows.find((r) => r.key === key)!;
  const placed = (['calm', 'busy'] as const).flatMap((regime) =>
    result.tables
      .find((t) => t.regime === regime)!
      .rows.filter((r) => (LAB_TABLES[regime][r.key]?.perHour ?? 0) > 0)
      .map((r) => {
        const labValue = LAB_TABLES[regime][r.key]!.perHour;
        return `${regime} ${r.label} ${f1(labValue)}/h (ours ${perHour(r)}; ${Math.round(rankOf(r, labValue) * 100)}% of our traces lower)`;
      }),
  );
  const b15 = row('busy', 'fixed-1.5');
  const b35 = row('busy', 'fixed-3.5');
  const hours = result.params.hours;
  const w1000 = result.adaptation.rows.find((r) => r.key === 'phi-8-pause-1')!;
  const w100 = result.adaptation.rows.find((r) => r.key === 'phi-8-pause-1-window-100')!;
  const laterAlarms = (r: AdaptationRow) => r.busySliceAlarms.slice(1).reduce((s, v) => s + v, 0);
  return [
    `## Closing note: our numbers and the lab's`,
    `Every figure above sits next to the lab's. Ours come from another random generator (sfc32 from @swim/core, Box–Muller normals) and from ${result.params.runs} independent traces per regime instead of one, so single cells differ; the model is the same (its statistics match the parameters and the lab's step 1), and the shape is what we compare.`,
    [
      `- **Single traces are noisy.** The lab's nonzero false-alarm rates, placed among our ${hours}-hour traces: ${placed.join('; ')}. Where the lab reports 0 in its ${hours}-hour trace, the \`none\` count says how many of ours also had none. Its p99 detection times are the 99th percentile of 400 crashes in one trace; ours, by the lab's rule, range over ${f2(row('busy', 'fixed-2.5').perTraceP99LabRule.p10)}–${f2(row('busy', 'fixed-2.5').perTraceP99LabRule.p90)} s from trace to trace for busy fixed 2.5 s (10th–90th percentile; the lab: ${f2(LAB_TABLES.busy['fixed-2.5']!.p99)} s).`,
      `- **Scoring window and crashes.** As the lab: false alarms and ${CRASHES_PER_TRACE} crashes per trace between ${SCORE_START_MS / 1000} s after the start and ${SCORE_END_MARGIN_MS / 1000} s before the end (adaptation slices: ${SLICE_CRASHES} crashes each).`,
      `- **False alarms** are transitions into suspect, read off each detector's \`deadline()\` after every heartbeat: one when the next heartbeat arrives at or after the deadline. The lab compares the gap with the horizon the same way but counts a gap exactly equal to it as no alarm; with continuous delays that never happens in a generated trace.`,
      `- **Detection time** is the first moment after the crash at which the detector says suspect, with every heartbeat sent before the crash still delivered. The lab takes the deadline of the last heartbeat it counted in the live trace. That differs twice on the busy network: a detector with a short horizon often says suspect before a late last heartbeat arrives (fixed 1.5 s: p99 ${f2(b15.p99DetectionS)} s against ${f2(b15.labRule.p99DetectionS)} s by the lab's rule), and a last heartbeat that the live trace dropped because a newer one, sent after the crash, overtook it still arrives and postpones detection (fixed 3.5 s: ${f2(b35.p99DetectionS)} s against ${f2(b35.labRule.p99DetectionS)} s). The \`lab's rule\` columns time the same crashes the lab's way: that is the like-for-like comparison.`,
      `- **Beyond the lab's one trace.** After the first ten minutes of the busy hour, the window of 100 raised ${f2(laterAlarms(w100))} false alarms per trace and the window of 1,000 ${f2(laterAlarms(w1000))}: the short window catches up with a busy network at once but also forgets each stall sooner, so it keeps raising the odd alarm all hour (in traces with any, the last came a median ${f1(w100.lastBusyAlarmMin)} min after the switch, against ${f1(w1000.lastBusyAlarmMin)} min for the window of 1,000).`,
      `- **Verdicts.** Held: ${held.length > 0 ? held.join(', ') : 'none'}. Partly: ${partly.length > 0 ? partly.join(', ') : 'none'}. Did not hold: ${not.length > 0 ? not.join(', ') : 'none'}. The rule for "none in ${hours} hours": held when at least 90% of our traces of that length have none, partly from 50%.`,
    ].join('\n'),
  ].join('\n\n');
}

/** The full report: provenance, the model, the tables next to the lab's, the settings, the closing note. */
export function detectorsMarkdown(result: DetectorsResult, info: RunInfo): string {
  const { runs, hours, seed } = result.params;
  const parts = [
    `# The lab: failure detectors on a calm and a busy network`,
    [`Command: \`${info.command}\`  `, `Date: ${info.date}  `, `Node ${info.node}, wall time ${formatDuration(info.wallMs)}`].join('\n'),
    `The detector lab ("How to detect failed nodes…", docs/corrections-study.md), steps 1–5, rebuilt on @swim/detectors: a seeded heartbeat model, a scorer (false alarms per hour, mean and p99 detection time), the lab's tables and its calm → busy → calm trace. ${runs} traces of ${hours} h per regime and ${runs} adaptation traces of 3 h, seeds ${seed}–${seed + runs - 1}.`,
    modelSection(result),
    detectorsSummary(result),
    settingsSection(),
    notesSection(result),
  ];
  return `${parts.join('\n\n')}\n`;
}

/** The JSON document: provenance, parameters, the model, our tables, the lab's figures and the verdicts. */
export function detectorsJson(result: DetectorsResult, info: RunInfo): Record<string, unknown> {
  const { experiment, params, ...rest } = result;
  return {
    ...provenance(experiment, info),
    params,
    ...rest,
    lab: { tables: LAB_TABLES, traceStats: LAB_TRACE_STATS, phases: LAB_PHASES, busySlices: LAB_BUSY_SLICES, calmAgainSlices: LAB_CALM_AGAIN_SLICES },
    findings: findings(result),
  };
}
