/** The bench's pure parts: names and their placement, the agents' views summed up, per-member rates. */
import type { RelayCounts, TabEvent, Timed } from './result.js';

/** `count` tab names with `prefix`, numbered from 0 and padded so that they sort. */
export function tabNames(prefix: string, count: number): string[] {
  const width = String(Math.max(0, count - 1)).length;
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(width, '0')}`);
}

/** A small seeded PRNG (mulberry32): the same seed places and picks the same tabs. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct items of `items`, picked by the seed. */
export function pick<T>(items: readonly T[], count: number, seed: number): T[] {
  const random = prng(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, Math.min(count, copy.length));
}

/** Round-robin: tab i goes to process i mod k, so that every process joins at the same pace. */
export function share<T>(items: readonly T[], k: number): T[][] {
  const shares: T[][] = Array.from({ length: k }, () => []);
  items.forEach((item, i) => shares[i % k]!.push(item));
  return shares;
}

/** What one agent last saw of a member: its state and when it entered it (epoch ms). */
export interface Seen {
  readonly state: string;
  readonly at: number;
}

/**
 * Whether every agent sees every one of `names` in `state`: how many (agent, name) pairs do not,
 * and, when none is missing, the latest time one of them entered it (when the last agent saw the
 * last name so). States seen instead are counted, for a report of what happened.
 */
export function allSeen(views: ReadonlyArray<ReadonlyMap<string, Seen>>, names: readonly string[], state: string): { missing: number; latestAt: number | undefined; instead: Record<string, number> } {
  let missing = 0;
  let latestAt = 0;
  const instead: Record<string, number> = {};
  for (const view of views) {
    for (const name of names) {
      const seen = view.get(name);
      if (seen?.state === state) latestAt = Math.max(latestAt, seen.at);
      else {
        missing++;
        const other = seen?.state ?? 'unknown';
        instead[other] = (instead[other] ?? 0) + 1;
      }
    }
  }
  return { missing, latestAt: missing === 0 && views.length > 0 && names.length > 0 ? latestAt : undefined, instead };
}

/**
 * The events about tabs that were alive: not about a tab closed or cut before the event (`gone`:
 * name → when the bench closed or cut it, epoch ms).
 */
export function falseEvents(events: readonly TabEvent[], gone: ReadonlyMap<string, number>): TabEvent[] {
  return events.filter((e) => {
    const at = gone.get(e.name);
    return at === undefined || e.at < at;
  });
}

/** Counts of a list of events by state. */
export function countByState(events: readonly TabEvent[]): { suspect: number; dead: number; left: number } {
  const counts = { suspect: 0, dead: 0, left: 0 };
  for (const e of events) counts[e.state]++;
  return counts;
}

/** Messages counted: why joins failed, for the report. */
export function tally(messages: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of messages) counts[m] = (counts[m] ?? 0) + 1;
  return counts;
}

/** The difference of two counter snapshots (the gateway's counters only grow). */
export function relayDelta(before: RelayCounts, after: RelayCounts): RelayCounts {
  const out: Record<string, number> = {};
  for (const key of Object.keys(after) as Array<keyof RelayCounts>) out[key] = after[key] - before[key];
  return out as unknown as RelayCounts;
}

/** Per member per second (NaN when there is no member or no time). */
export function perMemberSecond(total: number, members: number, seconds: number): number {
  return members > 0 && seconds > 0 ? total / members / seconds : NaN;
}

/** The largest of some values, ignoring NaN (NaN when none). */
export function maxOf(values: readonly number[]): number {
  const finite = values.filter(Number.isFinite);
  return finite.length === 0 ? NaN : Math.max(...finite);
}

/** A timed phase in words: tabs and seconds, or what was seen instead. */
export function timedText(t: Timed | undefined): string {
  if (t === undefined) return 'not run';
  return t.ms === undefined ? `${t.tabs} tabs, ${t.note ?? 'not seen'}` : `${t.tabs} tabs, ${(t.ms / 1000).toFixed(2)} s`;
}
