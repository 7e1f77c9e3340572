/**
 * What the demo's server and page say to each other about the headline run (POST
 * /api/headline/start, POST /api/headline/stop, GET /api/headline): plain data and the parameter
 * check, no Node code, so the page can share them.
 */
import type { MatrixRow, StateCounts, ViewMatrix } from './matrix-api.js';

export type HeadlineSideName = 'memberlist' | 'swim';

export type HeadlinePhase = 'converging' | 'steady' | 'blackout' | 'reconnected' | 'done' | 'stopped' | 'failed';

export interface HeadlineParams {
  /** Members per side (n0 … n(members−1)). */
  readonly members: number;
  /** Members blacked out, the same ones on both sides (picked from the seed). */
  readonly cut: number;
  /** Outage length, seconds. */
  readonly outageS: number;
  /** Watched after the outage ends, seconds. */
  readonly watchS: number;
  /** Both sides use it: the same latencies, joins and member seeds. */
  readonly seed: number;
  /** Virtual seconds per real second once the clusters have converged; 0 runs as fast as the machine goes. */
  readonly speed: number;
}

/** A false death: `observer`, a healthy member, declared `subject`, another healthy member, dead. */
export interface HeadlineEvent {
  /** Virtual ms since the blackout began. */
  readonly sinceCutMs: number;
  readonly observer: string;
  readonly subject: string;
}

export interface HeadlineRow extends MatrixRow {
  /** One of the blacked-out members. */
  readonly cut: boolean;
}

/** The side's state counts (over every observer, other member pair) at one virtual second. */
export interface HeadlineSample extends StateCounts {
  /** Virtual ms since the clusters started. */
  readonly atMs: number;
  /** False deaths counted so far. */
  readonly falseDeaths: number;
}

export interface HeadlineSide extends ViewMatrix {
  readonly side: HeadlineSideName;
  /** One row per observer, in `members` order. */
  readonly rows: readonly HeadlineRow[];
  /** Over every (observer, other member) pair: how many are held in each state. */
  readonly counts: Readonly<StateCounts>;
  /** `counts` once per virtual second since the start (at most a few hundred samples: the run is bounded). */
  readonly history: readonly HeadlineSample[];
  /** Dead verdicts about healthy members by healthy members since the blackout began. */
  readonly falseDeaths: number;
  /** Distinct healthy members behind `falseDeaths`. */
  readonly falseVictims: number;
  /** The false deaths in order (the first 500). */
  readonly events: readonly HeadlineEvent[];
}

export interface HeadlineStatus {
  readonly params: HeadlineParams;
  readonly phase: HeadlinePhase;
  readonly error?: string;
  readonly cut: readonly string[];
  /** Virtual ms since the clusters started. */
  readonly virtualMs: number;
  /** Virtual ms since the blackout began, null before. */
  readonly sinceCutMs: number | null;
  /** memberlist first, then ours. */
  readonly sides: readonly HeadlineSide[];
}

/** Why the memberlist side kills healthy members and ours does not: two sentences for the page. */
export const HEADLINE_EXPLANATION: Readonly<Record<HeadlineSideName, string>> = {
  memberlist:
    'The cut-off members suspect every healthy member they cannot reach, and those suspicions keep running through the outage; ' +
    "when the network comes back their held messages arrive together, they confirm each other's stale suspicions, the confirmations shorten the timers below the time already spent, " +
    'so all of them fire at once and declare healthy members dead before those can answer, and the rest of the cluster believes them.',
  swim:
    'Here a suspicion that a confirmation makes overdue waits a short grace period for the suspect to answer, ' +
    "and a member reads its own health when the timer fires: one just back from an outage has missed many answers, knows its view is stale and waits longer, so the healthy members refute in time.",
};

export const HEADLINE_LIMITS = {
  members: { min: 4, max: 64 },
  outageS: { min: 5, max: 120 },
  watchS: { min: 10, max: 120 },
  speed: { min: 0, max: 50 },
  seed: { min: 0, max: 2 ** 31 - 1 },
} as const;

export const HEADLINE_DEFAULTS: HeadlineParams = { members: 24, cut: 6, outageS: 30, watchS: 30, seed: 1, speed: 1 };

/**
 * Check a start request's body (any JSON value): the parameters with defaults filled in, or every
 * problem found. Unknown fields are problems too, so a misspelt one is not silently ignored.
 */
export function parseHeadlineParams(input: unknown): { readonly params: HeadlineParams } | { readonly problems: readonly string[] } {
  if (input === undefined || input === null) input = {};
  if (typeof input !== 'object' || Array.isArray(input)) return { problems: ['the body must be a JSON object'] };
  const body = input as Record<string, unknown>;
  const problems: string[] = [];
  const known = Object.keys(HEADLINE_DEFAULTS);
  for (const key of Object.keys(body)) if (!known.includes(key)) problems.push(`unknown field ${key}; known: ${known.join(', ')}`);
  const integer = (key: keyof HeadlineParams, min: number, max: number): number => {
    const value = body[key] ?? HEADLINE_DEFAULTS[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      problems.push(`${key} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
      return HEADLINE_DEFAULTS[key];
    }
    return value;
  };
  const L = HEADLINE_LIMITS;
  const members = integer('members', L.members.min, L.members.max);
  // At least one member stays connected; at most half are cut, so the healthy side is the majority.
  const cut = integer('cut', 1, Math.max(1, Math.floor(members / 2)));
  const outageS = integer('outageS', L.outageS.min, L.outageS.max);
  const watchS = integer('watchS', L.watchS.min, L.watchS.max);
  const seed = integer('seed', L.seed.min, L.seed.max);
  const speed = integer('speed', L.speed.min, L.speed.max);
  if (problems.length > 0) return { problems };
  return { params: { members, cut, outageS, watchS, seed, speed } };
}
