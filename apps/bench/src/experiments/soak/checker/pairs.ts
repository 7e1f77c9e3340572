import type { Observation, Percentiles } from './types.js';

/** Observations grouped by (observer, subject), each group in time order (indexes into the timeline's array). */
export class PairIndex {
  readonly #groups = new Map<string, number[]>();
  readonly observations: readonly Observation[];

  constructor(observations: readonly Observation[]) {
    this.observations = observations;
    for (let i = 0; i < observations.length; i++) {
      const o = observations[i]!;
      const key = pairKey(o.observer, o.subject);
      const group = this.#groups.get(key);
      if (group === undefined) this.#groups.set(key, [i]);
      else group.push(i);
    }
  }

  /** What `observer` saw about `subject`, in time order. */
  of(observer: string, subject: string): Observation[] {
    return (this.#groups.get(pairKey(observer, subject)) ?? []).map((i) => this.observations[i]!);
  }
}

export function pairKey(observer: string, subject: string): string {
  return `${observer}\u0000${subject}`;
}

/** Nearest-rank percentiles (the value at or below which p % of the values lie); NaN when empty. */
export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!);
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]! };
}

/** Seconds with one decimal, for violation texts. */
export function s(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
