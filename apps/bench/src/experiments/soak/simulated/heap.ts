import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined | null = null;

/**
 * A full garbage collection when one can be forced: `global.gc` under `--expose-gc`, else the
 * flag set at run time and `gc` taken from a fresh context (V8 exposes it to contexts made after
 * the flag). Undefined when neither works: the heap is then read as it is.
 */
function gcFunction(): (() => void) | undefined {
  if (collect !== null) return collect;
  const global = globalThis as { gc?: () => void };
  if (typeof global.gc === 'function') return (collect = global.gc);
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    collect = typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    collect = undefined;
  }
  return collect;
}

/** `process.memoryUsage().heapUsed` after a forced full collection when possible; says which. */
export function heapUsedAfterGc(): { heapUsed: number; forced: boolean } {
  const gc = gcFunction();
  gc?.();
  return { heapUsed: process.memoryUsage().heapUsed, forced: gc !== undefined };
}
