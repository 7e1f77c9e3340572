/**
 * What an attack costs the processes it hits, over a window: resident memory growth (peak over the
 * window minus the start) and the longest event-loop stall, both measured inside or from the
 * kernel's view of each process, never from the attacker's wall clock.
 */
import { LIMITS, check, mib, ms, type Check } from './result.js';
import { resetPeakRss, rssOf, sampleMonitor, type Watched } from './processes.js';

export interface Load {
  readonly process: string;
  readonly rssBeforeMiB: number;
  readonly rssPeakMiB: number;
  readonly rssGrowthMiB: number;
  /** Longest CPU-bound gap between the monitor's 10 ms ticks; undefined if it never answered. */
  readonly maxStallMs: number | undefined;
  /** Longest wall-clock gap (includes time the scheduler kept the process waiting). */
  readonly maxGapMs: number | undefined;
  readonly exited: boolean;
  /** Set when the monitor did not answer: how long it was waited for (the process was blocked at least that long, or gone). */
  readonly silentForMs?: number;
}

interface Baseline {
  readonly proc: Watched;
  readonly rssBytes: number;
}

export interface Window {
  readonly baselines: readonly Baseline[];
}

/** Start a window: note each process's RSS, reset its peak mark and its monitor's maxima. */
export async function openWindow(procs: readonly Watched[]): Promise<Window> {
  await Promise.all(procs.map((proc) => sampleMonitor(proc, true)));
  const baselines = procs.map((proc) => {
    resetPeakRss(proc);
    return { proc, rssBytes: rssOf(proc)?.rssBytes ?? NaN };
  });
  return { baselines };
}

/** Close a window: each process's peak RSS and longest stall since {@link openWindow}. */
export async function closeWindow(window: Window, askTimeoutMs = 30_000): Promise<Load[]> {
  return Promise.all(
    window.baselines.map(async ({ proc, rssBytes }) => {
      const sample = await sampleMonitor(proc, true, askTimeoutMs);
      const rss = rssOf(proc);
      const peak = Math.max(rss?.peakBytes ?? NaN, sample?.peakRssBytes ?? 0);
      return {
        process: proc.name,
        rssBeforeMiB: mib(rssBytes),
        rssPeakMiB: mib(peak),
        rssGrowthMiB: mib(peak - rssBytes),
        maxStallMs: sample?.maxStallMs,
        maxGapMs: sample?.maxGapMs,
        exited: proc.exit !== undefined,
        ...(sample === undefined ? { silentForMs: askTimeoutMs } : {}),
      };
    }),
  );
}

/** The worst process of a window, for the report. */
export function worst(loads: readonly Load[]): { rssGrowthMiB: number; maxStallMs: number | undefined; maxGapMs: number | undefined; exited: string[] } {
  const stalls = loads.map((l) => l.maxStallMs);
  const gaps = loads.map((l) => l.maxGapMs);
  return {
    rssGrowthMiB: Math.max(...loads.map((l) => l.rssGrowthMiB)),
    // A process that never answered its monitor has no figure: the worst is unknown, not the largest known.
    maxStallMs: stalls.some((s) => s === undefined) ? undefined : Math.max(...(stalls as number[])),
    maxGapMs: gaps.some((g) => g === undefined) ? undefined : Math.max(...(gaps as number[])),
    exited: loads.filter((l) => l.exited).map((l) => l.process),
  };
}

/** The issue's checks on a window: RSS growth, stall, no process exit. */
export function loadChecks(label: string, loads: readonly Load[]): Check[] {
  const w = worst(loads);
  const stallOf = loads.find((l) => l.maxStallMs === w.maxStallMs)?.process ?? 'a process that did not answer';
  const rssOf = loads.find((l) => l.rssGrowthMiB === w.rssGrowthMiB)?.process ?? '?';
  return [
    check(`${label}: no process exited`, w.exited.length === 0 ? 'none' : w.exited.join(', '), 'none', w.exited.length === 0),
    check(`${label}: RSS growth`, `${w.rssGrowthMiB} MiB (${rssOf})`, `< ${LIMITS.rssGrowthMiB} MiB`, w.rssGrowthMiB < LIMITS.rssGrowthMiB),
    check(
      `${label}: event-loop stall`,
      w.maxStallMs === undefined ? silentText(loads) : `${ms(w.maxStallMs)} (${stallOf}; wall ${ms(w.maxGapMs)})`,
      `< ${LIMITS.stallMs} ms`,
      w.maxStallMs !== undefined && w.maxStallMs < LIMITS.stallMs,
    ),
  ];
}

function silentText(loads: readonly Load[]): string {
  return loads
    .filter((l) => l.maxStallMs === undefined)
    .map((l) => (l.exited ? `${l.process} exited` : `${l.process} did not answer its monitor within ${ms(l.silentForMs)}`))
    .join('; ');
}

/** One row per process: "a: +12.3 MiB, stall 4 ms". */
export function loadRow(loads: readonly Load[]): string {
  return loads
    .map((l) => `${l.process}: ${l.rssBeforeMiB}→${l.rssPeakMiB} MiB (+${l.rssGrowthMiB}), ${l.maxStallMs === undefined ? `no answer within ${ms(l.silentForMs)}` : `stall ${ms(l.maxStallMs)} (wall ${ms(l.maxGapMs)})`}${l.exited ? ', EXITED' : ''}`)
    .join('; ');
}
