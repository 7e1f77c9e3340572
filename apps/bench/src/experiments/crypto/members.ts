/**
 * One cluster of LAN-preset members over real UDP + TCP in this process, plain or with every member
 * behind `secureTransport` (its own keyring of one 32-byte key, as each agent has, AES-GCM through
 * the mode's engine): grown, converged, settled, then measured over a window. The cluster harness is
 * the transport bench's (packages/transport-udp/bench/cluster.ts), so both benches host members the
 * same way.
 */
import { Keyring, secureTransport, webCryptoEngine, type AesGcmEngine, type SecureTransport, type SecureTransportCounters } from '@swim/encryption';
import { nodeCryptoEngine } from '@swim/encryption/node';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Cluster, growAndConverge, LAG_RESOLUTION_MS, measureWindow, sleep } from '../../../../../packages/transport-udp/bench/cluster.js';
import { profiled, profilePath, summariseProfile } from './profile.js';
import type { ClusterRun, CryptoParams, Engine, Mode } from './result.js';
import { threadCpu, threadCpuSince } from './threads.js';

/** The fixed key every member of the encrypted cluster holds (the bench measures cost, not secrecy). */
export const BENCH_KEY = new Uint8Array(32).map((_, i) => i + 1);

/** The engine behind each `--engine` name. */
export const AES_ENGINES: Readonly<Record<Engine, AesGcmEngine>> = { node: nodeCryptoEngine, webcrypto: webCryptoEngine };

function sumCounters(wrappers: readonly SecureTransport[]): SecureTransportCounters {
  const total: Record<string, number> = {};
  for (const w of wrappers) for (const [name, value] of Object.entries(w.counters)) total[name] = (total[name] ?? 0) + value;
  return total as unknown as SecureTransportCounters;
}

function difference(after: SecureTransportCounters, before: SecureTransportCounters): SecureTransportCounters {
  return Object.fromEntries(Object.entries(after).map(([name, value]) => [name, value - (before[name as keyof SecureTransportCounters] ?? 0)])) as unknown as SecureTransportCounters;
}

/**
 * The most crypto operations pending at once in the whole process (all wrappers), sampled every
 * 50 ms: each wrapper bounds its own at maxInFlight, but all of them share one libuv threadpool.
 */
class InFlightPeak {
  peak = 0;
  readonly #timer: ReturnType<typeof setInterval>;
  constructor(wrappers: readonly SecureTransport[]) {
    this.#timer = setInterval(() => {
      let total = 0;
      for (const w of wrappers) total += w.inFlight;
      this.peak = Math.max(this.peak, total);
    }, 50);
  }
  stop(): number {
    clearInterval(this.#timer);
    return this.peak;
  }
}

/** Progress lines go to stderr: stdout is the parent's. */
export type Log = (line: string) => void;

export async function measureMembers(mode: Mode, params: CryptoParams, log: Log = () => {}): Promise<ClusterRun> {
  const wrappers: SecureTransport[] = [];
  const engine = mode === 'plain' ? undefined : AES_ENGINES[mode];
  const cluster = new Cluster(
    engine === undefined
      ? { batchPauseMs: params.joinPauseMs }
      : {
          batchPauseMs: params.joinPauseMs,
          wrap: (udp) => {
            const wrapper = secureTransport(udp, { keyring: Keyring.from([BENCH_KEY], { engine }), maxInFlight: params.maxInFlight });
            wrappers.push(wrapper);
            return wrapper;
          },
        },
  );
  let run: Omit<ClusterRun, 'closeMs'>;
  let closeStart = 0;
  try {
    const growing = new InFlightPeak(wrappers);
    const growLag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
    const growCpu = process.cpuUsage();
    growLag.enable();
    const growTo = () => growAndConverge(cluster, params.members, params.convergeTimeoutSeconds, params.formation ?? 'joins');
    const growProfile = params.cpuProfDir === undefined ? undefined : profilePath(params.cpuProfDir, `${mode}-growing`);
    const grow = growProfile === undefined ? await growTo() : await profiled(growProfile, growTo);
    growLag.disable();
    const cpu = process.cpuUsage(growCpu);
    const growingLoad = { cpuShare: (cpu.user + cpu.system) / 1000 / grow.convergeMs, lagP99Ms: Math.max(0, growLag.percentile(99) / 1e6 - LAG_RESOLUTION_MS) };
    const inFlightPeakGrowing = growing.stop();
    log(`${mode}: ${cluster.members.length} members (${grow.formation}, formed in ${(grow.formMs / 1000).toFixed(1)} s) ${grow.converged ? 'converged' : 'NOT converged'} in ${(grow.convergeMs / 1000).toFixed(1)} s`);
    const suspectsGrowing = cluster.suspects;
    const deathsGrowing = cluster.deaths;
    let window;
    let wrapperWindow;
    let threads;
    let profile;
    let inFlightPeakWindow;
    if (grow.grown) {
      await sleep(params.settleSeconds * 1000);
      const before = sumCounters(wrappers);
      const threadsBefore = threadCpu();
      const measuring = new InFlightPeak(wrappers);
      if (params.cpuProfDir === undefined) window = await measureWindow(cluster, params.seconds);
      else {
        profile = profilePath(params.cpuProfDir, mode);
        window = await profiled(profile, () => measureWindow(cluster, params.seconds));
      }
      inFlightPeakWindow = measuring.stop();
      threads = threadCpuSince(threadsBefore);
      wrapperWindow = mode === 'plain' ? undefined : difference(sumCounters(wrappers), before);
      log(`${mode}: measured ${params.seconds} s: ${window.packetsPerSecond.toFixed(0)} packets/s, CPU ${(window.cpuShare * 100).toFixed(1)} % of one core`);
    }
    run = {
      mode,
      members: cluster.members.length,
      formation: grow.formation,
      grown: grow.grown,
      converged: grow.converged,
      convergeMs: grow.convergeMs,
      formMs: grow.formMs,
      joinRetries: grow.joinRetries,
      joinFailures: cluster.joinFailures,
      growing: growingLoad,
      suspectsGrowing,
      deathsGrowing,
      suspectsBefore: cluster.suspects - (window?.suspects ?? 0),
      deathsBefore: cluster.deaths - (window?.deaths ?? 0),
      window,
      wrapperWindow,
      wrapperTotal: mode === 'plain' ? undefined : sumCounters(wrappers),
      inFlightPeak: mode === 'plain' ? undefined : { growing: inFlightPeakGrowing, window: inFlightPeakWindow },
      threads,
      profiles: {
        growing: growProfile === undefined ? undefined : { path: growProfile, summary: summariseProfile(growProfile) },
        window: profile === undefined ? undefined : { path: profile, summary: summariseProfile(profile) },
      },
      threadpool: process.env['UV_THREADPOOL_SIZE'] ?? '4 (default)',
    };
  } finally {
    closeStart = performance.now();
    await cluster.close();
  }
  return { ...run, closeMs: performance.now() - closeStart };
}
