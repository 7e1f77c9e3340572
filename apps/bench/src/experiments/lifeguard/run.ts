import type { Simulation } from '@swim/transport-memory';
import { quantile } from '../../stats.js';
import { silent, type ProgressHooks } from '../hooks.js';
import { convergedCluster, pickMembers, runSeeds, runUntilOrLimit, wallNow } from '../setup.js';
import type { IntervalCellKey, LifeguardParams } from './params.js';
import { lifeguardProfileConfig, type LifeguardProfile } from './profiles.js';
import { classifyFailure, percentOfSwim } from './rules.js';

/** Salt of the generator that picks the anomalous members (apart from the simulation's own stream). */
const ANOMALY_SALT = 0x11fe;
/** Interval runs: after the last cycle, watch until every member sees every other alive, at most this long. */
export const INTERVAL_TAIL_MS = 60_000;
/** How often recovery is checked, ms of virtual time. */
const CHECK_MS = 250;

/** False positives and load counted over one run. */
export interface Counts {
  /** Dead events about a member never anomalous, at any member. */
  readonly fp: number;
  /** Of those, at a member never anomalous either. */
  readonly fpMinus: number;
  /** Of `fp`, the verdicts of a member's own suspicion timer (the rest were learned from gossip). */
  readonly fpVerdicts: number;
  /** Of `fpMinus`, the verdicts of a healthy member's own suspicion timer. */
  readonly fpMinusVerdicts: number;
  /** Packets sent (a compound packet counts once) plus streams opened. */
  readonly messages: number;
  /** Packet bytes plus stream bytes. */
  readonly bytes: number;
}

export interface ThresholdRun extends Counts {
  readonly seed: number;
  readonly anomalous: readonly string[];
  /** Per anomalous member declared dead by some healthy member: ms from the anomaly's start to the first such verdict. */
  readonly firstDetectMs: readonly number[];
  /** Per anomalous member every healthy member declared dead: ms from the anomaly's start to the last of them. */
  readonly fullDisseminationMs: readonly number[];
  /** Ms from the anomaly's start until every member saw every other alive; undefined if not within the window. */
  readonly recoveredMs: number | undefined;
  readonly wallMs: number;
}

export interface IntervalRun extends Counts {
  readonly seed: number;
  readonly anomalous: readonly string[];
  readonly cycles: number;
  /** Simulated ms from the first anomaly to the end of the watch. */
  readonly simulatedMs: number;
  readonly wallMs: number;
}

interface RunSpec {
  readonly nodes: number;
  readonly concurrency: number;
  readonly profile: LifeguardProfile;
  readonly seed: number;
  readonly quiesceMs: number;
}

/** A converged cluster, quiet for `quiesceMs`, with its anomalous members picked and counting started. */
function prepare(spec: RunSpec) {
  const config = lifeguardProfileConfig(spec.profile);
  const { sim, names } = convergedCluster({ seed: spec.seed, nodes: spec.nodes, config, settleMs: spec.quiesceMs });
  const anomalous = pickMembers(spec.seed, names, spec.concurrency, ANOMALY_SALT);
  const anomalousSet = new Set(anomalous);
  const healthy = names.filter((n) => !anomalousSet.has(n));
  sim.network.resetCounters();
  const counter = countFailures(sim, anomalousSet);
  return { sim, anomalous, anomalousSet, healthy, counter };
}

/** Counts FP / FP- as dead events arrive; `load()` reads the network's totals since the counters were reset. */
function countFailures(sim: Simulation, anomalous: ReadonlySet<string>) {
  let fp = 0;
  let fpMinus = 0;
  let fpVerdicts = 0;
  let fpMinusVerdicts = 0;
  const deathsOfAnomalous: Array<{ at: number; observer: string; subject: string }> = [];
  const stop = sim.onEvent((event) => {
    if (event.kind !== 'dead') return;
    const c = classifyFailure(event.observer, event.subject, anomalous);
    if (c.fp) {
      fp++;
      if (c.fpMinus) fpMinus++;
      if (event.cause?.kind === 'timeout') {
        fpVerdicts++;
        if (c.fpMinus) fpMinusVerdicts++;
      }
    } else if (!anomalous.has(event.observer)) {
      deathsOfAnomalous.push({ at: event.at, observer: event.observer, subject: event.subject });
    }
  });
  return {
    deathsOfAnomalous,
    stop,
    counts(): Counts {
      const c = sim.network.counters;
      return { fp, fpMinus, fpVerdicts, fpMinusVerdicts, messages: c.packetsSent + c.streamsOpened, bytes: c.bytesSent + c.streamBytes };
    },
  };
}

