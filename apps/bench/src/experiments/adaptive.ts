import { createRng, presets, randomFloat, randomInt, type ProbeEffect, type Rng, type SwimConfig } from '@swim/core';
import { logNormalLatency, Simulation, uniformLatency, type LatencyModel } from '@swim/transport-memory';
import { summarize, type Summary } from '../stats.js';
import { silent, type ProgressHooks } from './hooks.js';
import { CONVERGE_LIMIT_MS, pickMembers, runSeeds, runUntilOrLimit, SETTLE_MS, wallNow } from './setup.js';

/**
 * Adaptive probe timeouts (`probeTimeoutMode: 'adaptive'`) against the fixed ones, on a LAN and on
 * WAN-like networks. Per run: converge, warm up (so that every member has RTTs of most others:
 * a member probes a given peer about once per pass, i.e. once per n probe intervals), then count
 * false suspicions and false deaths over a measured window in which nobody fails, then crash some
 * members and time the first dead verdict about each.
 *
 * Networks:
 * - `lan`: the simulator's default, one-way delay uniform in [1, 5) ms; nothing else.
 * - `wan`: one-way delay log-normal, median 70 ms and sigma 0.5 (RTT median about 150 ms), with a
 *   heavy tail: 1% of packets take a Pareto(100 ms, 1.5) extra delay, capped at 3 s (queueing,
 *   retransmission). Plus occasional member stalls through the network's blackout fault (every
 *   packet to or from the member is held and delivered when the stall ends; its streams hang): a
 *   random live member stalls for 1-3 s, on average every 30 s somewhere in the cluster.
 * - `wan-loss`: `wan` with 2% of packets lost (streams are not): direct acks go missing, so the
 *   indirect phase, whose start the adaptive timeout moves, has to do its work far more often.
 */

export const ADAPTIVE_PROFILES = ['fixed-500', 'adaptive', 'wan', 'wan-adaptive'] as const;
export type AdaptiveProfile = (typeof ADAPTIVE_PROFILES)[number];
export const NETWORKS = ['lan', 'wan', 'wan-loss'] as const;
export type NetworkName = (typeof NETWORKS)[number];

export function isAdaptiveProfile(name: string): name is AdaptiveProfile {
  return (ADAPTIVE_PROFILES as readonly string[]).includes(name);
}

/** The `lan` and `wan` presets as they are, and each with the adaptive probe timeout. */
export function adaptiveProfileConfig(name: AdaptiveProfile): SwimConfig {
  switch (name) {
    case 'fixed-500':
      return presets.lan();
    case 'adaptive':
      return Object.freeze({ ...presets.lan(), probeTimeoutMode: 'adaptive' });
    case 'wan':
      return presets.wan();
    case 'wan-adaptive':
      return Object.freeze({ ...presets.wan(), probeTimeoutMode: 'adaptive' });
  }
}

export function adaptiveProfileDescription(name: AdaptiveProfile): string {
  switch (name) {
    case 'fixed-500':
      return '`lan` preset (our defaults): probe every 1 s, wait 500 ms for the direct ack';
    case 'adaptive':
      return '`lan` preset with the adaptive probe timeout: per-member wait in [100, 500] ms from the RTTs';
    case 'wan':
      return '`wan` preset: probe every 5 s, wait 3 s for the direct ack, suspicion multiplier 6';
    case 'wan-adaptive':
      return '`wan` preset with the adaptive probe timeout: per-member wait in [100, 3000] ms';
  }
}

/** The settings in which the four profiles differ. */
export const ADAPTIVE_KEYS = [
  'probeIntervalMs',
  'probeTimeoutMs',
  'probeTimeoutMode',
  'adaptiveTimeoutFloorMs',
  'adaptiveTimeoutCeilingMs',
  'adaptiveTimeoutPhi',
  'adaptiveTimeoutWindow',
  'adaptiveTimeoutMinSamples',
  'adaptiveTimeoutMinStdDevMs',
  'suspicionMult',
  'gossipIntervalMs',
  'gossipNodes',
] as const satisfies ReadonlyArray<keyof SwimConfig>;

// --- the WAN-like network ----------------------------------------------------------------------

