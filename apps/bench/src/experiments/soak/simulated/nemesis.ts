import { createRng, randomFloat, randomInt, shuffleInPlace, type Rng } from '@swim/core';

/** The faults of the simulated day. */
export type FaultKind = 'crash' | 'crash-long' | 'pause' | 'blackout' | 'partition' | 'leave';
export const FAULT_KINDS: readonly FaultKind[] = ['crash', 'crash-long', 'pause', 'blackout', 'partition', 'leave'];

/** How often each fault is drawn (relative). */
export const FAULT_WEIGHTS: Readonly<Record<FaultKind, number>> = { crash: 4, 'crash-long': 1, pause: 3, blackout: 2, partition: 2, leave: 2 };

export interface NemesisParams {
  readonly members: number;
  /** Virtual ms of the whole day. */
  readonly durationMs: number;
  /** First fault no earlier than this (the cluster forms first). */
  readonly firstFaultMs: number;
  /** Mean gap between faults; each gap is uniform in [0.5, 1.5] × this. */
  readonly faultEveryMs: number;
  /** `crash-long`: down this long, past the failure-detection bound, so that invariant 1 is checked. */
  readonly longDownMs: number;
  /** Mean gap between tag (meta) updates and between user broadcasts. */
  readonly tagsEveryMs: number;
  readonly broadcastEveryMs: number;
}

/** One planned fault: who, from when, until when (the restart, resume, heal or rejoin). */
export interface PlannedFault {
  readonly id: number;
  readonly kind: FaultKind | 'tags' | 'broadcast';
  readonly targets: readonly string[];
  readonly start: number;
  /** Undefined for tags and broadcasts (instant). */
  readonly end?: number;
  /** `crash`: restart from the snapshot taken at the crash (half of them). */
  readonly snapshot?: boolean;
}

/** Ranges of the brief (issue 29), ms. */
export const RANGES = {
  crashDownMs: [1_000, 60_000],
  pauseMs: [1_000, 30_000],
  blackoutMs: [10_000, 120_000],
  blackoutMembers: [1, 8],
  partitionMs: [30_000, 120_000],
  partitionShare: 0.2,
  /** Leave, then the process exits; it comes back as a new process this long after the leave. */
  leaveDownMs: [10_000, 60_000],
} as const;

function uniform(rng: Rng, [lo, hi]: readonly [number, number]): number {
  return Math.round(lo + randomFloat(rng) * (hi - lo));
}

/**
 * The seeded fault schedule of the day, from the bench's own stream (not the simulation's), so both
 * profiles see the same faults. A fault every ~`faultEveryMs`, drawn by {@link FAULT_WEIGHTS}, on
 * members no other fault holds at the time; at most a quarter of the members are held at once
 * (a fault that would exceed it is drawn again from the kinds that fit, or skipped). Tag updates and
 * user broadcasts are a separate stream and hold no one.
 */
export function planFaults(seed: number, params: NemesisParams): { faults: PlannedFault[]; skipped: number } {
  const rng = createRng((Math.imul(seed, 0x9e3779b1) ^ 0x50a4da7) >>> 0);
  const names = Array.from({ length: params.members }, (_, i) => `n${i}`);
  const budget = Math.floor(params.members / 4);
  /** When each member is free again. */
  const busyUntil = new Float64Array(params.members);
  const faults: PlannedFault[] = [];
  let skipped = 0;
  let id = 0;
  const total = Object.values(FAULT_WEIGHTS).reduce((a, b) => a + b, 0);
  const draw = (allowed: readonly FaultKind[]): FaultKind | undefined => {
    const weight = allowed.reduce((a, k) => a + FAULT_WEIGHTS[k], 0);
    if (weight === 0) return undefined;
    let x = randomFloat(rng) * weight;
    for (const k of allowed) {
      x -= FAULT_WEIGHTS[k];
      if (x < 0) return k;
    }
    return allowed[allowed.length - 1];
  };
  const sizeOf = (kind: FaultKind): number => (kind === 'partition' ? Math.max(1, Math.round(params.members * RANGES.partitionShare)) : kind === 'blackout' ? uniform(rng, RANGES.blackoutMembers) : 1);
  let at = params.firstFaultMs;
  while (at < params.durationMs) {
    const free: number[] = [];
    for (let i = 0; i < params.members; i++) if (busyUntil[i]! <= at) free.push(i);
    const room = Math.min(free.length, budget - (params.members - free.length));
    let kind = draw(FAULT_KINDS);
    let size = kind === undefined ? 0 : sizeOf(kind);
    if (size > room) {
      const fits = FAULT_KINDS.filter((k) => (k === 'partition' ? Math.round(params.members * RANGES.partitionShare) : 1) <= room);
      kind = draw(fits);
      size = kind === undefined ? 0 : Math.min(sizeOf(kind), room);
    }
    if (kind === undefined || size < 1) skipped++;
    else {
      shuffleInPlace(rng, free);
      const targets = free.slice(0, size).sort((a, b) => a - b);
      const duration =
        kind === 'crash'
          ? uniform(rng, RANGES.crashDownMs)
          : kind === 'crash-long'
            ? params.longDownMs
            : kind === 'pause'
              ? uniform(rng, RANGES.pauseMs)
              : kind === 'blackout'
                ? uniform(rng, RANGES.blackoutMs)
                : kind === 'partition'
                  ? uniform(rng, RANGES.partitionMs)
                  : uniform(rng, RANGES.leaveDownMs);
      const end = at + duration;
      for (const t of targets) busyUntil[t] = end;
      faults.push({ id: id++, kind, targets: targets.map((t) => names[t]!), start: at, end, ...(kind === 'crash' ? { snapshot: randomFloat(rng) < 0.5 } : {}) });
    }
    at += Math.round(params.faultEveryMs * (0.5 + randomFloat(rng)));
  }
  // Tags and broadcasts: their own stream, any running member (the run skips a member that is down).
  const side = createRng((Math.imul(seed, 0x85ebca6b) ^ 0x7a95) >>> 0);
  for (const [kind, every] of [['tags', params.tagsEveryMs], ['broadcast', params.broadcastEveryMs]] as const) {
    for (let t = params.firstFaultMs + Math.round(every * randomFloat(side)); t < params.durationMs; t += Math.round(every * (0.5 + randomFloat(side)))) {
      faults.push({ id: id++, kind, targets: [names[randomInt(side, params.members)]!], start: t });
    }
  }
  faults.sort((a, b) => a.start - b.start || a.id - b.id);
  return { faults, skipped };
}
