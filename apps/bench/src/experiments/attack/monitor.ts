/**
 * Preloaded (`node --import`) into every process the attack suite starts: measures, from inside,
 * how long the event loop was blocked and how much memory the process holds, and answers over the
 * IPC channel. Observes only; changes nothing in the process it runs in.
 *
 * A stall is the gap between two ticks of a 10 ms interval timer, counted only as far as the main
 * thread was on the CPU during the gap: a process the scheduler left waiting on a loaded machine is
 * slow, not blocked, and a gap the attack caused (a synchronous merge, a long GC pause) is spent on
 * the CPU. Both figures are kept: `maxGapMs` (wall clock) and `maxStallMs` (CPU-bound part).
 */
import { readFileSync } from 'node:fs';

const TICK_MS = 10;
/** Linux accounts thread CPU time in clock ticks of 1/100 s (USER_HZ). */
const MS_PER_CLOCK_TICK = 10;
const THREAD_STAT = `/proc/self/task/${process.pid}/stat`;

/** The main thread's user + system CPU time in ms, or undefined where /proc is missing. */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(THREAD_STAT, 'latin1');
    // Fields after "(comm)": state is field 3, utime 14, stime 15 (proc(5)).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_CLOCK_TICK;
  } catch {
    return undefined;
  }
}

let lastTick = performance.now();
let lastCpu = mainThreadCpuMs();
let maxGapMs = 0;
let maxStallMs = 0;
let peakRssBytes = process.memoryUsage.rss();
let windowStart = performance.now();

setInterval(() => {
  const now = performance.now();
  const cpu = mainThreadCpuMs();
  const late = Math.max(0, now - lastTick - TICK_MS);
  const onCpu = cpu === undefined || lastCpu === undefined ? late : cpu - lastCpu;
  if (late > maxGapMs) maxGapMs = late;
  const stall = Math.min(late, onCpu);
  if (stall > maxStallMs) maxStallMs = stall;
  const rss = process.memoryUsage.rss();
  if (rss > peakRssBytes) peakRssBytes = rss;
  lastTick = now;
  lastCpu = cpu;
}, TICK_MS).unref();

/** What the monitor answers: maxima since the last reset (or the start). */
export interface MonitorSample {
  readonly op: 'monitor';
  readonly id: number;
  readonly windowMs: number;
  readonly maxGapMs: number;
  readonly maxStallMs: number;
  readonly rssBytes: number;
  readonly peakRssBytes: number;
  readonly heapUsedBytes: number;
}

if (process.send !== undefined) {
  process.on('message', (message: unknown) => {
    const request = message as { op?: unknown; id?: unknown; reset?: unknown } | null;
    if (request?.op !== 'monitor' || typeof request.id !== 'number') return;
    const now = performance.now();
    const rss = process.memoryUsage.rss();
    const sample: MonitorSample = {
      op: 'monitor',
      id: request.id,
      windowMs: now - windowStart,
      maxGapMs,
      maxStallMs,
      rssBytes: rss,
      peakRssBytes: Math.max(peakRssBytes, rss),
      heapUsedBytes: process.memoryUsage().heapUsed,
    };
    if (request.reset === true) {
      maxGapMs = 0;
      maxStallMs = 0;
      peakRssBytes = rss;
      windowStart = now;
    }
    process.send?.(sample);
  });
  // The channel must not keep a process alive that would otherwise exit.
  process.channel?.unref();
}
