import { max, mean, median, min, quantile } from '../../stats.js';
import { silent, type ProgressHooks } from '../hooks.js';
import { runSeeds, wallNow } from '../setup.js';
import { BUSY, CALM, HEARTBEAT_INTERVAL_MS, generateBeats, makeTrace, meanDelayMs, streamSeed, type Regime, type Segment, type Trace } from './model.js';
import { alarmTimes, countAlarms, horizonAt, replay, score, type Replay } from './score.js';
import { ADAPTATION_SETTINGS, build, specJson, TABLE_SETTINGS, type DetectorSetting } from './settings.js';

/**
 * The detector lab (docs/corrections-study.md): seeded heartbeat traces on a calm and a busy
 * network, every detector setting of the lab's tables scored on them (false alarms per hour, mean
 * and p99 detection time), and a calm → busy → calm trace that shows how fast each detector adapts.
 *
 * The lab scores one 4-hour trace per regime; we score `runs` independent 4-hour traces per
 * regime (trace seeds derived from seed, seed + 1, …) and pool them, and also report the spread of
 * the per-trace rates, so the lab's single-trace figures can be read against the spread of
 * single traces here.
 */

export interface DetectorsParams {
  /** Independent traces per regime, and calm → busy → calm traces. */
  readonly runs: number;
  /** Length of each calm or busy trace, simulated hours (the lab: 4). */
  readonly hours: number;
  readonly seed: number;
}

export const DETECTORS_DEFAULTS: DetectorsParams = { runs: 500, hours: 4, seed: 1 };
export const DETECTORS_QUICK: DetectorsParams = { runs: 10, hours: 4, seed: 1 };

/** As the lab: crashes per trace, and the scored window (skip the first 120 s and the last 60 s). */
export const CRASHES_PER_TRACE = 400;
export const SCORE_START_MS = 120_000;
export const SCORE_END_MARGIN_MS = 60_000;
/** The adaptation trace: one hour per phase, 10-minute slices, 300 crashes per slice. */
export const PHASE_MS = 3_600_000;
export const SLICE_MS = 600_000;
export const SLICES_PER_PHASE = 6;
export const SLICE_CRASHES = 300;
/** Horizon samples for the chart. */
export const HORIZON_SAMPLE_MS = 30_000;

const SALTS = { calm: 0xca1, busy: 0xb05, statsCalm: 0x5ca1, statsBusy: 0x5b05, switch: 0x5e1, crash: 0xc4a5 } as const;

