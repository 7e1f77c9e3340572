/** What `pnpm bench udp-scale` measures: per cluster size, our members and (optionally) memberlist's, hosted in one process. */
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
  /** Also host HashiCorp memberlist (Go) clusters of the same sizes. */
  readonly memberlist: boolean;
}

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
  readonly window: {
    readonly seconds: number;
    readonly cpuMs: number;
    readonly cpuShare: number;
    readonly cpuMsPerMemberSecond: number;
    readonly packetsSent: number;
    readonly packetsPerSecond: number;
    readonly bytesPerPacket: number;
    readonly deaths: number;
  } | null;
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
  readonly rows: readonly UdpScaleRow[];
}

/** The target: event-loop delay p99 under this with every member of the process converged. */
export const MAX_LAG_P99_MS = 20;