export const WAN_MEDIAN_MS = 70;
export const WAN_SIGMA = 0.5;
/** Share of packets with a heavy-tail extra delay, its Pareto scale and shape, and its cap. */
export const WAN_TAIL = { p: 0.01, scaleMs: 100, shape: 1.5, capMs: 3000 } as const;
/** Member stalls: mean gap between stalls anywhere in the cluster, and their length range. */
export const WAN_STALLS = { meanGapMs: 30_000, minMs: 1000, maxMs: 3000 } as const;
/** A suspicion is put down to a stall if its subject, or the member that raised it, was stalled within this long before it. */
export const STALL_BLAME_MS = 6000;

/** One-way delay of the WAN-like network: log-normal body, Pareto tail on 1% of packets. */
export function wanLatency(): LatencyModel {
  const body = logNormalLatency({ medianMs: WAN_MEDIAN_MS, sigma: WAN_SIGMA });
  return (rng) => {
    const delay = body(rng);
    if (randomFloat(rng) >= WAN_TAIL.p) return delay;
    const u = 1 - randomFloat(rng); // (0, 1]
    return delay + Math.min(WAN_TAIL.capMs, WAN_TAIL.scaleMs / u ** (1 / WAN_TAIL.shape));
  };
}

/** Packet loss of the `wan-loss` network. */
export const WAN_LOSS = 0.02;

export function networkDescription(name: NetworkName): string {
  switch (name) {
    case 'lan':
      return 'one-way delay uniform in [1, 5) ms (the simulator default); no stalls';
    case 'wan-loss':
      return `as \`wan\`, and ${WAN_LOSS * 100}% of packets lost (streams are not)`;
    case 'wan':
      return (
        `one-way delay log-normal, median ${WAN_MEDIAN_MS} ms, sigma ${WAN_SIGMA} (RTT median about 150 ms); ` +
        `${WAN_TAIL.p * 100}% of packets +Pareto(${WAN_TAIL.scaleMs} ms, ${WAN_TAIL.shape}) capped at ${WAN_TAIL.capMs / 1000} s; ` +
        `member stalls (blackout fault: packets held, streams hang) of ${WAN_STALLS.minMs / 1000}-${WAN_STALLS.maxMs / 1000} s, ` +
        `one every ${WAN_STALLS.meanGapMs / 1000} s on average somewhere in the cluster`
      );
  }
}

// --- parameters and results --------------------------------------------------------------------

export interface AdaptiveParams {
  readonly nodes: readonly number[];
  readonly networks: readonly NetworkName[];
  readonly profiles: readonly AdaptiveProfile[];
  /**
   * Warm-up before anything is counted, in probe passes: passes × nodes × probe interval of
   * simulated time, so that every member has probed every other about this many times (and holds
   * that many RTTs of it) whatever the profile's probe interval.
   */
  readonly warmupPasses: number;
  /** Simulated minutes in which false suspicions and deaths are counted (nobody fails). */
  readonly minutes: number;
  /** Members crashed after the measured window, 10 s apart. */
  readonly crashes: number;
  readonly runs: number;
  readonly seed: number;
}

export const ADAPTIVE_DEFAULTS: AdaptiveParams = {
  nodes: [64, 128],
  networks: NETWORKS,
  profiles: ADAPTIVE_PROFILES,
  warmupPasses: 7,
  minutes: 20,
  crashes: 4,
  runs: 5,
  seed: 1,
};

export const ADAPTIVE_QUICK: AdaptiveParams = {
  nodes: [64],
  networks: ['wan'],
  profiles: ['fixed-500', 'adaptive'],
  warmupPasses: 6,
  minutes: 3,
  crashes: 2,
  runs: 1,
  seed: 1,
};

export const CRASH_GAP_MS = 10_000;
/** After the last crash, wait at most this long for every survivor to see every crash. */
export const CRASH_WAIT_LIMIT_MS = 400_000;
const CRASH_SALT = 0xada9;
const STALL_SALT = 0x57a1;

export interface AdaptiveCrash {
  readonly member: string;
  /** Crash to the first dead verdict by a survivor, ms; null if none within the limit. */
  readonly firstDeadMs: number | null;
  /** Crash to the last survivor's dead verdict, ms; null if some survivor never declared it. */
  readonly allDeadMs: number | null;
}

