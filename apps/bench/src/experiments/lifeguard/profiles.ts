import { memberlistProfile, type SwimConfig } from '@swim/core';
import { baseConfig, profileConfig } from '../../profiles.js';

/**
 * The configurations of the Lifeguard paper's evaluation (Dadgar, Phillips, Currey, arXiv
 * 1707.00788, §V-C): memberlist with Lifeguard's three components switched on one at a time, all
 * at a suspicion multiplier α = 5 and a probe interval of 1 s, plus our own defaults at the same α.
 *
 * - `swim`: the paper's SWIM baseline: a fixed suspicion timeout (α 5, β 1), no local health
 *   (awareness max multiplier 1, so probes never slow down), no nacks, no buddy system.
 * - `lha-probe`: swim + Local Health Aware Probe (§IV-A): awareness up to ×8 and nacks.
 * - `lha-suspicion`: swim + Local Health Aware Suspicion (§IV-B): β 6, confirmations shrink the timeout.
 * - `buddy`: swim + the buddy system (§IV-C): a ping to a suspect carries the accusation.
 * - `lifeguard`: memberlist as shipped with all three (α 5, β 6).
 * - `default`: our defaults at α 5 (the corrections and direct refutation on top of Lifeguard).
 */
export const LIFEGUARD_PROFILES = ['swim', 'lha-probe', 'lha-suspicion', 'buddy', 'lifeguard', 'default'] as const;
export type LifeguardProfile = (typeof LIFEGUARD_PROFILES)[number];

export function isLifeguardProfile(name: string): name is LifeguardProfile {
  return (LIFEGUARD_PROFILES as readonly string[]).includes(name);
}

/** memberlist with every Lifeguard component off: the paper's SWIM baseline (α 5, β 1). */
function swim(): SwimConfig {
  return Object.freeze({
    ...memberlistProfile(baseConfig()),
    awarenessMaxMultiplier: 1,
    requestNacks: false,
    suspicionMaxTimeoutMult: 1,
    buddySystem: false,
  });
}

export function lifeguardProfileConfig(name: LifeguardProfile): SwimConfig {
  const lifeguard = memberlistProfile(baseConfig());
  switch (name) {
    case 'swim':
      return swim();
    case 'lha-probe':
      return Object.freeze({ ...swim(), awarenessMaxMultiplier: lifeguard.awarenessMaxMultiplier, requestNacks: true });
    case 'lha-suspicion':
      return Object.freeze({ ...swim(), suspicionMaxTimeoutMult: lifeguard.suspicionMaxTimeoutMult });
    case 'buddy':
      return Object.freeze({ ...swim(), buddySystem: true });
    case 'lifeguard':
      return lifeguard;
    case 'default':
      return profileConfig('default');
  }
}

export function lifeguardProfileDescription(name: LifeguardProfile): string {
  switch (name) {
    case 'swim':
      return 'SWIM baseline: memberlist with fixed suspicion timeout (α 5, β 1), no local health, no nacks, no buddy system';
    case 'lha-probe':
      return 'SWIM + LHA-Probe: probe interval × (health + 1) up to ×8, nacks from ping-req helpers';
    case 'lha-suspicion':
      return 'SWIM + LHA-Suspicion: suspicion timeout from 6 × min down to min as confirmations arrive (β 6)';
    case 'buddy':
      return 'SWIM + buddy system: pings to a suspect carry the accusation';
    case 'lifeguard':
      return 'memberlist with all three (α 5, β 6), as shipped apart from α';
    case 'default':
      return '@swim defaults at α 5: Lifeguard + 2 s grace, health read at expiry, penalty before the suspicion, nack at 80%, direct refutation';
  }
}
