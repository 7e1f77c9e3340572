/**
 * Raw AES-GCM throughput through the wrapper's own functions (encryptBlob, decryptBlob) and each
 * engine. WebCrypto first with as many operations pending as the wrapper's maxInFlight allows (what
 * this machine's WebCrypto gives the wrapper at most), then one at a time (a cluster's packets come
 * one by one, far apart); node:crypto's engine is synchronous (its promises are already settled),
 * so only one at a time means anything for it. Last, node:crypto's cipher alone in the same blob
 * layout: what AES-256-GCM itself costs, and so what the blob layer and the engine add to it.
 */
import { decryptBlob, encryptBlob, NONCE_BYTES, TAG_BYTES } from '@swim/encryption';
import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { LAG_RESOLUTION_MS } from '../../../../../packages/transport-udp/bench/cluster.js';
import { AES_ENGINES, BENCH_KEY } from './members.js';
import type { AesApi, AesRun, Engine } from './result.js';

type Op = (i: number) => Promise<boolean> | boolean;

/** Keep `concurrency` calls of `op` pending until `seconds` pass; how many finished and how many failed. */
async function saturate(op: Op, seconds: number, concurrency: number): Promise<{ operations: number; failures: number; seconds: number }> {
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
      // A synchronous op would never yield: let timers (the delay monitor) run now and then.
      if (operations % 256 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { operations, failures, seconds: (performance.now() - start) / 1000 };
}

/** node:crypto's AES-256-GCM in the same blob layout: [version 1][nonce][ciphertext][tag]. */
function nodeSeal(key: Uint8Array, plaintext: Uint8Array): Uint8Array {
  const blob = new Uint8Array(1 + NONCE_BYTES + plaintext.length + TAG_BYTES);
  blob[0] = 1;
  const nonce = blob.subarray(1, 1 + NONCE_BYTES);
  randomFillSync(nonce);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  blob.set(cipher.update(plaintext), 1 + NONCE_BYTES);
  cipher.final();
  blob.set(cipher.getAuthTag(), 1 + NONCE_BYTES + plaintext.length);
  return blob;
}

function nodeOpen(key: Uint8Array, blob: Uint8Array): Uint8Array | undefined {
  const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(1, 1 + NONCE_BYTES));
  decipher.setAuthTag(blob.subarray(blob.length - TAG_BYTES));
  const plaintext = decipher.update(blob.subarray(1 + NONCE_BYTES, blob.length - TAG_BYTES));
  try {
    decipher.final();
  } catch {
    return undefined;
  }
  return plaintext;
}

interface Case {
  readonly api: AesApi;
  readonly op: AesRun['op'];
  readonly concurrency: number;
  readonly run: Op;
}

/** encryptBlob and decryptBlob through `engine`, at each of `concurrencies`. */
async function engineCases(engine: Engine, payload: Uint8Array, concurrencies: readonly number[]): Promise<Case[]> {
  const key = await AES_ENGINES[engine].importKey(BENCH_KEY);
  // Distinct blobs to open (each with its own nonce), reused round-robin.
  const blobs = await Promise.all(Array.from({ length: 256 }, () => encryptBlob(key, payload)));
  return concurrencies.flatMap((concurrency) => [
    { api: engine, op: 'encrypt' as const, concurrency, run: async () => (await encryptBlob(key, payload)).length > payload.length },
    { api: engine, op: 'decrypt' as const, concurrency, run: async (i: number) => (await decryptBlob([key], blobs[i % blobs.length]!))?.length === payload.length },
  ]);
}

export async function measureAes(payloadBytes: number, seconds: number, maxInFlight: number, engines: readonly Engine[]): Promise<AesRun[]> {
  const payload = crypto.getRandomValues(new Uint8Array(payloadBytes));
  const blobs = Array.from({ length: 256 }, () => nodeSeal(BENCH_KEY, payload));
  const cases: Case[] = [];
  for (const engine of engines) cases.push(...(await engineCases(engine, payload, engine === 'webcrypto' ? [maxInFlight, 1] : [1])));
  cases.push(
    { api: 'cipher', op: 'encrypt', concurrency: 1, run: () => nodeSeal(BENCH_KEY, payload).length > payloadBytes },
    { api: 'cipher', op: 'decrypt', concurrency: 1, run: (i) => nodeOpen(BENCH_KEY, blobs[i % blobs.length]!)?.length === payloadBytes },
  );
  const runs: AesRun[] = [];
  for (const c of cases) {
    await saturate(c.run, Math.min(0.5, seconds), c.concurrency); // warm-up, not counted
    const histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
    const cpuBefore = process.cpuUsage();
    histogram.enable();
    const r = await saturate(c.run, seconds, c.concurrency);
    histogram.disable();
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    runs.push({
      api: c.api,
      op: c.op,
      payloadBytes,
      concurrency: c.concurrency,
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
