import { memberlistProfile, presets, suspicionTimeoutMs, type SwimConfig } from '@swim/core';

/**
 * The configurations the experiments compare. Every one starts from memberlist's LAN defaults with
 * a suspicion multiplier of 5, as in the corrections study (docs/corrections-study.md), which set it to match the Lifeguard paper.
 *
 * - `memberlist`: both corrections off, memberlist's ordering (penalty after the suspicion), nacks
 *   at the full probe timeout: the library as shipped.
 * - `grace`: memberlist + correction 1 (2 s grace on an overdue confirmation).
 * - `health-at-creation`: memberlist + health scaling read when the suspicion is created, with
 *   memberlist's ordering kept: the study's first fix, which did not work as written.
 * - `health-at-expiry`: memberlist + correction 2 (health read when the timer fires).
 * - `default`: our defaults: both corrections on, plus direct refutation (a suspect is asked once
 *   more before a timeout verdict, and answers accusations directly).
 * - `lifeguard-off` (not in the default list): memberlist with Lifeguard's two timing mechanisms
 *   turned off: no probe slowdown (awareness max multiplier 1, so the score stays 0) and a fixed
 *   suspicion timeout (max = min, so confirmations cannot shrink it).
 */
export const PROFILE_NAMES = ['memberlist', 'grace', 'health-at-creation', 'health-at-expiry', 'default'] as const;
export const EXTRA_PROFILE_NAMES = ['lifeguard-off'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number] | (typeof EXTRA_PROFILE_NAMES)[number];

export const ALL_PROFILE_NAMES: readonly ProfileName[] = [...PROFILE_NAMES, ...EXTRA_PROFILE_NAMES];

export function isProfileName(name: string): name is ProfileName {
  return (ALL_PROFILE_NAMES as readonly string[]).includes(name);
}

/** The corrections study's settings: memberlist's LAN defaults (our `lan` preset) with suspicionMult 5. */
export function baseConfig(): SwimConfig {
  return Object.freeze({ ...presets.lan(), suspicionMult: 5 });
}

export function profileConfig(name: ProfileName): SwimConfig {
  const base = baseConfig();
  const memberlist = memberlistProfile(base);
  switch (name) {
    case 'memberlist':
      return memberlist;
    case 'grace':
      return Object.freeze({ ...memberlist, overdueGraceMs: 2000 });
    case 'health-at-creation':
      return Object.freeze({ ...memberlist, healthScaling: 'at-creation' });
    case 'health-at-expiry':
      return Object.freeze({ ...memberlist, healthScaling: 'at-expiry' });
    case 'default':
      return base;
    case 'lifeguard-off':
      return Object.freeze({ ...memberlist, awarenessMaxMultiplier: 1, suspicionMaxTimeoutMult: 1 });
  }
}

/** One line per profile: what it changes relative to the base settings. */
export function profileDescription(name: ProfileName): string {
  switch (name) {
    case 'memberlist':
      return 'memberlist as shipped: no grace, no health scaling, penalty after the suspicion, nack at 100% of the probe timeout';
    case 'grace':
      return 'memberlist + 2 s grace on an overdue confirmation';
    case 'health-at-creation':
      return 'memberlist + health scaling read when the suspicion is created (memberlist ordering kept)';
    case 'health-at-expiry':
      return 'memberlist + health scaling read when the suspicion timer fires';
    case 'default':
      return '@swim defaults: grace 2 s + health read at expiry, penalty before the suspicion, nack at 80%, direct refutation';
    case 'lifeguard-off':
      return 'memberlist with Lifeguard off: no probe slowdown (awareness max 1), fixed suspicion timeout (max = min)';
  }
}

/** The settings in which the profiles differ from each other, in a stable order. */
export const PROFILE_KEYS = [
  'overdueGraceMs',
  'healthScaling',
  'healthPenaltyOrder',
  'nackTimeoutRatio',
  'awarenessMaxMultiplier',
  'suspicionMaxTimeoutMult',
  'fallbackStreamPing',
  'directRefutation',
] as const satisfies ReadonlyArray<keyof SwimConfig>;

/**
 * The fields some profile sets differently from the base: the PROFILE_KEYS first, then any other
 * field a profile changes (memberlistProfile also turns reconnect off, fixes the probe timeout mode
 * and keys refutations by address), so a report never lists a field as common when it is not.
 */
export function differingKeys(profiles: readonly ProfileName[]): Array<keyof SwimConfig> {
  const base = baseConfig();
  const others = (Object.keys(base) as Array<keyof SwimConfig>).filter(
    (key) => !(PROFILE_KEYS as readonly string[]).includes(key) && profiles.some((p) => profileConfig(p)[key] !== base[key]),
  );
  return [...PROFILE_KEYS, ...others];
}

/** Lifeguard's suspicion timeout bounds for a cluster of `n` (memberlist suspectNode). */
export function suspicionBoundsMs(config: SwimConfig, n: number): { minMs: number; maxMs: number } {
  const minMs = suspicionTimeoutMs(config.suspicionMult, n, config.probeIntervalMs);
  return { minMs, maxMs: minMs * config.suspicionMaxTimeoutMult };
}
