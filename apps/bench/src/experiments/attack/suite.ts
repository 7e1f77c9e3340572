/** Every attack scenario by name, in the order the suite runs them. */
import { runAmplification } from './amplification.js';
import { runControl } from './control.js';
import { runFlood } from './flood.js';
import { runGateway } from './gateway.js';
import { runHijack } from './hijack.js';
import { runIncarnation } from './incarnation.js';
import type { ScenarioName, ScenarioResult } from './result.js';
import type { AttackSizes } from './sizes.js';
import { runStreams } from './streams.js';

export const RUNNERS: Readonly<Record<ScenarioName, (sizes: AttackSizes) => Promise<ScenarioResult>>> = {
  incarnation: runIncarnation,
  flood: runFlood,
  amplification: runAmplification,
  hijack: runHijack,
  streams: runStreams,
  gateway: runGateway,
  control: runControl,
};
