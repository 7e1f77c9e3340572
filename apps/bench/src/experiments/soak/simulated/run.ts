import { createRng, failureDetectionBoundMs, randomInt, type SwimConfig } from '@swim/core';
import type { MemberSnapshot } from '@swim/runtime';
import { Simulation } from '@swim/transport-memory';
import { wallNow } from '../../setup.js';
import { checkTimeline, type CheckReport, type ExceptionRecord, type NemesisAction, type ObservationKind, type ResourceSample } from '../checker/index.js';
import { heapUsedAfterGc } from './heap.js';
import type { PlannedFault } from './nemesis.js';
import { ObservationLog } from './recorder.js';

/** A restarted or rejoining member joins through this many running members, retrying each second until one answers. */
export const JOIN_SEEDS = 3;
export const JOIN_RETRY_MS = 1_000;
/** A leaving member's process exits this long after its leave (the leave is gossiped first). */
export const EXIT_AFTER_LEAVE_MS = 2_000;
const HOUR_MS = 3_600_000;
/**
 * The simulation runs synchronously; promise continuations (join retries, the settling of leaves
 * and meta updates) run only when it yields. Yield to the event loop this often in virtual time,
 * or they pile up for the whole day, holding every crashed process (a heap that grows with the
 * run, and join retries that never happen).
 */
export const YIELD_EVERY_MS = 1_000;

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface SoakRunInput {
  readonly members: number;
  readonly hours: number;
  readonly seed: number;
  readonly config: SwimConfig;
  readonly faults: readonly PlannedFault[];
  /** Packet loss on every link, all day. */
  readonly loss: number;
  readonly convergenceBoundMs: number;
  /** Heap and table sizes are sampled this often (default each simulated hour; a short run samples more often). */
  readonly sampleEveryMs?: number;
  /** Called after each simulated hour (progress). */
  readonly onHour?: (hour: number, wallMs: number, observations: number) => void;
}

export interface HourSample {
  /** Simulated hours since the start (fractional when sampled more often than hourly). */
  readonly hour: number;
  /** heapUsed after a forced GC (when it could be forced), bytes. */
  readonly heapUsed: number;
  /** Entries in every running member's table, summed (dead and left not yet reaped included). */
  readonly tableEntries: number;
  /** Wall ms since the run started. */
  readonly wallMs: number;
}

export interface SoakRunResult {
  readonly seed: number;
  readonly members: number;
  readonly hours: number;
  readonly wallMs: number;
  /** Wall ms of the simulation alone, and of the checker. */
  readonly simWallMs: number;
  readonly checkWallMs: number;
  readonly heapForcedGc: boolean;
  readonly hourly: readonly HourSample[];
  readonly faultsByKind: Readonly<Record<string, number>>;
  readonly observations: number;
  readonly observationsByKind: Readonly<Record<ObservationKind, number>>;
  readonly packetsDelivered: number;
  /** Join attempts of restarted members that found no seed answering and were retried. */
  readonly joinRetries: number;
  readonly detectionBoundMs: number;
  readonly check: CheckReport;
}

/**
 * One simulated day: `members` join a cluster (Simulation.startCluster), then the planned faults
 * run on the virtual clock with `loss` on every link, for `hours`. Every membership event is
 * recorded, the heap sampled each simulated hour, and the checker run over the timeline.
 */
