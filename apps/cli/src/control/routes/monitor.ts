/**
 * `GET /monitor`: the agent's membership changes and log lines streamed to `swim monitor` as they
 * happen, as `serf monitor` streams Serf's. A monitor is as hostile as any control client: what is
 * written to one and not yet taken by its socket is bounded, one that falls behind is dropped (Serf
 * drops the lines a slow monitor cannot take), and only so many stream at once.
 */
import type { ServerResponse } from 'node:http';
import { reply } from '../server.js';
import { parseMonitorKinds, type MonitorKind } from '../monitor-kinds.js';

export const MONITOR_ROUTE = 'GET /monitor';
/** Bytes written to one monitor and not yet taken by its socket: a line that would go past this drops the monitor. */
export const MAX_MONITOR_BUFFERED_BYTES = 256 * 1024;
/** Monitors streaming at once; the next one is refused (503) until one ends. */
export const MAX_MONITORS = 16;

export interface MonitorLimits {
  readonly maxMonitors: number;
  readonly maxBufferedBytes: number;
}

export interface MonitorStats {
  /** Monitors streaming now. */
  readonly streaming: number;
  readonly opened: number;
  /** Dropped for falling behind by more than `maxBufferedBytes`. */
  readonly dropped: number;
  /** Refused: `maxMonitors` were already streaming. */
  readonly refused: number;
  /** The most ever buffered for one monitor (never more than `maxBufferedBytes`). */
  readonly maxBufferedBytes: number;
}

interface Monitor {
  readonly res: ServerResponse;
  readonly kinds: ReadonlySet<MonitorKind>;
  readonly json: boolean;
}

const QUERY_KEYS = ['format', 'kinds'];

export class MonitorHub {
  readonly #monitors = new Set<Monitor>();
  readonly #limits: MonitorLimits;
  readonly #onDrop: () => void;
  #opened = 0;
  #dropped = 0;
  #refused = 0;
  #maxBuffered = 0;
  #closed = false;

  /** `onDrop` runs after a monitor was dropped, outside the write that dropped it. */
  constructor(options: { readonly limits?: MonitorLimits; readonly onDrop?: () => void } = {}) {
    this.#limits = options.limits ?? { maxMonitors: MAX_MONITORS, maxBufferedBytes: MAX_MONITOR_BUFFERED_BYTES };
    this.#onDrop = options.onDrop ?? (() => {});
  }

  get stats(): MonitorStats {
    return { streaming: this.#monitors.size, opened: this.#opened, dropped: this.#dropped, refused: this.#refused, maxBufferedBytes: this.#maxBuffered };
  }

  /** `GET /monitor?format=text|json&kinds=join,dead,log`: answer 200 and keep the response open, or refuse. */
  serve(query: URLSearchParams, res: ServerResponse): void {
    const unknown = [...query.keys()].filter((key) => !QUERY_KEYS.includes(key));
    if (unknown.length > 0) return reply(res, 400, { error: `unknown parameter '${unknown[0]!.slice(0, 40)}' (expected ${QUERY_KEYS.join(', ')})` });
    const format = query.get('format') ?? 'text';
    if (format !== 'text' && format !== 'json') return reply(res, 400, { error: `format '${format.slice(0, 40)}': expected text or json` });
    const kinds = parseMonitorKinds(query.getAll('kinds').filter((list) => list !== ''));
    if ('problem' in kinds) return reply(res, 400, { error: `kinds: ${kinds.problem}` });
    if (this.#closed) return reply(res, 503, { error: 'the agent is stopping' });
    if (this.#monitors.size >= this.#limits.maxMonitors) {
      this.#refused++;
      return reply(res, 503, { error: `${this.#limits.maxMonitors} monitors are streaming already, the most this agent serves at once` });
    }
    const monitor: Monitor = { res, kinds: new Set(kinds), json: format === 'json' };
    this.#monitors.add(monitor);
    this.#opened++;
    res.once('close', () => this.#monitors.delete(monitor));
    res.writeHead(200, {
      'content-type': format === 'json' ? 'application/x-ndjson' : 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    // The client knows it is streaming before the first line.
    res.flushHeaders();
  }

  /** One line of the agent's log to every monitor that asked for its kind. */
  publish(kind: MonitorKind, json: Readonly<Record<string, unknown>>, text: string): void {
    if (this.#monitors.size === 0) return;
    let jsonLine: string | undefined;
    for (const monitor of this.#monitors) {
      if (!monitor.kinds.has(kind)) continue;
      this.#write(monitor, monitor.json ? (jsonLine ??= `${JSON.stringify(json)}\n`) : `${text}\n`);
    }
  }

  /** End every stream (the agent is stopping): the clients see the end, not a lost connection. */
  close(): void {
    this.#closed = true;
    for (const monitor of this.#monitors) monitor.res.end();
    this.#monitors.clear();
  }

  #write(monitor: Monitor, line: string): void {
    // writableLength: what the response holds plus what its socket has not handed to the kernel yet.
    if (monitor.res.writableLength + Buffer.byteLength(line) > this.#limits.maxBufferedBytes) return this.#drop(monitor);
    monitor.res.write(line);
    if (monitor.res.writableLength > this.#maxBuffered) this.#maxBuffered = monitor.res.writableLength;
  }

  #drop(monitor: Monitor): void {
    this.#monitors.delete(monitor);
    this.#dropped++;
    monitor.res.destroy();
    queueMicrotask(this.#onDrop);
  }
}
