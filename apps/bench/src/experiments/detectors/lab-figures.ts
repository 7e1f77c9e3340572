/**
 * The detector lab's published figures (Python's `random` with fixed seeds), copied from its
 * text so the report can set them next to ours. Seconds and false alarms per hour.
 *
 * Tables: steps 2 and 4 (4 hours of each regime, trace seed 1, 400 crashes, scored from 120 s to
 * the end minus 60 s); fixed 2.5 s and 5.5 s appear in both steps with the same numbers.
 * Adaptation: step 5 (one 3-hour trace, seed 3: calm, busy, calm).
 */

export interface LabRow {
  /** The silence tolerated after the last heartbeat of the trace, s. */
  readonly tolerates: number;
  readonly perHour: number;
  readonly mean: number;
  readonly p99: number;
}

export const LAB_TABLES: Readonly<Record<'calm' | 'busy', Readonly<Record<string, LabRow>>>> = {
  calm: {
    'fixed-1.5': { tolerates: 1.5, perHour: 4.6, mean: 1.03, p99: 1.51 },
    'fixed-2.5': { tolerates: 2.5, perHour: 0.0, mean: 2.03, p99: 2.51 },
    'fixed-3.5': { tolerates: 3.5, perHour: 0.0, mean: 3.03, p99: 3.51 },
    'fixed-5.5': { tolerates: 5.5, perHour: 0.0, mean: 5.03, p99: 5.51 },
    'phi-8-pause-0': { tolerates: 1.56, perHour: 4.6, mean: 1.09, p99: 1.57 },
    'phi-8-pause-1': { tolerates: 2.56, perHour: 0.0, mean: 2.09, p99: 2.57 },
    'phi-8-pause-3': { tolerates: 4.56, perHour: 0.0, mean: 4.09, p99: 4.57 },
    'exp-phi-8': { tolerates: 18.42, perHour: 0.0, mean: 17.98, p99: 18.46 },
    'exp-phi-3': { tolerates: 6.91, perHour: 0.0, mean: 6.45, p99: 6.93 },
  },
  busy: {
    'fixed-1.5': { tolerates: 1.5, perHour: 224.1, mean: 1.2, p99: 2.01 },
    'fixed-2.5': { tolerates: 2.5, perHour: 5.1, mean: 2.2, p99: 3.01 },
    'fixed-3.5': { tolerates: 3.5, perHour: 0.0, mean: 3.2, p99: 4.01 },
    'fixed-5.5': { tolerates: 5.5, perHour: 0.0, mean: 5.2, p99: 6.01 },
    'phi-8-pause-0': { tolerates: 2.72, perHour: 2.5, mean: 2.49, p99: 3.28 },
    'phi-8-pause-1': { tolerates: 3.72, perHour: 0.0, mean: 3.49, p99: 4.28 },
    'phi-8-pause-3': { tolerates: 5.72, perHour: 0.0, mean: 5.49, p99: 6.28 },
    'exp-phi-8': { tolerates: 18.88, perHour: 0.0, mean: 18.55, p99: 19.39 },
    'exp-phi-3': { tolerates: 7.08, perHour: 0.0, mean: 6.77, p99: 7.59 },
  },
};

/** The lab's step 1: one hour of each regime (seed 1). */
export const LAB_TRACE_STATS: Readonly<Record<'calm' | 'busy', { readonly counted: number; readonly medianDelayMs: number; readonly longestSilenceS: number; readonly p999SilenceS: number }>> = {
  calm: { counted: 3597, medianDelayMs: 20, longestSilenceS: 2.01, p999SilenceS: 1.04 },
  busy: { counted: 3513, medianDelayMs: 149, longestSilenceS: 3.62, p999SilenceS: 2.74 },
};

/** Step 5, per phase: false alarms (one trace) and mean detection, s. */
export const LAB_PHASES: Readonly<Record<string, ReadonlyArray<{ readonly alarms: number; readonly mean: number }>>> = {
  'fixed-2.5': [
    { alarms: 0, mean: 2.03 },
    { alarms: 6, mean: 2.22 },
    { alarms: 0, mean: 2.04 },
  ],
  'fixed-5.5': [
    { alarms: 0, mean: 5.03 },
    { alarms: 0, mean: 5.22 },
    { alarms: 0, mean: 5.04 },
  ],
  'phi-8-pause-1': [
    { alarms: 0, mean: 2.09 },
    { alarms: 1, mean: 3.28 },
    { alarms: 0, mean: 2.31 },
  ],
  'phi-8-pause-1-window-100': [
    { alarms: 0, mean: 2.09 },
    { alarms: 0, mean: 3.44 },
    { alarms: 0, mean: 2.13 },
  ],
};

/** Step 5: false alarms in each 10 minutes after the network turns busy (one trace). */
export const LAB_BUSY_SLICES: Readonly<Record<string, readonly number[]>> = {
  'fixed-2.5': [1, 2, 1, 1, 0, 1],
  'fixed-5.5': [0, 0, 0, 0, 0, 0],
  'phi-8-pause-1': [1, 0, 0, 0, 0, 0],
  'phi-8-pause-1-window-100': [0, 0, 0, 0, 0, 0],
};

/** Step 5: mean detection time (s) in each 10 minutes after the network calms down again. */
export const LAB_CALM_AGAIN_SLICES: Readonly<Record<string, readonly number[]>> = {
  'fixed-2.5': [2.0, 2.0, 2.0, 2.0, 2.0, 2.0],
  'fixed-5.5': [5.0, 5.0, 5.0, 5.0, 5.0, 5.0],
  'phi-8-pause-1': [2.96, 2.23, 2.06, 2.07, 2.06, 2.06],
  'phi-8-pause-1-window-100': [2.19, 2.06, 2.06, 2.07, 2.06, 2.06],
};