export interface AdaptiveRun {
  readonly seed: number;
  /** Distinct (member, incarnation) suspected in the measured window (everyone is alive then). */
  readonly falseSuspicions: number;
  /** Of those, suspicions about, or first raised by, a member stalled within 6 s before. */
  readonly stallSuspicions: number;
  /** Suspect events (one per observer) in the measured window. */
  readonly suspectEvents: number;
  /** Dead verdicts about members that had not crashed, by members that had not, from the start of the window to the end of the run. */
  readonly falseDeaths: number;
  /** Distinct (member, incarnation) behind `falseDeaths`. */
  readonly falseVictims: number;
  /** Member stalls started in the measured window. */
  readonly stalls: number;
  /** Probes, probes that went indirect, fallback stream pings, probes with an adaptive wait: all members, measured window. */
  readonly probes: number;
  readonly indirectProbes: number;
  readonly fallbackPings: number;
  readonly adaptiveProbes: number;
  /** Mean direct-ack wait of the window's probes, ms. */
  readonly meanTimeoutMs: number;
  /** Probes run with a health-scaled (longer) interval: a sign of missed acks and nacks. */
  readonly degradedProbes: number;
  /** Direct RTTs seen in the window: median and 99th percentile, ms. */
  readonly rttMedianMs: number;
  readonly rttP99Ms: number;
  readonly crashes: readonly AdaptiveCrash[];
  readonly convergedAtMs: number;
  readonly wallMs: number;
}

export interface AdaptiveCell {
  readonly nodes: number;
  readonly network: NetworkName;
  readonly profile: AdaptiveProfile;
  readonly runs: readonly AdaptiveRun[];
  readonly nodeHours: number;
  /** Per node-hour of measured window, over every run. */
  readonly falseSuspicionsPerNodeHour: number;
  readonly otherSuspicionsPerNodeHour: number;
  readonly falseDeaths: number;
  readonly falseVictims: number;
  /** Over every crash of every run, seconds. */
  readonly firstDead: Summary;
  readonly allDead: Summary;
  /** Crashes nobody declared dead within the limit. */
  readonly undetected: number;
  /** Share of probes that went indirect. */
  readonly indirectShare: number;
  readonly meanTimeoutMs: number;
}

export interface AdaptiveResult {
  readonly experiment: 'adaptive';
  readonly params: AdaptiveParams;
  readonly cells: readonly AdaptiveCell[];
}

// --- one run -----------------------------------------------------------------------------------

/** Stall members at random: one every `meanGapMs` on average (exponential gaps), 1-3 s each. */
function scheduleStalls(
  sim: Simulation,
  fromMs: number,
  rng: Rng,
  names: readonly string[],
  isDown: (name: string) => boolean,
  log: Array<{ member: string; from: number; to: number }>,
  untilMs: number,
): void {
  let at = fromMs;
  for (;;) {
    at += -Math.log(1 - randomFloat(rng)) * WAN_STALLS.meanGapMs;
    if (at >= untilMs) return;
    const member = names[randomInt(rng, names.length)]!;
    const length = WAN_STALLS.minMs + (WAN_STALLS.maxMs - WAN_STALLS.minMs) * randomFloat(rng);
    const from = at;
    sim.clock.schedule(from, () => {
      if (isDown(member) || sim.network.isBlackedOut(sim.addressOf(member))) return;
      log.push({ member, from, to: from + length });
      sim.blackout([member]);
      sim.clock.schedule(from + length, () => sim.endBlackout([member]));
    });
  }
}

