import type { ProgressHooks } from './hooks.js';
import { silent } from './hooks.js';
import { runBlackout, type BlackoutParams, type BlackoutResult } from './blackout.js';

/**
 * What Lifeguard is worth: one member cut off for 16 s with Lifeguard off (fixed suspicion timeout,
 * no probe slowdown), against memberlist (Lifeguard on) and our defaults, same seeds. The corrections
 * study reported 568 false deaths per outage with Lifeguard off.
 */
export const LIFEGUARD_OFF_DEFAULTS: BlackoutParams = {
  nodes: [128],
  cuts: [1],
  outages: [16],
  profiles: ['lifeguard-off', 'memberlist', 'default'],
  runs: 3,
  seed: 1,
};

export const LIFEGUARD_OFF_QUICK: BlackoutParams = { ...LIFEGUARD_OFF_DEFAULTS, runs: 1 };

export function runLifeguardOff(params: BlackoutParams, hooks: ProgressHooks = silent): BlackoutResult {
  return runBlackout(params, hooks, 'lifeguard-off');
}
