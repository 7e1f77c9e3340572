/**
 * Raw AES-GCM throughput through the wrapper's own functions (encryptBlob, decryptBlob: WebCrypto),
 * `concurrency` operations kept pending as the wrapper's maxInFlight allows, so the figure is what
 * this machine's WebCrypto gives the wrapper at most, with nothing else in the way.
 */
import { decryptBlob, encryptBlob } from '@swim/encryption';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { LAG_RESOLUTION_MS } from '../../../../../packages/transport-udp/bench/cluster.js';
import { BENCH_KEY } from './members.js';
import type { AesRun } from './result.js';

/** Keep `concurrency` calls of `op` pending until `seconds` pass; how many finished and how many failed. */
async function saturate(op: (i: number) => Promise<boolean>, seconds: number, concurrency: number): Promise<{ operations: number; failures: number; seconds: number }> {
  const start = performance.now();
  const end = start + seconds * 1000;
  let operations = 0;
  let failures = 0;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (performance.now() < end) {
      const ok = await op(next++);
      operations++;
      if (!ok) failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { operations, failures, seconds: (performance.now() - start) / 1000 };
}

export async function measureAes(payloadBytes: number, seconds: number, concurrency: number): Promise<AesRun[]> {
  const key = await crypto.subtle.importKey('raw', BENCH_KEY, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
  const payload = crypto.getRandomValues(new Uint8Array(payloadBytes));
  // Distinct blobs to open (each with its own nonce), reused round-robin.
  const blobs = await Promise.all(Array.from({ length: 256 }, () => encryptBlob(key, payload)));
  const runs: AesRun[] = [];
  const ops: Record<AesRun['op'], (i: number) => Promise<boolean>> = {
    encrypt: async () => (await encryptBlob(key, payload)).length > payloadBytes,
    decrypt: async (i) => (await decryptBlob([key], blobs[i % blobs.length]!))?.length === payloadBytes,
  };
  for (const op of ['encrypt', 'decrypt'] as const) {
    await saturate(ops[op], Math.min(0.5, seconds), concurrency); // warm-up, not counted
    const histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
    const cpuBefore = process.cpuUsage();
    histogram.enable();
    const r = await saturate(ops[op], seconds, concurrency);
    histogram.disable();
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    runs.push({
      op,
      payloadBytes,
      concurrency,
      operations: r.operations,
      seconds: r.seconds,
      operationsPerSecond: r.operations / r.seconds,
      megabytesPerSecond: (r.operations * payloadBytes) / r.seconds / 1e6,
      cpuMs,
      cpuMicrosPerOperation: r.operations > 0 ? (cpuMs * 1000) / r.operations : Number.NaN,
      lagP99Ms: Math.max(0, histogram.percentile(99) / 1e6 - LAG_RESOLUTION_MS),
      failures: r.failures,
    });
  }
  return runs;
}
