/**
 * `swim agent --profile`, `--config key=value` and `--transport key=value`: the core's config and
 * the UDP transport's bounds, each checked by the package's own validation.
 */
import { ConfigError, memberlistProfile, resolveConfig, type SwimConfig } from '@swim/core';
import { validateUdpTransportOptions, type UdpTransportOptions } from '@swim/transport-udp';
import { UsageError } from '../../flags/usage-error.js';
import type { Profile } from './flags.js';

/** The UDP transport's bounds an operator may set with `--transport key=value` (packet size and stream timeout come from the core config). */
export const TRANSPORT_KEYS = [
  'maxFrameBytes',
  'maxStreamBytesBuffered',
  'maxStreamBytesPerSource',
  'maxStreamConnections',
  'maxStreamConnectionsPerSource',
  'maxBurst',
  'maxQueuedPackets',
  'recvBufferBytes',
] as const satisfies ReadonlyArray<keyof UdpTransportOptions>;
export type TransportOverrides = Partial<Record<(typeof TRANSPORT_KEYS)[number], number>>;

/** `--transport key=value` pairs, every problem listed at once and checked by the transport's own validation. */
export function transportOverrides(pairs: readonly string[]): TransportOverrides {
  const overrides: Record<string, number> = {};
  const problems: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = pair.slice(0, Math.max(0, eq));
    const value = Number(pair.slice(eq + 1));
    if (eq <= 0) problems.push(`'${pair}': expected key=value`);
    else if (!(TRANSPORT_KEYS as readonly string[]).includes(key)) problems.push(`unknown key '${key}' (one of ${TRANSPORT_KEYS.join(', ')})`);
    else if (pair.slice(eq + 1).trim() === '' || !Number.isFinite(value)) problems.push(`${key} must be a number, got '${pair.slice(eq + 1)}'`);
    else overrides[key] = value;
  }
  if (problems.length === 0) {
    try {
      validateUdpTransportOptions({ bind: { host: '127.0.0.1', port: 0 }, ...overrides });
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      problems.push(...error.message.split('\n').slice(1).map((line) => line.replace(/^- /, '')));
    }
  }
  if (problems.length > 0) throw new UsageError(`--transport: ${problems.join('; ')}`, 'agent');
  return overrides;
}

/** The profile's config with `--config key=value` overrides, validated by the core. */
export function agentConfig(profile: Profile, pairs: readonly string[]): SwimConfig {
  const overrides: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--config '${pair}': expected key=value`, 'agent');
    const text = pair.slice(eq + 1);
    overrides[pair.slice(0, eq)] = text === 'true' ? true : text === 'false' ? false : /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  }
  try {
    const base = resolveConfig(overrides as Partial<SwimConfig>, profile === 'memberlist' ? 'lan' : profile);
    if (profile !== 'memberlist') return base;
    // memberlist's behaviour, with the user's overrides still on top.
    return resolveConfig({ ...memberlistProfile(base), ...(overrides as Partial<SwimConfig>) }, 'lan');
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`--config: ${error.problems.join('; ')}`, 'agent');
    throw error;
  }
}
