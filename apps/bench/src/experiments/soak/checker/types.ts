/**
 * The normalized timeline of a soak run (issue 29), shared by the simulated day and the real-agent
 * run: what each member saw (observations), what the nemesis did (ground truth), and resource
 * samples. Times are ms on one clock (virtual time on the simulator, wall time for agents).
 */

/** A membership change as one member saw it (runtime `MembershipChange`, simulator `SimEvent`). */
export type ObservationKind = 'join' | 'update' | 'suspect' | 'alive' | 'dead' | 'left';

export interface Observation {
  readonly at: number;
  /** The member that saw the change. */
  readonly observer: string;
  /** The member it is about. */
  readonly subject: string;
  readonly kind: ObservationKind;
  /** The subject's incarnation as the observer holds it after the change. */
  readonly incarnation: number;
  /**
   * For `dead`: who declared it (DeathCause `by`). A *verdict* is a dead observation whose
   * `verdictBy` is the observer itself (its own suspicion timer expired).
   */
  readonly verdictBy?: string | undefined;
}

/**
 * What the nemesis did. Each kind's meaning for the ground truth:
 * - `kill`: the targets stop running at `start` (kill -9); they run again from `end` if given,
 *   else from the next `restart` or `rejoin` naming them.
 * - `restart`: the targets start as new processes at `start` (a restart without a kill before it
 *   is a stop and start at the same instant).
 * - `pause` (SIGSTOP), `blackout` (cut off from everyone), `partition` (`targets` cut off from
 *   `peers`, or from everyone else when `peers` is omitted): in effect over [start, end).
 * - `leave`: the targets leave gracefully at `start` and are not members until the next `rejoin`
 *   or `restart` naming them; `rejoin`: the targets are members again from `start`, new processes.
 * - anything else (`rotate-key`, `tags`, `broadcast`, `namespace-restart`, `forged-burst`, …):
 *   informational; `rotate-key` and `namespace-restart` start a convergence measurement.
 */
export type NemesisKind =
  | 'kill'
  | 'restart'
  | 'pause'
  | 'partition'
  | 'blackout'
  | 'leave'
  | 'rejoin'
  | 'rotate-key'
  | 'tags'
  | 'broadcast'
  | 'namespace-restart'
  | 'forged-burst'
  | (string & {});

export interface NemesisAction {
  readonly id: number | string;
  readonly kind: NemesisKind;
  readonly targets: readonly string[];
  readonly start: number;
  readonly end?: number | undefined;
  /** `partition`: the other side; omitted: every member not in `targets`. */
  readonly peers?: readonly string[] | undefined;
  /**
   * `restart`/`rejoin`: the new process started holding its members (a snapshot restore or a
   * preload), so its first event about a member need not be a join, and it sees them alive.
   */
  readonly preloaded?: boolean | undefined;
  /** Free text for reports (e.g. `restore from snapshot`, `down 42 s`). */
  readonly detail?: string | undefined;
}

/** A resource sample of one member (or of the whole simulator process, member `sim`). */
export interface ResourceSample {
  readonly at: number;
  readonly member: string;
  readonly rss?: number | undefined;
  readonly heapUsed?: number | undefined;
  readonly fds?: number | undefined;
  readonly sockets?: number | undefined;
}

export type ResourceMetric = 'rss' | 'heapUsed' | 'fds' | 'sockets';
export const RESOURCE_METRICS: readonly ResourceMetric[] = ['rss', 'heapUsed', 'fds', 'sockets'];

/** A process exit (agents). `expected`: the nemesis killed or stopped it. */
export interface ExitRecord {
  readonly at: number;
  readonly member: string;
  readonly expected: boolean;
  readonly code?: number | null | undefined;
  readonly signal?: string | null | undefined;
}

/** An exception a member contained (runtime `errors`, an `error` event, a logged exception). */
export interface ExceptionRecord {
  readonly at: number;
  readonly member: string;
  readonly message: string;
}

export interface Timeline {
  /** Every member that ever ran, in a stable order. Each runs and is a member from `start` until the nemesis says otherwise. */
  readonly members: readonly string[];
  readonly start: number;
  readonly end: number;
  /** Sorted by `at` (ties in the order they happened). */
  readonly observations: readonly Observation[];
  readonly nemesis: readonly NemesisAction[];
  readonly samples?: readonly ResourceSample[] | undefined;
  /** Invariant 4; leave undefined where it does not apply (the simulator has no processes to exit). */
  readonly exits?: readonly ExitRecord[] | undefined;
  readonly exceptions?: readonly ExceptionRecord[] | undefined;
}

/** Per-hour slope bounds of invariant 5, in units per hour (bytes, or counts). */
export type SlopeBounds = Readonly<Partial<Record<ResourceMetric, number>>>;

/** 2 MiB/h of RSS or heap; fds and sockets: 0 per hour, with a tolerance of 0.25 per hour for noise (6 over a day). */
export const DEFAULT_SLOPE_BOUNDS: SlopeBounds = { rss: 2 * 1024 * 1024, heapUsed: 2 * 1024 * 1024, fds: 0.25, sockets: 0.25 };

export interface CheckOptions {
  /** Invariant 1: every crash is seen dead within this long (`failureDetectionBoundMs` of @swim/core). */
  readonly detectionBoundMs: number;
  /** Invariant 2: a verdict is false when the pair was healthy throughout [verdict − graceMs, verdict] (probeTimeoutMs: the verdict check). */
  readonly graceMs: number;
  /** Invariant 3: every running member sees every other alive within this long of a heal, restart, rejoin or rotation. */
  readonly convergenceBoundMs: number;
  readonly slopeBounds?: SlopeBounds | undefined;
}

/** One invariant's row. `checked`: how many cases it looked at (pairs, verdicts, triggers, …). */
export interface InvariantResult {
  readonly id: 1 | 2 | 3 | 4 | 5 | 6;
  readonly name: string;
  /** The bound it checks against, in words. */
  readonly bound: string;
  /** False where the timeline has nothing for it (e.g. exits on the simulator). */
  readonly applicable: boolean;
  readonly checked: number;
  readonly violations: number;
  readonly firstViolation: string | null;
}

export interface Percentiles {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}