export function adaptiveRun(options: {
  readonly nodes: number;
  readonly network: NetworkName;
  readonly profile: AdaptiveProfile;
  readonly warmupPasses: number;
  readonly minutes: number;
  readonly crashes: number;
  readonly seed: number;
  /** Uniform packet loss on top of the network model (streams are never lost). Default 0. */
  readonly loss?: number;
  /** Settings on top of the profile's (for exploring; the CLI does not set them). */
  readonly overrides?: Partial<SwimConfig>;
}): AdaptiveRun {
  const started = wallNow();
  const config = { ...adaptiveProfileConfig(options.profile), ...options.overrides };
  const sim = new Simulation({
    seed: options.seed,
    config,
    latency: options.network === 'lan' ? uniformLatency(1, 5) : wanLatency(),
  });
  const loss = (options.network === 'wan-loss' ? WAN_LOSS : 0) + (options.loss ?? 0);
  if (loss > 0) sim.setLoss(loss);
  const members = sim.startCluster(options.nodes);
  const names = members.map((m) => m.name);
  if (!runUntilOrLimit(sim, () => sim.converged(), CONVERGE_LIMIT_MS * 2, 250)) {
    throw new Error(`a cluster of ${options.nodes} did not converge on the ${options.network} network (seed ${options.seed}, ${options.profile})`);
  }
  const convergedAtMs = sim.now;
  sim.runFor(SETTLE_MS);

  const crashed = new Set<string>();
  const stalls: Array<{ member: string; from: number; to: number }> = [];
  const warmupMs = options.warmupPasses * options.nodes * config.probeIntervalMs;
  const windowStart = sim.now + warmupMs;
  const windowEnd = windowStart + options.minutes * 60_000;
  if (options.network !== 'lan') {
    // Stalls run through warm-up, window and crash phase alike (the RTT histories see them too).
    // The window's stalls come from their own generator, so every profile sees the same ones
    // however long its warm-up.
    const isDown = (n: string) => crashed.has(n);
    scheduleStalls(sim, sim.now, createRng(options.seed * 1_000_003 + STALL_SALT), names, isDown, stalls, windowStart);
    const end = windowEnd + CRASH_WAIT_LIMIT_MS + options.crashes * CRASH_GAP_MS;
    scheduleStalls(sim, windowStart, createRng(options.seed * 1_000_003 + STALL_SALT + 1), names, isDown, stalls, end);
  }

  // Warm-up: nothing counted.
  sim.runFor(warmupMs);

  // The measured window: everyone alive.
  const before = members.map((m) => ({ ...m.counters }));
  /** The first suspect event of each (subject, incarnation): usually the member whose probe failed. */
  const episodes = new Map<string, { at: number; subject: string; observer: string }>();
  let suspectEvents = 0;
  let falseDeaths = 0;
  const victims = new Set<string>();
  const crashedAt = new Map<string, number>();
  const seenDead = new Map<string, Map<string, number>>();
  const stopEvents = sim.onEvent((e) => {
    if (crashed.has(e.observer)) return;
    if (e.kind === 'suspect' && !crashed.has(e.subject) && sim.now < windowEnd) {
      suspectEvents++;
      const key = `${e.subject}@${e.incarnation}`;
      if (!episodes.has(key)) episodes.set(key, { at: e.at, subject: e.subject, observer: e.observer });
    }
    if (e.kind === 'dead') {
      if (crashed.has(e.subject)) {
        const seen = seenDead.get(e.subject)!;
        if (!seen.has(e.observer)) seen.set(e.observer, e.at);
      } else {
        falseDeaths++;
        victims.add(`${e.subject}@${e.incarnation}`);
      }
    }
  });
  let timeoutSum = 0;
  let timeoutCount = 0;
  const rtts: number[] = [];
  const onProbe = (event: Event) => {
    if (sim.now >= windowEnd) return;
    const probe = (event as CustomEvent<Omit<ProbeEffect, 'type'>>).detail;
    timeoutSum += probe.timeoutMs;
    timeoutCount++;
    if (probe.rttMs !== undefined) rtts.push(probe.rttMs);
  };
  for (const m of members) m.addEventListener('probe', onProbe);
  sim.runFor(options.minutes * 60_000);
  for (const m of members) m.removeEventListener('probe', onProbe);
  const delta = (key: 'probes' | 'indirectProbes' | 'fallbackPings' | 'adaptiveProbes' | 'degradedProbes') =>
    members.reduce((s, m, i) => s + m.counters[key] - before[i]![key], 0);
  const counts = {
    probes: delta('probes'),
    indirectProbes: delta('indirectProbes'),
    fallbackPings: delta('fallbackPings'),
    adaptiveProbes: delta('adaptiveProbes'),
    degradedProbes: delta('degradedProbes'),
  };
  // A stalled member is suspected by its probers, and suspects its own targets (its pings are held).
  const stallSuspicions = [...episodes.values()].filter(({ at, subject, observer }) =>
    stalls.some((s) => (s.member === subject || s.member === observer) && s.from <= at && s.to >= at - STALL_BLAME_MS),
  ).length;
  const stallsInWindow = stalls.filter((s) => s.from >= windowStart && s.from < windowEnd).length;

  // The crash phase.
  const crashVictims = pickMembers(options.seed, names, options.crashes, CRASH_SALT);
  crashVictims.forEach((victim, i) => {
    if (i > 0) sim.runFor(CRASH_GAP_MS);
    seenDead.set(victim, new Map());
    crashed.add(victim);
    crashedAt.set(victim, sim.now);
    sim.crash(victim);
  });
  const survivors = names.filter((n) => !crashed.has(n));
  runUntilOrLimit(sim, () => crashVictims.every((v) => seenDead.get(v)!.size >= survivors.length), CRASH_WAIT_LIMIT_MS, 1000);
  stopEvents();
  const crashes = crashVictims.map((member): AdaptiveCrash => {
    const seen = seenDead.get(member)!;
    const at = crashedAt.get(member)!;
    const times = [...seen.values()];
    return {
      member,
      firstDeadMs: times.length === 0 ? null : Math.min(...times) - at,
      allDeadMs: seen.size < survivors.length ? null : Math.max(...times) - at,
    };
  });
  rtts.sort((a, b) => a - b);
  const at = (q: number) => (rtts.length === 0 ? Number.NaN : rtts[Math.min(rtts.length - 1, Math.floor(q * rtts.length))]!);
  return {
    seed: options.seed,
    falseSuspicions: episodes.size,
    stallSuspicions,
    suspectEvents,
    falseDeaths,
    falseVictims: victims.size,
    stalls: stallsInWindow,
    ...counts,
    meanTimeoutMs: timeoutCount === 0 ? Number.NaN : timeoutSum / timeoutCount,
    rttMedianMs: at(0.5),
    rttP99Ms: at(0.99),
    crashes,
    convergedAtMs,
    wallMs: wallNow() - started,
  };
}

