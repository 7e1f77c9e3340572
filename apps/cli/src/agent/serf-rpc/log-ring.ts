/**
 * The agent's log for Serf RPC `monitor` clients: every line with Serf's level, the last 512 kept
 * and replayed to a new monitor first (serf agent logWriter keeps 512 too), then every new one.
 * Lines are written as Serf's logger writes them: `2006/01/02 15:04:05 [INFO] swim: text`.
 */
import type { RpcLogLevel, RpcLogLine } from '../../serf-rpc/backend.js';

export const LOG_LINES_KEPT = 512;

export class LogRing {
  readonly #lines: RpcLogLine[] = [];
  readonly #listeners = new Set<(line: RpcLogLine) => void>();

  add(level: RpcLogLevel, at: Date, text: string): void {
    const line = { level, text: `${goLogTime(at)} [${level}] swim: ${text}` };
    this.#lines.push(line);
    if (this.#lines.length > LOG_LINES_KEPT) this.#lines.shift();
    for (const listener of this.#listeners) listener(line);
  }

  subscribe(listener: (line: RpcLogLine) => void): () => void {
    for (const line of this.#lines) listener(line);
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** Go's log.LstdFlags time, in UTC: `2006/01/02 15:04:05`. */
function goLogTime(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getUTCFullYear()}/${pad(at.getUTCMonth() + 1)}/${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}`;
}

/** The level of an agent log event: errors are ERR, failures to reach someone WARN, the rest INFO. */
export function levelOfEvent(event: string): RpcLogLevel {
  if (event === 'error') return 'ERR';
  if (event.endsWith('-failed') || event.endsWith('-dropped') || event === 'suspect' || event === 'dead' || event === 'serf-rpc') return 'WARN';
  return 'INFO';
}
