/**
 * The harness's own records of a run (times in ms since the run started): what the nemesis did,
 * in its own words (the nemesis log), contained errors, resource samples and the convergence seen
 * through GET /members. to-timeline.ts turns them into the shared checker's Timeline.
 */
import type { Observation } from './checker/index.js';

export const NEMESIS_KINDS = ['kill', 'stop', 'cut', 'leave', 'rotate', 'tags', 'ns-restart', 'forge'] as const;
export type NemesisKind = (typeof NEMESIS_KINDS)[number];

/** An observation with the stream it came from: the agent's GET /monitor, or its log for what happened before the stream opened. */
export interface SourcedObservation extends Observation {
  readonly source: 'monitor' | 'log';
}

export interface NemesisRecord {
  readonly id: number;
  readonly kind: NemesisKind;
  readonly targets: readonly string[];
  readonly start: number;
  /** When the fault was undone (restarted agent logged its start, SIGCONT sent, link up, last step done). */
  end?: number;
  /** Kind-specific facts: restart with a snapshot, the signal used, packets forged, `swim keys` replies, per-agent times. */
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
  /** nodejs_heap_size_used_bytes through Prometheus, when it had a sample. */
  readonly heapUsedBytes: number | undefined;
}

export interface ExitEntry {
  readonly at: number;
  readonly agent: string;
  readonly pid: number;
  readonly expected: string | undefined;
  readonly code: number | null;
  readonly signal: string | null;
  readonly stderr: string;
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
