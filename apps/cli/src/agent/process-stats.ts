/** The agent process's health for GET /stats: event-loop delay since start and resident memory. */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The delay monitor samples with a timer of this period and records whole periods: a sample minus this is the delay. */
const RESOLUTION_MS = 10;

export interface ProcessStats {
  /** Resident set size (bytes). */
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly uptimeMs: number;
  /** How late the event loop ran a timer, since the agent started (ms). */
  readonly eventLoopDelayMs: { readonly p50: number; readonly p99: number; readonly max: number };
}

export interface ProcessMonitor {
  snapshot(): ProcessStats;
  stop(): void;
}

export function startProcessMonitor(): ProcessMonitor {
  const startedAt = performance.now();
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const delayMs = (ns: number) => (histogram.count === 0 ? 0 : Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 1000) / 1000));
  return {
    snapshot: () => ({
      rssBytes: process.memoryUsage.rss(),
      heapUsedBytes: process.memoryUsage().heapUsed,
      uptimeMs: Math.round(performance.now() - startedAt),
      eventLoopDelayMs: { p50: delayMs(histogram.percentile(50)), p99: delayMs(histogram.percentile(99)), max: delayMs(histogram.max) },
    }),
    stop: () => histogram.disable(),
  };
}
