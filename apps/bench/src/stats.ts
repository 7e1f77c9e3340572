/** Small descriptive statistics over plain number arrays. Empty input gives NaN, never a throw. */

export function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : sum(values) / values.length;
}

/**
 * The q-quantile (0 ≤ q ≤ 1) by linear interpolation between closest ranks (Hyndman & Fan type 7,
 * the default of R, NumPy and spreadsheets): the median of [1, 2, 3, 4] is 2.5.
 */
export function quantile(values: readonly number[], q: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile: q must be in [0, 1], got ${q}`);
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const a = sorted[lower]!;
  const b = sorted[upper]!;
  return a + (b - a) * (position - lower);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

export function max(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((m, v) => (v > m ? v : m), -Infinity);
}

export function min(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((m, v) => (v < m ? v : m), Infinity);
}

export interface Summary {
  readonly count: number;
  readonly median: number;
  readonly p90: number;
  readonly max: number;
  readonly mean: number;
}

export function summarize(values: readonly number[]): Summary {
  return { count: values.length, median: median(values), p90: quantile(values, 0.9), max: max(values), mean: mean(values) };
}

/** `1234.5` → `"1.2 s"`, `75_000` → `"1m15s"`: for progress lines and reports. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}m${String(s).padStart(2, '0')}s`;
}

/** A number for a table: integers as is, others with `digits` decimals; NaN as an em dash. */
export function formatNumber(value: number, digits = 1): string {
  if (Number.isNaN(value)) return '—';
  if (Number.isInteger(value)) return String(value);
  return value.toFixed(digits);
}