export interface TraceStats {
  readonly regime: string;
  /** One-hour traces measured (one per run). */
  readonly traces: number;
  /** Per one-hour trace: heartbeats counted (of 3,600), median delay of the counted ones (ms), longest silence and 99.9th percentile of silences (s). Median over traces, and [min, max]. */
  readonly counted: Spread;
  readonly medianDelayMs: Spread;
  readonly longestSilenceS: Spread;
  readonly p999SilenceS: Spread;
  /** Over every heartbeat of those traces, against the parameters. */
  readonly lossRate: number;
  readonly lossParameter: number;
  /** Mean link delay (arrival − release, before reordering), ms, and the log-normal mean e^(σ²/2)·median. */
  readonly meanDelayMs: number;
  readonly meanDelayParameterMs: number;
  readonly stallsPerHour: number;
  readonly stallsPerHourParameter: number;
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export interface DetectorRow {
  readonly key: string;
  readonly label: string;
  readonly spec: Record<string, unknown>;
  /** False alarms over every trace, and the hours scored. */
  readonly alarms: number;
  readonly hours: number;
  readonly perHour: number;
  /** Per trace (one per run): false alarms per hour, p10 / median / p90 / max, and how many traces had none. */
  readonly perTrace: { readonly p10: number; readonly median: number; readonly p90: number; readonly max: number; readonly zeroTraces: number; readonly traces: number };
  /** False alarms per hour of each trace, in run order (to place a single-trace figure among them). */
  readonly perTraceRates: readonly number[];
  /** p99 detection time of each trace's crashes by the lab's rule, s: 10th and 90th percentile over traces. */
  readonly perTraceP99LabRule: { readonly p10: number; readonly p90: number };
  /** Detection time over every crash of every trace, s. */
  readonly crashes: number;
  readonly meanDetectionS: number;
  readonly p99DetectionS: number;
  readonly maxDetectionS: number;
  /** The same crashes under the lab's detection rule (see score.ts), s. */
  readonly labRule: { readonly meanDetectionS: number; readonly p99DetectionS: number };
  /** Silence tolerated after the last heartbeat of the trace, s: median over traces. */
  readonly toleratesS: number;
  /** Heartbeats per false alarm (scored hours × 3,600 / alarms); Infinity without alarms. */
  readonly heartbeatsPerAlarm: number;
}

export interface RegimeTable {
  readonly regime: 'calm' | 'busy';
  readonly hoursPerTrace: number;
  /** The longest silence between two counted heartbeats in any of the traces (starting in the scored window), s. */
  readonly longestSilenceS: number;
  readonly rows: readonly DetectorRow[];
}

export interface AdaptationRow {
  readonly key: string;
  readonly label: string;
  readonly spec: Record<string, unknown>;
  /** Per phase (calm, busy, calm again): false alarms per trace (mean, min, max, traces with any) and mean detection, s. */
  readonly phases: ReadonlyArray<{ readonly name: string; readonly meanAlarms: number; readonly minAlarms: number; readonly maxAlarms: number; readonly tracesWithAlarms: number; readonly meanDetectionS: number }>;
  /** False alarms per trace in each 10 minutes after the switch to busy (mean over traces). */
  readonly busySliceAlarms: readonly number[];
  /** Mean detection time (s) in each 10 minutes after the switch back to calm. */
  readonly calmAgainSliceDetectionS: readonly number[];
  /** Median over traces of the time from the switch to the last false alarm of the busy hour, minutes (traces with any alarm); NaN if none. */
  readonly lastBusyAlarmMin: number;
  /** Minutes after each switch until the median horizon covers 90% of the way to its new level; 0 when it does not move (under 50 ms). */
  readonly adaptToBusyMin: number;
  readonly adaptToCalmMin: number;
  /** Median horizon over the last 10 minutes of each phase, s. */
  readonly horizonLevelsS: readonly number[];
  /** Standard deviation of the horizon over the busy hour's last 40 minutes (how noisy it is), s: median over traces. */
  readonly busyHorizonJitterS: number;
  /** Horizon (s) every 30 s: the first trace, and the median over traces. */
  readonly horizonFirstTraceS: readonly number[];
  readonly horizonMedianS: readonly number[];
}

export interface Adaptation {
  readonly traces: number;
  readonly phaseMs: number;
  readonly sampleMs: number;
  readonly rows: readonly AdaptationRow[];
}

export interface DetectorsResult {
  readonly experiment: 'detectors';
  readonly params: DetectorsParams;
  readonly model: { readonly intervalMs: number; readonly regimes: readonly Regime[]; readonly stats: readonly TraceStats[] };
  readonly tables: readonly RegimeTable[];
  readonly adaptation: Adaptation;
}

export function detectorsWork(params: DetectorsParams): { cells: number; runs: number } {
  return { cells: 3, runs: 3 * params.runs };
}

function spread(values: readonly number[]): Spread {
  return { median: median(values), min: min(values), max: max(values) };
}

/** Step 1 of the lab: what one hour of each network looks like, and whether the model matches its parameters. */
export function traceStats(regime: Regime, seeds: readonly number[], salt: number): TraceStats {
  const counted: number[] = [];
  const medianDelay: number[] = [];
  const longest: number[] = [];
  const p999: number[] = [];
  let sent = 0;
  let lost = 0;
  let delaySum = 0;
  let delays = 0;
  let stalls = 0;
  for (const seed of seeds) {
    const segments = [{ regime, durationMs: PHASE_MS }];
    const { beats, stalls: s, sentCount } = generateBeats(segments, { seed: streamSeed(seed, salt) });
    sent += sentCount;
    lost += sentCount - beats.length;
    stalls += s.length;
    for (const b of beats) {
      delaySum += b.arrivedMs - b.releasedMs;
      delays++;
    }
    const trace = makeTrace(segments, { seed: streamSeed(seed, salt) });
    const gaps: number[] = [];
    const own: number[] = [];
    for (let i = 0; i < trace.arrived.length; i++) {
      own.push(trace.arrived[i]! - trace.sent[i]!);
      if (i > 0) gaps.push((trace.arrived[i]! - trace.arrived[i - 1]!) / 1000);
    }
    counted.push(trace.arrived.length);
    medianDelay.push(median(own));
    longest.push(max(gaps));
    p999.push(quantile(gaps, 0.999));
  }
  const hours = (seeds.length * PHASE_MS) / 3_600_000;
  return {
    regime: regime.name,
    traces: seeds.length,
    counted: spread(counted),
    medianDelayMs: spread(medianDelay),
    longestSilenceS: spread(longest),
    p999SilenceS: spread(p999),
    lossRate: lost / sent,
    lossParameter: regime.loss,
    meanDelayMs: delaySum / delays,
    meanDelayParameterMs: meanDelayMs(regime),
    stallsPerHour: stalls / hours,
    stallsPerHourParameter: regime.stallEveryMs > 0 ? 3_600_000 / (regime.stallEveryMs + (regime.stallMinMs + regime.stallMaxMs) / 2) : 0,
  };
}

interface RowAccumulator {
  alarms: number;
  hours: number;
  perTrace: number[];
  detections: number[];
  labRule: number[];
  p99LabRule: number[];
  tolerates: number[];
}

/** One regime's table: every setting on `runs` traces of `hours` each. */
export function regimeTable(regime: Regime, params: DetectorsParams, settings: readonly DetectorSetting[], hooks: ProgressHooks = silent): RegimeTable {
  const name = regime.name === 'busy' ? 'busy' : 'calm';
  const salt = name === 'busy' ? SALTS.busy : SALTS.calm;
  const acc: RowAccumulator[] = settings.map(() => ({ alarms: 0, hours: 0, perTrace: [], detections: [], labRule: [], p99LabRule: [], tolerates: [] }));
  const durationMs = params.hours * 3_600_000;
  const window = { startMs: SCORE_START_MS, endMs: durationMs - SCORE_END_MARGIN_MS };
  if (!(window.endMs > window.startMs)) throw new RangeError(`hours: a trace must be longer than 3 minutes, got ${params.hours} h`);
  let longest = 0;
  for (const seed of runSeeds(params.seed, params.runs)) {
    const trace = makeTrace([{ regime, durationMs }], { seed: streamSeed(seed, salt) });
    for (let i = 1; i < trace.arrived.length; i++) {
      if (trace.arrived[i - 1]! >= window.startMs && trace.arrived[i - 1]! < window.endMs) longest = Math.max(longest, trace.arrived[i]! - trace.arrived[i - 1]!);
    }
    settings.forEach((setting, i) => {
      const r = replay(build(setting), trace);
      // The same crash moments for every detector on this trace, as the lab.
      const s = score(r, window, CRASHES_PER_TRACE, streamSeed(seed, SALTS.crash + salt));
      const a = acc[i]!;
      a.alarms += s.alarms;
      a.hours += s.hours;
      a.perTrace.push(s.alarms / s.hours);
      for (const d of s.detections) a.detections.push(d / 1000);
      for (const d of s.labRule) a.labRule.push(d / 1000);
      a.p99LabRule.push(quantile(s.labRule, 0.99) / 1000);
      a.tolerates.push(horizonAt(r, r.arrived.length - 1) / 1000);
    });
    hooks.runDone();
  }
  const rows = settings.map((setting, i): DetectorRow => {
    const a = acc[i]!;
    return {
      key: setting.key,
      label: setting.label,
      spec: specJson(setting.spec),
      alarms: a.alarms,
      hours: a.hours,
      perHour: a.alarms / a.hours,
      perTrace: {
        p10: quantile(a.perTrace, 0.1),
        median: median(a.perTrace),
        p90: quantile(a.perTrace, 0.9),
        max: max(a.perTrace),
        zeroTraces: a.perTrace.filter((v) => v === 0).length,
        traces: a.perTrace.length,
      },
      perTraceRates: a.perTrace,
      perTraceP99LabRule: { p10: quantile(a.p99LabRule, 0.1), p90: quantile(a.p99LabRule, 0.9) },
      crashes: a.detections.length,
      meanDetectionS: mean(a.detections),
      p99DetectionS: quantile(a.detections, 0.99),
      maxDetectionS: max(a.detections),
      labRule: { meanDetectionS: mean(a.labRule), p99DetectionS: quantile(a.labRule, 0.99) },
      toleratesS: median(a.tolerates),
      heartbeatsPerAlarm: a.alarms === 0 ? Number.POSITIVE_INFINITY : (a.hours * 3600) / a.alarms,
    };
  });
  return { regime: name, hoursPerTrace: params.hours, longestSilenceS: longest / 1000, rows };
}

/** Horizon (ms) in force at each sample time: after the last heartbeat that arrived by then. */
function horizonSamples(r: Replay, durationMs: number, stepMs: number): number[] {
  const out: number[] = [];
  let k = -1;
  for (let t = 0; t <= durationMs; t += stepMs) {
    while (k + 1 < r.arrived.length && r.arrived[k + 1]! <= t) k++;
    out.push(k < 0 ? Number.NaN : horizonAt(r, k));
  }
  return out;
}

function stdDeviation(values: readonly number[]): number {
  const m = mean(values);
  return Math.sqrt(mean(values.map((v) => (v - m) * (v - m))));
}

/** Minutes after `switchIndex` until `series` covers 90% of the way from `from` to `to`. */
function adaptMinutes(series: readonly number[], switchIndex: number, endIndex: number, from: number, to: number, stepMs: number): number {
  if (Math.abs(to - from) < 50) return 0;
  for (let i = switchIndex; i < endIndex; i++) {
    if ((series[i]! - from) / (to - from) >= 0.9) return ((i - switchIndex) * stepMs) / 60_000;
  }
  return Number.NaN;
}

/** The calm → busy → calm trace of the lab's step 5, on `runs` traces. */
export function adaptation(params: DetectorsParams, settings: readonly DetectorSetting[], hooks: ProgressHooks = silent): Adaptation {
  const segments: Segment[] = [
    { regime: CALM, durationMs: PHASE_MS },
    { regime: BUSY, durationMs: PHASE_MS },
    { regime: CALM, durationMs: PHASE_MS },
  ];
  const durationMs = 3 * PHASE_MS;
  const phases = [
    { name: 'calm', startMs: SCORE_START_MS, endMs: PHASE_MS },
    { name: 'busy', startMs: PHASE_MS, endMs: 2 * PHASE_MS },
    { name: 'calm again', startMs: 2 * PHASE_MS, endMs: durationMs - SCORE_END_MARGIN_MS },
  ];
  type Acc = { phaseAlarms: number[][]; phaseDetections: number[][]; busySlices: number[]; calmSlices: number[][]; lastAlarm: number[]; samples: number[][]; jitter: number[] };
  const acc: Acc[] = settings.map(() => ({
    phaseAlarms: phases.map(() => []),
    phaseDetections: phases.map(() => []),
    busySlices: new Array<number>(SLICES_PER_PHASE).fill(0),
    calmSlices: Array.from({ length: SLICES_PER_PHASE }, () => []),
    lastAlarm: [],
    samples: [],
    jitter: [],
  }));
  const seeds = runSeeds(params.seed, params.runs);
  for (const seed of seeds) {
    const trace: Trace = makeTrace(segments, { seed: streamSeed(seed, SALTS.switch) });
    settings.forEach((setting, i) => {
      const a = acc[i]!;
      const r = replay(build(setting), trace);
      const alarms = alarmTimes(r);
      phases.forEach((phase, p) => {
        const s = score(r, phase, CRASHES_PER_TRACE, streamSeed(seed, SALTS.crash + SALTS.switch + p), alarms);
        a.phaseAlarms[p]!.push(s.alarms);
        for (const d of s.detections) a.phaseDetections[p]!.push(d / 1000);
      });
      for (let b = 0; b < SLICES_PER_PHASE; b++) {
        a.busySlices[b]! += countAlarms(alarms, PHASE_MS + b * SLICE_MS, PHASE_MS + (b + 1) * SLICE_MS);
        const slice = { startMs: 2 * PHASE_MS + b * SLICE_MS, endMs: 2 * PHASE_MS + (b + 1) * SLICE_MS };
        const s = score(r, slice, SLICE_CRASHES, streamSeed(seed, SALTS.crash + SALTS.switch + 10 + b), alarms);
        for (const d of s.detections) a.calmSlices[b]!.push(d / 1000);
      }
      const busyAlarms = alarms.filter((t) => t >= PHASE_MS && t < 2 * PHASE_MS);
      if (busyAlarms.length > 0) a.lastAlarm.push((busyAlarms[busyAlarms.length - 1]! - PHASE_MS) / 60_000);
      const samples = horizonSamples(r, durationMs, HORIZON_SAMPLE_MS);
      a.samples.push(samples);
      const busyTail = samples.slice((PHASE_MS + 20 * 60_000) / HORIZON_SAMPLE_MS, (2 * PHASE_MS) / HORIZON_SAMPLE_MS);
      a.jitter.push(stdDeviation(busyTail) / 1000);
    });
    hooks.runDone();
  }

  const perPhase = PHASE_MS / HORIZON_SAMPLE_MS;
  const tail = (10 * 60_000) / HORIZON_SAMPLE_MS;
  const rows = settings.map((setting, i): AdaptationRow => {
    const a = acc[i]!;
    const count = a.samples[0]!.length;
    const medianSeries = Array.from({ length: count }, (_, t) => median(a.samples.map((s) => s[t]!).filter((v) => !Number.isNaN(v))));
    const level = (phase: number) => median(medianSeries.slice((phase + 1) * perPhase - tail, (phase + 1) * perPhase));
    const levels = [level(0), level(1), level(2)];
    return {
      key: setting.key,
      label: setting.label,
      spec: specJson(setting.spec),
      phases: phases.map((phase, p) => ({
        name: phase.name,
        meanAlarms: mean(a.phaseAlarms[p]!),
        minAlarms: min(a.phaseAlarms[p]!),
        maxAlarms: max(a.phaseAlarms[p]!),
        tracesWithAlarms: a.phaseAlarms[p]!.filter((n) => n > 0).length,
        meanDetectionS: mean(a.phaseDetections[p]!),
      })),
      busySliceAlarms: a.busySlices.map((n) => n / seeds.length),
      calmAgainSliceDetectionS: a.calmSlices.map((d) => mean(d)),
      lastBusyAlarmMin: a.lastAlarm.length === 0 ? Number.NaN : median(a.lastAlarm),
      adaptToBusyMin: adaptMinutes(medianSeries, perPhase, 2 * perPhase, levels[0]!, levels[1]!, HORIZON_SAMPLE_MS),
      adaptToCalmMin: adaptMinutes(medianSeries, 2 * perPhase, 3 * perPhase, levels[1]!, levels[2]!, HORIZON_SAMPLE_MS),
      horizonLevelsS: levels.map((v) => v / 1000),
      busyHorizonJitterS: median(a.jitter),
      horizonFirstTraceS: a.samples[0]!.map((v) => v / 1000),
      horizonMedianS: medianSeries.map((v) => v / 1000),
    };
  });
  return { traces: seeds.length, phaseMs: PHASE_MS, sampleMs: HORIZON_SAMPLE_MS, rows };
}

export function runDetectors(params: DetectorsParams, hooks: ProgressHooks = silent): DetectorsResult {
  if (!(Number.isInteger(params.runs) && params.runs >= 1)) throw new RangeError(`runs must be an integer >= 1, got ${params.runs}`);
  const seeds = runSeeds(params.seed, params.runs);
  const tables: RegimeTable[] = [];
  const stats: TraceStats[] = [];
  for (const regime of [CALM, BUSY]) {
    const started = wallNow();
    hooks.startCell(`${regime.name}: ${TABLE_SETTINGS.length} detectors × ${params.runs} traces of ${params.hours} h`);
    stats.push(traceStats(regime, seeds, regime === CALM ? SALTS.statsCalm : SALTS.statsBusy));
    const table = regimeTable(regime, params, TABLE_SETTINGS, hooks);
    tables.push(table);
    const row = (key: string) => table.rows.find((r) => r.key === key)!;
    hooks.cellDone(
      `fixed 1.5 s ${row('fixed-1.5').perHour.toFixed(1)}/h, phi 8 no pause ${row('phi-8-pause-0').perHour.toFixed(1)}/h, ` +
        `phi 8 1 s pause ${row('phi-8-pause-1').perHour.toFixed(2)}/h (mean detection ${row('phi-8-pause-1').meanDetectionS.toFixed(2)} s) in ${((wallNow() - started) / 1000).toFixed(1)} s`,
    );
  }
  hooks.startCell(`calm → busy → calm: ${ADAPTATION_SETTINGS.length} detectors × ${params.runs} traces of 3 h`);
  const adapt = adaptation(params, ADAPTATION_SETTINGS, hooks);
  const w1000 = adapt.rows.find((r) => r.key === 'phi-8-pause-1')!;
  const w100 = adapt.rows.find((r) => r.key === 'phi-8-pause-1-window-100')!;
  hooks.cellDone(`back to calm: horizon adapts in ${w1000.adaptToCalmMin.toFixed(1)} min (window 1,000), ${w100.adaptToCalmMin.toFixed(1)} min (window 100)`);
  return {
    experiment: 'detectors',
    params,
    model: { intervalMs: HEARTBEAT_INTERVAL_MS, regimes: [CALM, BUSY], stats },
    tables,
    adaptation: adapt,
  };
}
