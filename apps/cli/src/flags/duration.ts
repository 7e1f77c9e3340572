/**
 * Durations as operators write them for Serf and Consul (Go's time.ParseDuration): a number and a
 * unit, `500ms`, `1s`, `2m`, `1h`, or a sum of them, `1m30s`; decimals allowed (`1.5s`).
 * Milliseconds are the finest unit: the agent's timers count in them.
 */
import type { Command } from '../commands/names.js';
import { UsageError } from './usage-error.js';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
const PART = /(\d+(?:\.\d+)?|\.\d+)(ms|s|m|h)/y;

/** A duration that does not parse; the message names what was expected. */
export class DurationError extends Error {
  override name = 'DurationError';
}

/** `text` in whole milliseconds; `0` alone needs no unit. Throws {@link DurationError}. */
export function parseDuration(text: string): number {
  const expected = 'expected a number and a unit (ms, s, m, h), e.g. 500ms, 30s, 2m or 1m30s';
  if (typeof text !== 'string' || text.trim() === '') throw new DurationError(`empty duration: ${expected}`);
  if (text === '0') return 0;
  if (/^\d+(\.\d+)?$/.test(text)) throw new DurationError(`'${text}' has no unit: ${expected}`);
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const at = PART.lastIndex;
    const match = PART.exec(text);
    if (match === null) throw new DurationError(`'${text}' is not a duration at '${text.slice(at)}': ${expected}`);
    total += Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  }
  // Decimal units may leave float noise (0.1s + 0.2s): round to the nearest microsecond first.
  const ms = Math.round(total * 1000) / 1000;
  if (!Number.isInteger(ms)) throw new DurationError(`'${text}' is ${ms} ms: durations are whole milliseconds`);
  if (!Number.isSafeInteger(ms)) throw new DurationError(`'${text}' is too long`);
  return ms;
}

/** `ms` as the shortest text {@link parseDuration} reads back: 30000 → "30s", 90000 → "1m30s". */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  let rest = ms;
  let text = '';
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1_000], ['ms', 1]] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) text += `${n}${unit}`;
    rest -= n * size;
  }
  return text;
}

/** A duration flag's value (`--FLAG TEXT`) in milliseconds; a usage error of `command` naming the flag otherwise. */
export function durationFlag(command: Command, flag: string, text: string): number {
  try {
    return parseDuration(text);
  } catch (error) {
    if (!(error instanceof DurationError)) throw error;
    throw new UsageError(`--${flag}: ${error.message}`, command);
  }
}