// --- the experiment ----------------------------------------------------------------------------

export function adaptiveCells(params: AdaptiveParams): Array<{ nodes: number; network: NetworkName; profile: AdaptiveProfile }> {
  const cells = [];
  for (const nodes of params.nodes) {
    for (const network of params.networks) {
      for (const profile of params.profiles) cells.push({ nodes, network, profile });
    }
  }
  return cells;
}

export function runAdaptive(params: AdaptiveParams, hooks: ProgressHooks = silent): AdaptiveResult {
  for (const nodes of params.nodes) {
    if (params.crashes >= nodes - 1) throw new RangeError(`cannot crash ${params.crashes} of ${nodes} members`);
  }
  const cells: AdaptiveCell[] = [];
  for (const cell of adaptiveCells(params)) {
    hooks.startCell(`n=${cell.nodes} ${cell.network} network, ${cell.profile}`);
    const runs = runSeeds(params.seed, params.runs).map((seed) => {
      const run = adaptiveRun({ ...cell, warmupPasses: params.warmupPasses, minutes: params.minutes, crashes: params.crashes, seed });
      hooks.runDone();
      return run;
    });
    const nodeHours = (cell.nodes * params.minutes * runs.length) / 60;
    const total = (f: (r: AdaptiveRun) => number) => runs.reduce((s, r) => s + f(r), 0);
    const outcomes = runs.flatMap((r) => r.crashes);
    const firstDead = summarize(outcomes.flatMap((o) => (o.firstDeadMs === null ? [] : [o.firstDeadMs / 1000])));
    const allDead = summarize(outcomes.flatMap((o) => (o.allDeadMs === null ? [] : [o.allDeadMs / 1000])));
    const probes = total((r) => r.probes);
    const result: AdaptiveCell = {
      ...cell,
      runs,
      nodeHours,
      falseSuspicionsPerNodeHour: total((r) => r.falseSuspicions) / nodeHours,
      otherSuspicionsPerNodeHour: total((r) => r.falseSuspicions - r.stallSuspicions) / nodeHours,
      falseDeaths: total((r) => r.falseDeaths),
      falseVictims: total((r) => r.falseVictims),
      firstDead,
      allDead,
      undetected: outcomes.filter((o) => o.firstDeadMs === null).length,
      indirectShare: probes === 0 ? Number.NaN : total((r) => r.indirectProbes) / probes,
      meanTimeoutMs: probes === 0 ? Number.NaN : total((r) => r.meanTimeoutMs * r.probes) / probes,
    };
    cells.push(result);
    hooks.cellDone(
      `false suspicions ${runs.map((r) => r.falseSuspicions).join(', ')} (stall ${runs.map((r) => r.stallSuspicions).join(', ')}), ` +
        `false deaths ${result.falseDeaths}, first dead median ${firstDead.median.toFixed(1)} s p90 ${firstDead.p90.toFixed(1)} s, ` +
        `indirect ${(result.indirectShare * 100).toFixed(2)}%, mean wait ${result.meanTimeoutMs.toFixed(0)} ms`,
    );
  }
  return { experiment: 'adaptive', params, cells };
}

export function adaptiveWork(params: AdaptiveParams): { cells: number; runs: number } {
  const cells = adaptiveCells(params).length;
  return { cells, runs: cells * params.runs };
}
