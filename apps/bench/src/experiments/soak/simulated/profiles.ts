import type { SwimConfig } from '@swim/core';
import { restartConfig } from '../../restart/profiles.js';

/** The configurations of the simulated day: our defaults beside memberlist's (issue 29 wants both false-death counts). */
export const SOAK_PROFILES = ['defaults', 'memberlist'] as const;
export type SoakProfile = (typeof SOAK_PROFILES)[number];

/** The same configs as `pnpm bench restart`'s `default` and `memberlist` (the corrections study's base, suspicionMult 5). */
export function soakConfig(profile: SoakProfile): SwimConfig {
  return restartConfig(profile === 'defaults' ? 'default' : 'memberlist');
}

export function soakProfileDescription(profile: SoakProfile): string {
  return profile === 'defaults'
    ? '@swim defaults (the lan preset, suspicionMult 5 as in the corrections study): both corrections, direct refutation, reconnect, restart rules'
    : 'memberlistProfile of the same base: memberlist as shipped';
}
