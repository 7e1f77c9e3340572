/** What every attack scenario returns: its figures, and the checks of issue 10's "Done when". */

export const SCENARIOS = ['incarnation', 'flood', 'amplification', 'hijack', 'streams', 'gateway', 'control'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** Issue 10's limits. */
export const LIMITS = {
  /** Resident memory an attack may add to a process. */
  rssGrowthMiB: 50,
  /** Longest the event loop may be blocked (on the CPU) by an attack. */
  stallMs: 100,
  /** Bytes out over bytes in, for any single packet. */
  amplification: 2,
  /** Seeds one join request may dial (the cli's MAX_JOIN_SEEDS). */
  joinSeeds: 64,
} as const;

export interface Check {
  /** What must hold, e.g. "victim alive in every view". */
  readonly what: string;
  /** What was measured. */
  readonly value: string;
  /** The limit or expected value. */
  readonly limit: string;
  readonly pass: boolean;
}

export interface ScenarioResult {
  readonly scenario: ScenarioName;
  readonly title: string;
  readonly wallMs: number;
  /** Figures as label/value pairs, in the order the report prints them. */
  readonly rows: ReadonlyArray<readonly [string, string]>;
  /** The same figures, structured, for the JSON report. */
  readonly figures: Record<string, unknown>;
  readonly checks: readonly Check[];
}

export function check(what: string, value: string, limit: string, pass: boolean): Check {
  return { what, value, limit, pass };
}

export function mib(bytes: number): number {
  return Math.round((bytes / 2 ** 20) * 10) / 10;
}

export function ms(value: number | undefined): string {
  return value === undefined ? 'n/a' : `${Math.round(value)} ms`;
}
