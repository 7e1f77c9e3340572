/** What `pnpm bench udp-scale` measures: per cluster size, our members and (optionally) memberlist's, hosted in one process. */
import type { Formation, WindowResult } from '../../../../../packages/transport-udp/bench/cluster.js';
import type { ClusterRun } from '../crypto/result.js';

export interface UdpScaleParams {
  /** Cluster sizes, each hosted in one process. */
  readonly sizes: readonly number[];
  /** Seconds measured once converged and settled. */
  readonly seconds: number;
  readonly settleSeconds: number;
  /** Bound on growing and converging each cluster, seconds. */
  readonly convergeTimeoutSeconds: number;
  /** Pause after each batch of ten joins while growing, ms. */
  readonly joinPauseMs: number;
  /** How our clusters are formed: pre-formed (every member preloaded with all) or grown by joins. */
  readonly formation: Formation;
  /**
   * How memberlist grows (it has no preload): `joins`, ten joins at a time with the pause, as our
   * joins; `paced`, the same but each batch also waits until every member counts every member.
   */
  readonly memberlistFormation: MemberlistFormation;
  /** Also host HashiCorp memberlist (Go) clusters of the same sizes. */
  readonly memberlist: boolean;
}

export const MEMBERLIST_FORMATIONS = ['joins', 'paced'] as const;
export type MemberlistFormation = (typeof MEMBERLIST_FORMATIONS)[number];

/** One memberlist (Go) cluster, as apps/bench/go/memberlist-host reports it. */
export interface GoRun {
  readonly implementation: string;
  readonly goVersion: string;
  readonly members: number;
  readonly grown: boolean;
  readonly converged: boolean;
  readonly convergeMs: number;
  readonly joinFailures: number;
  readonly growingCpuShare: number;
  readonly deathsBefore: number;
  /** How the host grew the cluster (memberlist has no preload: it always grows by joins). */
  readonly formation?: string;
  /** The window's figures, named as our side's are (the Go host measures no event-loop delay). */
  readonly window: (Pick<WindowResult, 'seconds' | 'cpuMs' | 'cpuShare' | 'cpuMsPerMemberSecond' | 'packetsSent' | 'packetsPerSecond' | 'bytesPerPacket' | 'deaths'> & { readonly rssBytes?: number }) | null;
  readonly error?: string;
}

export interface UdpScaleRow {
  readonly members: number;
  readonly swim: ClusterRun;
  /** Absent when memberlist was not asked for; a string says why it was not measured. */
  readonly memberlist?: GoRun | string;
}

export interface UdpScaleResult {
  readonly experiment: 'udp-scale';
  readonly params: UdpScaleParams;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly loadAverage: readonly [number, number] };
  /** The code that ran: git HEAD and the files of the bench's path that differ from it (absent outside a checkout). */
  readonly source?: { readonly commit: string; readonly uncommitted: readonly string[] };
  readonly rows: readonly UdpScaleRow[];
}

/** The target: event-loop delay p99 under this with every member of the process converged. */
export const MAX_LAG_P99_MS = 20;