/**
 * The paper's Threshold experiment, one run: quiet, C members anomalous for D ms in lock-step,
 * then until every member sees every other alive or `windowMs` after the anomaly began.
 */
export function thresholdRun(spec: RunSpec & { readonly anomalyMs: number; readonly windowMs: number }): ThresholdRun {
  const started = wallNow();
  const { sim, anomalous, healthy, counter } = prepare(spec);
  const t0 = sim.now;
  sim.blackout(anomalous);
  sim.runFor(spec.anomalyMs);
  sim.endBlackout(anomalous);
  const recovered = runUntilOrLimit(sim, () => sim.converged(), Math.max(0, spec.windowMs - spec.anomalyMs), CHECK_MS);
  const recoveredMs = recovered ? sim.now - t0 : undefined;
  counter.stop();

  const firstDetectMs: number[] = [];
  const fullDisseminationMs: number[] = [];
  for (const subject of anomalous) {
    const firstBy = new Map<string, number>();
    for (const d of counter.deathsOfAnomalous) {
      if (d.subject === subject && !firstBy.has(d.observer)) firstBy.set(d.observer, d.at - t0);
    }
    if (firstBy.size === 0) continue;
    firstDetectMs.push(Math.min(...firstBy.values()));
    if (healthy.every((h) => firstBy.has(h))) fullDisseminationMs.push(Math.max(...firstBy.values()));
  }
  return { seed: spec.seed, anomalous, firstDetectMs, fullDisseminationMs, recoveredMs, ...counter.counts(), wallMs: wallNow() - started };
}

/**
 * The paper's Interval experiment, one run: quiet, then anomaly D / normal I cycles (the same C
 * members each time) until at least `windowMs` have passed, then until every member sees every
 * other alive (at most {@link INTERVAL_TAIL_MS}), so that a late false positive still counts.
 */
export function intervalRun(spec: RunSpec & { readonly anomalyMs: number; readonly normalMs: number; readonly windowMs: number }): IntervalRun {
  const started = wallNow();
  const { sim, anomalous, counter } = prepare(spec);
  const t0 = sim.now;
  let cycles = 0;
  while (sim.now - t0 < spec.windowMs) {
    sim.blackout(anomalous);
    sim.runFor(spec.anomalyMs);
    sim.endBlackout(anomalous);
    sim.runFor(spec.normalMs);
    cycles++;
  }
  runUntilOrLimit(sim, () => sim.converged(), INTERVAL_TAIL_MS, CHECK_MS);
  counter.stop();
  return { seed: spec.seed, anomalous, cycles, simulatedMs: sim.now - t0, ...counter.counts(), wallMs: wallNow() - started };
}

export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
}

export function percentiles(values: readonly number[]): Percentiles {
  return { p50: quantile(values, 0.5), p99: quantile(values, 0.99), p999: quantile(values, 0.999) };
}

export interface ThresholdCell {
  readonly profile: LifeguardProfile;
  readonly concurrency: number;
  readonly anomalyMs: number;
  readonly runs: readonly ThresholdRun[];
}

export interface IntervalCell extends IntervalCellKey {
  readonly profile: LifeguardProfile;
  readonly runs: readonly IntervalRun[];
}

/** One profile's totals: FP, FP-, load from the Interval runs; latency (seconds) from the Threshold runs. */
export interface ProfileTotals extends Counts {
  readonly profile: LifeguardProfile;
  readonly firstDetect: Percentiles;
  readonly fullDissemination: Percentiles;
  /** Latency samples behind the percentiles. */
  readonly detections: number;
  readonly disseminations: number;
  readonly intervalRuns: number;
  readonly thresholdRuns: number;
  /** FP, FP-, messages and bytes as % of the swim profile's (NaN without a swim baseline). */
  readonly percentOfSwim: { readonly fp: number; readonly fpMinus: number; readonly messages: number; readonly bytes: number };
}

export interface LifeguardResult {
  readonly experiment: 'lifeguard';
  readonly params: LifeguardParams;
  readonly totals: readonly ProfileTotals[];
  readonly threshold: readonly ThresholdCell[];
  readonly interval: readonly IntervalCell[];
}

export function thresholdCells(params: LifeguardParams): Array<{ concurrency: number; anomalyMs: number; profile: LifeguardProfile }> {
  if (!params.phases.includes('threshold')) return [];
  return params.concurrency.flatMap((concurrency) => params.anomalyMs.flatMap((anomalyMs) => params.profiles.map((profile) => ({ concurrency, anomalyMs, profile }))));
}

