/**
 * The normalized timeline the checker reads: what each agent reported through its GET /monitor
 * stream, and what the nemesis did. Times are ms since the run started.
 */
export const NEMESIS_KINDS = ['kill', 'stop', 'cut', 'leave', 'rotate', 'tags', 'ns-restart', 'forge'] as const;
export type NemesisKind = (typeof NEMESIS_KINDS)[number];

export type ObservationKind = 'join' | 'update' | 'suspect' | 'alive' | 'dead' | 'left';

export interface Observation {
  readonly at: number;
  readonly observer: string;
  readonly subject: string;
  readonly kind: ObservationKind;
  readonly incarnation: number;
  /** On `dead`: who reached the verdict (the observer itself when its own suspicion timed out, else the gossiping declarer). */
  readonly verdictBy?: string;
  /** Which start of the observer the stream belongs to (a restart opens a new stream). */
  readonly epoch: number;
}

export interface NemesisAction {
  readonly id: number;
  readonly kind: NemesisKind;
  readonly targets: readonly string[];
  readonly start: number;
  /** When the fault was undone (restarted agent logged its start, SIGCONT sent, link up, last step done). */
  end?: number;
  /** Kind-specific facts: restart with a snapshot, the signal used, packets forged, `swim keys` replies. */
  readonly detail: Record<string, unknown>;
}

export interface ContainedError {
  readonly at: number;
  readonly agent: string;
  readonly where: string;
  readonly error: string;
}

export interface ResourceSample {
  readonly at: number;
  readonly agent: string;
  readonly pid: number;
  readonly rssBytes: number;
  readonly fds: number;
  readonly sockets: number;
  /** nodejs_heap_size_used_bytes through Prometheus, when it had a fresh sample. */
  readonly heapUsedBytes: number | undefined;
}

export interface ConvergenceResult {
  readonly actionId: number;
  readonly kind: NemesisKind | 'initial' | 'final';
  readonly subjects: readonly string[];
  /** ms after the action ended until every running unaffected agent saw the subjects alive and they saw them; undefined: not within the limit. */
  readonly ms: number | undefined;
  /** Another fault hit a subject before it converged: not counted either way. */
  readonly censored: boolean;
}