export async function runSoakDay(input: SoakRunInput): Promise<SoakRunResult> {
  const wallStart = wallNow();
  const { members: n, seed, config } = input;
  const sim = new Simulation({ seed, config });
  const log = new ObservationLog();
  sim.onEvent((event) => log.add(event));
  const names = Array.from({ length: n }, (_, i) => `n${i}`);
  sim.startCluster(n);
  sim.setLoss(input.loss);

  const nemesis: NemesisAction[] = [];
  const exceptions: ExceptionRecord[] = [];
  const faultsByKind: Record<string, number> = {};
  /** Members a fault holds now (crashed, left, paused, cut off): not used as join seeds, not given tags. */
  const held = new Set<string>();
  const snapshots = new Map<string, MemberSnapshot>();
  const pick = createRng((Math.imul(seed, 0x27d4eb2f) ^ 0x1b873593) >>> 0);
  let joinRetries = 0;

  const noteErrors = (name: string) => {
    const errors = sim.member(name).errors;
    if (errors > 0) exceptions.push({ at: sim.now, member: name, message: `${errors} contained errors in this process` });
  };
  const seedsFor = (self: string): string[] => {
    const pool = names.filter((m) => m !== self && !held.has(m));
    const seeds: string[] = [];
    while (seeds.length < JOIN_SEEDS && pool.length > 0) seeds.push(pool.splice(randomInt(pick, pool.length), 1)[0]!);
    return seeds;
  };
  const start = (name: string, restore: MemberSnapshot | undefined) => {
    const member = sim.restart(name, restore === undefined ? {} : { restore });
    member.join(seedsFor(name).map((s) => sim.addressOf(s)), { retry: { intervalMs: JOIN_RETRY_MS, max: 0, onRetry: () => joinRetries++ } }).catch(() => undefined);
  };
  const at = (t: number, fn: () => void) => sim.clock.schedule(t, fn);

  for (const f of input.faults) {
    faultsByKind[f.kind] = (faultsByKind[f.kind] ?? 0) + 1;
    const end = f.end ?? f.start;
    switch (f.kind) {
      case 'crash':
      case 'crash-long': {
        const snapshot = f.snapshot === true;
        nemesis.push({ id: f.id, kind: 'kill', targets: f.targets, start: f.start, detail: f.kind });
        nemesis.push({ id: `${f.id}r`, kind: 'restart', targets: f.targets, start: end, preloaded: snapshot, detail: snapshot ? 'restored from the snapshot taken at the crash' : 'fresh process' });
        at(f.start, () => {
          for (const name of f.targets) {
            held.add(name);
            if (snapshot) snapshots.set(name, sim.member(name).snapshot());
            noteErrors(name);
            sim.crash(name);
          }
        });
        at(end, () => {
          for (const name of f.targets) {
            start(name, snapshots.get(name));
            snapshots.delete(name);
            held.delete(name);
          }
        });
        break;
      }
      case 'pause':
        nemesis.push({ id: f.id, kind: 'pause', targets: f.targets, start: f.start, end });
        at(f.start, () => f.targets.forEach((name) => (held.add(name), sim.pause(name))));
        at(end, () => f.targets.forEach((name) => (held.delete(name), sim.resume(name))));
        break;
      case 'blackout':
        nemesis.push({ id: f.id, kind: 'blackout', targets: f.targets, start: f.start, end });
        at(f.start, () => (f.targets.forEach((name) => held.add(name)), sim.blackout(f.targets)));
        at(end, () => (f.targets.forEach((name) => held.delete(name)), sim.endBlackout(f.targets)));
        break;
      case 'partition': {
        const side = new Set(f.targets);
        const others = names.filter((name) => !side.has(name));
        nemesis.push({ id: f.id, kind: 'partition', targets: f.targets, start: f.start, end });
        at(f.start, () => (f.targets.forEach((name) => held.add(name)), sim.partition(f.targets, others)));
        // The planner never overlaps two partitions (each is a fifth of the cluster, the budget a quarter), so heal() ends only this one.
        at(end, () => (f.targets.forEach((name) => held.delete(name)), sim.heal()));
        break;
      }
      case 'leave':
        nemesis.push({ id: f.id, kind: 'leave', targets: f.targets, start: f.start });
        nemesis.push({ id: `${f.id}r`, kind: 'rejoin', targets: f.targets, start: end, detail: 'new process' });
        at(f.start, () => f.targets.forEach((name) => (held.add(name), sim.leave(name))));
        at(f.start + EXIT_AFTER_LEAVE_MS, () => f.targets.forEach((name) => (noteErrors(name), sim.crash(name))));
        at(end, () => f.targets.forEach((name) => (start(name, undefined), held.delete(name))));
        break;
      case 'tags':
        nemesis.push({ id: f.id, kind: 'tags', targets: f.targets, start: f.start });
        at(f.start, () => {
          for (const name of f.targets) {
            if (held.has(name)) continue;
            sim.member(name).updateMeta(new TextEncoder().encode(`role=soak;at=${Math.round(sim.now / 1000)}`)).catch(() => undefined);
          }
        });
        break;
      case 'broadcast':
        nemesis.push({ id: f.id, kind: 'broadcast', targets: f.targets, start: f.start });
        at(f.start, () => {
          for (const name of f.targets) if (!held.has(name)) sim.member(name).broadcast(`soak-${f.id}`, new Uint8Array(64).fill(f.id & 0xff));
        });
        break;
    }
  }

  const hourly: HourSample[] = [];
  let forced = false;
  const sample = (hour: number) => {
    let tableEntries = 0;
    for (const m of sim.liveMembers()) {
      const counts = m.memberCounts();
      for (const v of Object.values(counts)) tableEntries += v;
    }
    const heap = heapUsedAfterGc();
    forced = heap.forced;
    hourly.push({ hour, heapUsed: heap.heapUsed, tableEntries, wallMs: wallNow() - wallStart });
  };
  const every = input.sampleEveryMs ?? HOUR_MS;
  const endMs = input.hours * HOUR_MS;
  while (sim.now < endMs) {
    const next = Math.min(sim.now + every, endMs);
    while (sim.now < next) {
      sim.runFor(Math.min(YIELD_EVERY_MS, next - sim.now));
      await yieldToEventLoop();
    }
    sample(sim.now / HOUR_MS);
    if (sim.now % HOUR_MS === 0) input.onHour?.(sim.now / HOUR_MS, wallNow() - wallStart, log.length);
  }
  for (const name of names) if (!held.has(name)) noteErrors(name);
  const simWallMs = wallNow() - wallStart;

  const samples: ResourceSample[] = hourly.map((s) => ({ at: Math.round(s.hour * HOUR_MS), member: 'simulator', heapUsed: s.heapUsed }));
  const detectionBoundMs = failureDetectionBoundMs(config, n);
  const checkStart = wallNow();
  const check = checkTimeline(
    { members: names, start: 0, end: sim.now, observations: log.toObservations(), nemesis, samples, exceptions },
    { detectionBoundMs, graceMs: config.probeTimeoutMs, convergenceBoundMs: input.convergenceBoundMs },
  );
  const checkWallMs = wallNow() - checkStart;
  return {
    seed,
    members: n,
    hours: input.hours,
    wallMs: wallNow() - wallStart,
    simWallMs,
    checkWallMs,
    heapForcedGc: forced,
    hourly,
    faultsByKind,
    observations: log.length,
    observationsByKind: log.countByKind(),
    packetsDelivered: sim.network.counters.packetsDelivered,
    joinRetries,
    detectionBoundMs,
    check,
  };
}
