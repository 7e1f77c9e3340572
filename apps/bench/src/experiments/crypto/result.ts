/** What `pnpm bench crypto` measures: the shapes the child processes send back and the report reads. */
import type { SecureTransportCounters } from '@swim/encryption';
import type { Formation, WindowResult } from '../../../../../packages/transport-udp/bench/cluster.js';
import type { ProfileSummary } from './profile.js';
import type { ThreadCpu } from './threads.js';

/** Where AES-GCM runs in an encrypted cluster: `Keyring.from(keys, { engine })` with nodeCryptoEngine or webCryptoEngine. */
export type Engine = 'node' | 'webcrypto';

/** Every engine, in the order they run by default: node:crypto first, what `swim agent` runs. */
export const ENGINES: readonly Engine[] = ['node', 'webcrypto'];

/** A cluster of plain members, or of members encrypting through one engine. */
export type Mode = 'plain' | Engine;

export interface CryptoParams {
  /** Members hosted in one process (LAN preset) per mode. */
  readonly members: number;
  /** Seconds measured once converged and settled. */
  readonly seconds: number;
  /** Seconds between convergence and the measured window. */
  readonly settleSeconds: number;
  /** Bound on growing and converging, seconds. */
  readonly convergeTimeoutSeconds: number;
  /** Pause after each batch of ten joins while growing, ms. */
  readonly joinPauseMs: number;
  /** The wrapper's maxInFlight, and the raw AES-GCM run's concurrency. */
  readonly maxInFlight: number;
  /** Plaintext size of the raw AES-GCM run. */
  readonly payloadBytes: number;
  /** Seconds of each raw AES-GCM run (encrypt, decrypt). */
  readonly aesSeconds: number;
  /** The engines whose encrypted cluster (and raw AES-GCM) is measured, in this order. */
  readonly engines: readonly Engine[];
  /** Directory for the child processes' CPU profiles (node --cpu-prof), when given. */
  readonly cpuProfDir?: string | undefined;
  /** How each cluster is formed (default: joins, what the crypto bench has always measured after). */
  readonly formation?: Formation | undefined;
}

export interface Profiled {
  readonly path: string;
  readonly summary: ProfileSummary;
}

/** One mode's cluster, measured in its own child process. */
export interface ClusterRun {
  readonly mode: Mode;
  readonly members: number;
  readonly formation: Formation;
  readonly grown: boolean;
  readonly converged: boolean;
  readonly convergeMs: number;
  /** Of convergeMs: creating and preloading the members (pre-formed) or growing them by joins. */
  readonly formMs: number;
  readonly joinRetries: number;
  readonly joinFailures: number;
  /** Growing and converging: CPU (all threads, 1 = one core busy) and event-loop delay p99 (ms). */
  readonly growing: { readonly cpuShare: number; readonly lagP99Ms: number };
  /** Suspect and dead events while growing and converging. */
  readonly suspectsGrowing: number;
  readonly deathsGrowing: number;
  /** Suspect and dead events before the window: growing, converging, settling. */
  readonly suspectsBefore: number;
  readonly deathsBefore: number;
  /** Undefined when the cluster never grew to its size (nothing was measured). */
  readonly window: WindowResult | undefined;
  /** The wrappers' counters summed over every member, over the window and over the whole run (encrypted modes only). */
  readonly wrapperWindow: SecureTransportCounters | undefined;
  readonly wrapperTotal: SecureTransportCounters | undefined;
  /** Most crypto operations pending at once in the process (all wrappers), while growing and in the window (sampled every 50 ms; encrypted modes only). */
  readonly inFlightPeak: { readonly growing: number; readonly window: number | undefined } | undefined;
  /** The window's CPU on the main thread and on the others (Linux only). */
  readonly threads: ThreadCpu | undefined;
  /** CPU profiles (.cpuprofile) of growing and of the window, and what they say about the main thread (--cpu-prof). */
  readonly profiles: { readonly growing: Profiled | undefined; readonly window: Profiled | undefined };
  /** How long closing every member took, ms. */
  readonly closeMs: number;
  /** The child's libuv threadpool size (WebCrypto's AES-GCM jobs run there). */
  readonly threadpool: string;
}

/**
 * `node`, `webcrypto`: the wrapper's encryptBlob / decryptBlob through that engine; `cipher`:
 * node:crypto's cipher alone, without the blob layer or an engine's promise (what the layers add).
 */
export type AesApi = Engine | 'cipher';

/** Raw AES-GCM, `concurrency` operations kept pending. */
export interface AesRun {
  readonly api: AesApi;
  readonly op: 'encrypt' | 'decrypt';
  readonly payloadBytes: number;
  readonly concurrency: number;
  readonly operations: number;
  readonly seconds: number;
  readonly operationsPerSecond: number;
  /** Plaintext megabytes (10^6 B) per second. */
  readonly megabytesPerSecond: number;
  readonly cpuMs: number;
  /** Process CPU (every thread) per operation, µs. */
  readonly cpuMicrosPerOperation: number;
  readonly lagP99Ms: number;
  /** Operations that failed (a decrypt that opened nothing): must be 0. */
  readonly failures: number;
}

export interface Verdict {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

/** One engine's encrypted cluster, and what it costs against the plain one. */
export interface EngineRun {
  readonly engine: Engine;
  readonly cluster: ClusterRun;
  /** encrypted / plain, from the two windows; NaN when either was not measured. */
  readonly ratios: {
    readonly cpuPerMemberSecond: number;
    readonly packetsPerSecond: number;
    readonly cpuPerPacket: number;
    readonly lagP99: number;
  };
  /**
   * AES-GCM operations of the encrypted window (packets and streams sealed and opened) per second,
   * and the CPU the encrypted cluster spent beyond the plain one per operation, µs.
   */
  readonly operations: { readonly perSecond: number; readonly addedCpuMicros: number };
  /** This engine's cluster against the targets. */
  readonly verdicts: readonly Verdict[];
}

export interface CryptoResult {
  readonly experiment: 'crypto';
  readonly params: CryptoParams;
  /** `loadAverage`: the machine's 1-minute load average when the run started and when it ended (other work on a shared machine). */
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly loadAverage: readonly [number, number] };
  readonly plain: ClusterRun;
  /** One per engine, in `params.engines` order. */
  readonly encrypted: readonly EngineRun[];
  /** The engine the verdict is judged for: node:crypto, what `swim agent` runs, when it was measured; else the first one. */
  readonly judged: Engine;
  readonly aes: readonly AesRun[];
}
