import { memberlistProfile, type SwimConfig } from '@swim/core';
import { baseConfig } from '../../profiles.js';

/**
 * The configurations of `pnpm bench restart`: our defaults and the memberlist profile, each with
 * and without a snapshot to restart from, and the restart mechanisms one at a time.
 */
export const RESTART_PROFILES = [
  'default',
  'memberlist',
  'default+snapshot',
  'memberlist+snapshot',
  'default-before',
  'default-answer-only',
  'default-pingers-only',
  'memberlist+pr345',
] as const;
export type RestartProfile = (typeof RESTART_PROFILES)[number];

/** The profiles run at every size; the others (mechanisms, snapshots) only up to {@link SMALL_MAX_NODES}. */
export const MAIN_PROFILES: readonly RestartProfile[] = ['default', 'memberlist'];
export const SMALL_MAX_NODES = 128;

export function isRestartProfile(name: string): name is RestartProfile {
  return (RESTART_PROFILES as readonly string[]).includes(name);
}

const NO_RESTART_RULES = {
  answerStaleAlive: false,
  answerAccusedPingers: false,
  regossipStaleAccusation: false,
  relayUnknownAccusations: false,
} as const satisfies Partial<SwimConfig>;

/** The profile's config; `+snapshot` profiles share their base's. */
export function restartConfig(profile: RestartProfile): SwimConfig {
  const base = baseConfig();
  switch (profile) {
    case 'default':
    case 'default+snapshot':
      return base;
    case 'memberlist':
    case 'memberlist+snapshot':
      return memberlistProfile(base);
    case 'default-before':
      return Object.freeze({ ...base, ...NO_RESTART_RULES });
    case 'default-answer-only':
      return Object.freeze({ ...base, ...NO_RESTART_RULES, answerStaleAlive: true });
    case 'default-pingers-only':
      return Object.freeze({ ...base, ...NO_RESTART_RULES, answerAccusedPingers: true });
    case 'memberlist+pr345':
      return Object.freeze({ ...memberlistProfile(base), regossipStaleAccusation: true, relayUnknownAccusations: true });
  }
}

/** Restarted members resume from a snapshot taken at the crash (`member.snapshot()`, `MemberOptions.restore`). */
export function usesSnapshot(profile: RestartProfile): boolean {
  return profile.endsWith('+snapshot');
}

export function restartProfileDescription(profile: RestartProfile): string {
  switch (profile) {
    case 'default':
      return '@swim defaults: answerStaleAlive and answerAccusedPingers on (PR #345 rules off), direct refutation, both corrections';
    case 'memberlist':
      return 'memberlistProfile: memberlist as shipped, every restart rule off';
    case 'default+snapshot':
      return '@swim defaults, each member restarted from the snapshot it had at the crash (resumes above its last incarnation, preloads its members)';
    case 'memberlist+snapshot':
      return 'memberlistProfile, restarted from a snapshot';
    case 'default-before':
      return '@swim defaults with every restart rule off: the defaults before this change';
    case 'default-answer-only':
      return '@swim defaults with only answerStaleAlive';
    case 'default-pingers-only':
      return '@swim defaults with only answerAccusedPingers';
    case 'memberlist+pr345':
      return 'memberlistProfile + memberlist PR #345: regossipStaleAccusation and relayUnknownAccusations';
  }
}