export function intervalCells(params: LifeguardParams): Array<IntervalCellKey & { profile: LifeguardProfile }> {
  if (!params.phases.includes('interval')) return [];
  const keys =
    params.intervalCells ??
    params.concurrency.flatMap((concurrency) => params.anomalyMs.flatMap((anomalyMs) => params.normalMs.map((normalMs) => ({ concurrency, anomalyMs, normalMs }))));
  return keys.flatMap((key) => params.profiles.map((profile) => ({ ...key, profile })));
}

export function lifeguardWork(params: LifeguardParams): { cells: number; runs: number } {
  const cells = thresholdCells(params).length + intervalCells(params).length;
  return { cells, runs: cells * params.runs };
}

/** Every cell × `runs` runs; seeds `seed … seed + runs − 1`, the same for every profile. */
export function runLifeguard(params: LifeguardParams, hooks: ProgressHooks = silent): LifeguardResult {
  for (const c of [...params.concurrency, ...(params.intervalCells ?? []).map((k) => k.concurrency)]) {
    if (c >= params.nodes - 1) throw new RangeError(`cannot make ${c} of ${params.nodes} members anomalous and keep two healthy`);
  }
  const base = { nodes: params.nodes, quiesceMs: params.quiesceMs, windowMs: params.windowMs };
  const threshold: ThresholdCell[] = [];
  for (const cell of thresholdCells(params)) {
    hooks.startCell(`threshold C=${cell.concurrency} D=${cell.anomalyMs}ms ${cell.profile}`);
    const runs = runSeeds(params.seed, params.runs).map((seed) => {
      const run = thresholdRun({ ...base, ...cell, seed });
      hooks.runDone();
      return run;
    });
    threshold.push({ ...cell, runs });
    hooks.cellDone(`detected ${runs.map((r) => r.firstDetectMs.length).join(', ')}, FP ${runs.map((r) => r.fp).join(', ')}`);
  }
  const interval: IntervalCell[] = [];
  for (const cell of intervalCells(params)) {
    hooks.startCell(`interval C=${cell.concurrency} D=${cell.anomalyMs}ms I=${cell.normalMs}ms ${cell.profile}`);
    const runs = runSeeds(params.seed, params.runs).map((seed) => {
      const run = intervalRun({ ...base, ...cell, seed });
      hooks.runDone();
      return run;
    });
    interval.push({ ...cell, runs });
    hooks.cellDone(`FP ${runs.map((r) => r.fp).join(', ')}, FP- ${runs.map((r) => r.fpMinus).join(', ')}`);
  }
  return { experiment: 'lifeguard', params, totals: profileTotals(params.profiles, threshold, interval), threshold, interval };
}

/** Sums and pooled latency percentiles per profile, and each as % of the swim profile's. */
export function profileTotals(profiles: readonly LifeguardProfile[], threshold: readonly ThresholdCell[], interval: readonly IntervalCell[]): ProfileTotals[] {
  const raw = profiles.map((profile) => {
    const iRuns = interval.filter((c) => c.profile === profile).flatMap((c) => c.runs);
    const tRuns = threshold.filter((c) => c.profile === profile).flatMap((c) => c.runs);
    const total = (key: keyof Counts) => iRuns.reduce((s, r) => s + r[key], 0);
    const first = tRuns.flatMap((r) => r.firstDetectMs).map((ms) => ms / 1000);
    const full = tRuns.flatMap((r) => r.fullDisseminationMs).map((ms) => ms / 1000);
    return {
      profile,
      fp: total('fp'),
      fpMinus: total('fpMinus'),
      fpVerdicts: total('fpVerdicts'),
      fpMinusVerdicts: total('fpMinusVerdicts'),
      messages: total('messages'),
      bytes: total('bytes'),
      firstDetect: percentiles(first),
      fullDissemination: percentiles(full),
      detections: first.length,
      disseminations: full.length,
      intervalRuns: iRuns.length,
      thresholdRuns: tRuns.length,
    };
  });
  const swim = raw.find((t) => t.profile === 'swim');
  return raw.map((t) => ({
    ...t,
    percentOfSwim: {
      fp: percentOfSwim(t.fp, swim?.fp ?? Number.NaN),
      fpMinus: percentOfSwim(t.fpMinus, swim?.fpMinus ?? Number.NaN),
      messages: percentOfSwim(t.messages, swim?.messages ?? Number.NaN),
      bytes: percentOfSwim(t.bytes, swim?.bytes ?? Number.NaN),
    },
  }));
}
