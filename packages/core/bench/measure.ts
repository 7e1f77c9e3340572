/**
 * Self-timing micro-benchmark helper: warm up (so the JIT has compiled `fn`), then call `fn` in
 * batches until at least `minMs` have passed, and report calls per second.
 */
export interface Measurement {
  readonly opsPerSecond: number;
  /** Calls per second of this process's CPU time (user + system): steadier than wall time on a host other work is loading. */
  readonly opsPerCpuSecond: number;
  readonly iterations: number;
  readonly elapsedMs: number;
}

/** Results are stored here so the engine cannot drop calls whose result is unused. */
let sink: unknown;

export function measureOpsPerSecond(fn: () => unknown, minMs = 1000, warmupMs = Math.min(300, minMs)): Measurement {
  runFor(fn, warmupMs);
  const cpuStart = process.cpuUsage();
  const { iterations, elapsedMs } = runFor(fn, minMs);
  const cpu = process.cpuUsage(cpuStart);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return { opsPerSecond: (iterations / elapsedMs) * 1000, opsPerCpuSecond: (iterations / cpuMs) * 1000, iterations, elapsedMs };
}

function runFor(fn: () => unknown, minMs: number): { iterations: number; elapsedMs: number } {
  // Batches keep the clock out of the measured loop; the size grows until a batch takes ~10 ms.
  let batch = 16;
  let iterations = 0;
  const start = performance.now();
  let elapsedMs = 0;
  do {
    const batchStart = performance.now();
    for (let i = 0; i < batch; i++) sink = fn();
    iterations += batch;
    const now = performance.now();
    elapsedMs = now - start;
    if (now - batchStart < 10) batch *= 2;
  } while (elapsedMs < minMs);
  return { iterations, elapsedMs };
}

/** Reads the last result, so `sink` stays observable; call once at the end of a benchmark. */
export function consumeSink(): unknown {
  return sink;
}
