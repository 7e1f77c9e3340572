import type { AdaptiveResult } from './adaptive.js';
import type { BlackoutResult } from './blackout.js';
import type { CrashResult } from './crash.js';
import type { DetectorsResult } from './detectors/run.js';
import type { LossResult } from './loss.js';
import type { SpeedResult } from './speed.js';

/** What any experiment returns; `experiment` tells which. `lifeguard-off` has the blackout shape. */
export type ExperimentResult = BlackoutResult | CrashResult | LossResult | SpeedResult | DetectorsResult | AdaptiveResult;

/** How a result was produced, for the reports. */
export interface RunInfo {
  /** The command line, as typed (`pnpm bench …`). */
  readonly command: string;
  /** ISO 8601. */
  readonly date: string;
  readonly node: string;
  /** Wall time of this experiment, ms. */
  readonly wallMs: number;
}
