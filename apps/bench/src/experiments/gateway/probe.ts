/**
 * Inside every process of the bench: its CPU time (process.cpuUsage), event-loop delay
 * (perf_hooks.monitorEventLoopDelay, less its 10 ms resolution, as udp-scale reports it) and RSS
 * over a window that the parent resets between phases. And the IPC plumbing of a child process.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ProcessWindow } from './result.js';

const RESOLUTION_MS = 10;

export class Probe {
  readonly #histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  #cpu = process.cpuUsage();
  #start = performance.now();

  constructor() {
    this.#histogram.enable();
  }

  /** The window so far; `reset` starts a new one. */
  window(reset: boolean): ProcessWindow {
    const cpu = process.cpuUsage(this.#cpu);
    const h = this.#histogram;
    const sampled = h.count > 0;
    const window: ProcessWindow = {
      seconds: (performance.now() - this.#start) / 1000,
      cpuMs: (cpu.user + cpu.system) / 1000,
      loopP99Ms: sampled ? Math.max(0, h.percentile(99) / 1e6 - RESOLUTION_MS) : NaN,
      loopMaxMs: sampled ? Math.max(0, h.max / 1e6 - RESOLUTION_MS) : NaN,
      rssBytes: process.memoryUsage.rss(),
    };
    if (reset) {
      this.#cpu = process.cpuUsage();
      this.#start = performance.now();
      h.reset();
    }
    return window;
  }
}

/** A request from the parent: `op` and its arguments, `id` to answer. */
export interface Request {
  readonly op: string;
  readonly id: number;
  readonly [key: string]: unknown;
}

/** Answer the parent's requests with `handle` (a thrown error is answered as `{error}`). */
export function serve(handle: (request: Request) => unknown): void {
  process.on('message', (message: unknown) => {
    const request = message as Request;
    if (typeof request?.id !== 'number') return;
    void (async () => {
      try {
        process.send?.({ id: request.id, ok: true, value: await handle(request) });
      } catch (error) {
        process.send?.({ id: request.id, ok: false, error: (error as Error).message });
      }
    })();
  });
}

/** The JSON settings a child was started with (its one argument). */
export function settings<T>(): T {
  return JSON.parse(process.argv[2] ?? '{}') as T;
}
