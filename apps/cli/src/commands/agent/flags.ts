/**
 * `swim agent`'s flags, checked into {@link AgentArgs}: what the agent starts from. `--config-file`
 * gives any of them from a JSON file, under those given on the command line.
 */
import { isIP } from 'node:net';
import type { PresetName, SwimConfig } from '@swim/core';
import { isLoopbackIp } from '../../control/loopback.js';
import { fileFlags, type ReadText } from '../../flags/config-file.js';
import { durationFlag, formatDuration } from '../../flags/duration.js';
import { hostPortFlag, parseHostPort, type HostPort } from '../../flags/host-port.js';
import { rpcAddress, rpcToken, RPC_TOKEN_ENV, type Env } from '../../flags/rpc.js';
import { noPositionals, splitList, type FlagSpecs, type RawFlags } from '../../flags/scan.js';
import { MAX_JOIN_SEEDS } from '../../flags/seeds.js';
import { parseQueryHandlers, type QueryHandlerSpec } from '../../flags/query-handlers.js';
import { parseTags } from '../../flags/tags.js';
import { UsageError } from '../../flags/usage-error.js';
import type { Command } from '../names.js';
import { agentConfig, transportOverrides, type TransportOverrides } from './config.js';
import { encryptionArgs, type EncryptionArgs } from './encryption-flags.js';

export type Profile = PresetName | 'memberlist';
const PROFILES: readonly Profile[] = ['lan', 'wan', 'local', 'memberlist'];

/** The bytes on the network: swim's own codec, or memberlist's (to join Serf and other memberlist clusters). */
export type Wire = 'swim' | 'memberlist';
const WIRES: readonly Wire[] = ['swim', 'memberlist'];

export interface AgentArgs {
  readonly command: 'agent';
  readonly name: string;
  readonly bind: HostPort;
  readonly advertise: HostPort | undefined;
  readonly join: readonly string[];
  /** `--retry-join`: seeds tried every `retryIntervalMs` until one answers (Serf's retry-join); host names resolved at each attempt. */
  readonly retryJoin: readonly string[];
  /** `--retry-interval` (default 30 s, Serf's). */
  readonly retryIntervalMs: number;
  /** `--retry-max`: attempts in all before the agent gives up and exits 1; 0 = no limit (the default). */
  readonly retryMax: number;
  readonly profile: Profile;
  /** `--wire`: the wire format spoken (default swim). */
  readonly wire: Wire;
  /** The resolved config: the profile with `--config` overrides, validated. */
  readonly config: SwimConfig;
  /** `--transport` overrides of the UDP transport's bounds, validated. */
  readonly transport: TransportOverrides;
  /** `--tag key=value`: the member's metadata, sent as Serf tags (encodeTags) whatever the wire. */
  readonly tags: Readonly<Record<string, string>>;
  readonly rpc: HostPort;
  /** Every control request must carry it (`Authorization: Bearer TOKEN`); undefined: no token. */
  readonly rpcToken: string | undefined;
  readonly log: 'text' | 'json';
  readonly leaveTimeoutMs: number;
  /** `--metrics HOST:PORT`: serve Prometheus metrics at /metrics there (its own HTTP server); undefined: none. */
  readonly metrics: HostPort | undefined;
  /** `--encrypt`, `--keyring-file`, `--label` and the verify switches. */
  readonly encryption: EncryptionArgs;
  /** `--snapshot FILE`: the agent's snapshot log (Serf's snapshot); undefined: none. */
  readonly snapshot: string | undefined;
  /** `--rejoin-after-leave`: rejoin the snapshot's members even after a graceful leave (Serf's -rejoin). */
  readonly rejoinAfterLeave: boolean;
  /** `--serf-rpc HOST:PORT`: serve Serf's agent RPC there (Serf's -rpc-addr); undefined: not served. */
  readonly serfRpc: HostPort | undefined;
  /** `--serf-rpc-auth TOKEN`: the token Serf RPC clients must send with `auth` (Serf's rpc_auth). */
  readonly serfRpcAuth: string | undefined;
  /** `--query-handler NAME=COMMAND`: shell commands that answer queries (Serf's query event handlers). */
  readonly queryHandlers: readonly QueryHandlerSpec[];
}

export const AGENT_FLAGS: FlagSpecs = {
  name: { type: 'string' },
  bind: { type: 'string' },
  advertise: { type: 'string' },
  join: { type: 'repeatable' },
  'retry-join': { type: 'repeatable' },
  'retry-interval': { type: 'string' },
  'retry-max': { type: 'string' },
  profile: { type: 'string' },
  wire: { type: 'string' },
  tag: { type: 'repeatable' },
  config: { type: 'repeatable' },
  transport: { type: 'repeatable' },
  rpc: { type: 'string' },
  'rpc-token': { type: 'string' },
  log: { type: 'string' },
  'leave-timeout': { type: 'string' },
  metrics: { type: 'string' },
  encrypt: { type: 'string' },
  'keyring-file': { type: 'string' },
  label: { type: 'string' },
  'verify-incoming': { type: 'string' },
  'verify-outgoing': { type: 'string' },
  snapshot: { type: 'string' },
  'rejoin-after-leave': { type: 'boolean' },
  'serf-rpc': { type: 'string' },
  'serf-rpc-auth': { type: 'string' },
  'config-file': { type: 'string' },
  'query-handler': { type: 'repeatable' },
};

export function agentArgs(raw: RawFlags, env: Env): AgentArgs {
  const command = 'agent';
  noPositionals(command, raw);
  const name = raw.strings.get('name');
  if (name === undefined) throw new UsageError('missing --name', command);
  const bindText = raw.strings.get('bind');
  if (bindText === undefined) throw new UsageError('missing --bind', command);
  const bind = bindAddress(command, bindText);
  const advertiseText = raw.strings.get('advertise');
  const advertise = advertiseText === undefined ? undefined : hostPortFlag(command, 'advertise', advertiseText, { ipOnly: false, allowZero: true });
  if (advertise === undefined && (bind.host === '0.0.0.0' || bind.host === '::')) {
    throw new UsageError(`--advertise is required when binding the wildcard address ${bind.host}`, command);
  }
  const join = (raw.lists.get('join') ?? []).flatMap(splitList).map((s) => {
    const parsed = parseHostPort(s, { ipOnly: false, allowZero: false });
    if (typeof parsed === 'string') throw new UsageError(`--join '${s}': ${parsed}`, command);
    return s;
  });
  const { retryJoin, retryIntervalMs, retryMax } = retryJoinArgs(raw);
  const profileText = raw.strings.get('profile') ?? 'lan';
  if (!(PROFILES as readonly string[]).includes(profileText)) {
    throw new UsageError(`--profile '${profileText}': expected one of ${PROFILES.join(', ')}`, command);
  }
  const profile = profileText as Profile;
  const wireText = raw.strings.get('wire') ?? 'swim';
  if (!(WIRES as readonly string[]).includes(wireText)) throw new UsageError(`--wire '${wireText}': expected swim or memberlist`, command);
  const wire = wireText as Wire;
  const config = agentConfig(profile, raw.lists.get('config') ?? []);
  const transport = transportOverrides(raw.lists.get('transport') ?? []);
  const tags = parseTags(raw.lists.get('tag') ?? []);
  const rpc = rpcAddress(command, raw);
  const token = rpcToken(command, raw, env);
  if (token === undefined && !isLoopbackIp(rpc.host)) {
    // Anyone who can reach the port could make the agent leave or dial any address.
    throw new UsageError(`--rpc ${rpc.host} is not a loopback address: set --rpc-token (or ${RPC_TOKEN_ENV}) so that control requests must carry it`, command);
  }
  const log = raw.strings.get('log') ?? 'text';
  if (log !== 'text' && log !== 'json') throw new UsageError(`--log '${log}': expected text or json`, command);
  const leaveText = raw.strings.get('leave-timeout') ?? '5000';
  if (!/^\d+$/.test(leaveText) || Number(leaveText) > 600_000) {
    throw new UsageError(`--leave-timeout '${leaveText}': expected milliseconds (0-600000)`, command);
  }
  const metricsText = raw.strings.get('metrics');
  const metrics = metricsText === undefined ? undefined : hostPortFlag(command, 'metrics', metricsText, { ipOnly: true, allowZero: true });
  const encryption = encryptionArgs(raw.strings);
  // The agent always runs the UDP transport (--transport only tunes its bounds): UDP packets and TCP
  // streams on one port, what memberlist speaks. Labels came with memberlist 0.3; Serf 0.9 runs 0.2,
  // which drops a labelled packet as an unknown message type.
  if (wire === 'memberlist' && encryption.label !== undefined) {
    throw new UsageError('--label cannot go with --wire memberlist: memberlist 0.2 (what Serf 0.9 runs) knows no labels and drops labelled packets', command);
  }
  const snapshot = raw.strings.get('snapshot');
  const rejoinAfterLeave = raw.booleans.has('rejoin-after-leave');
  if (rejoinAfterLeave && snapshot === undefined) throw new UsageError('--rejoin-after-leave needs --snapshot FILE: the members to rejoin are the snapshot\'s', command);
  const { serfRpc, serfRpcAuth } = serfRpcArgs(raw);
  const queryHandlers = parseQueryHandlers(raw.lists.get('query-handler') ?? []);
  return {
    command,
    name,
    bind,
    advertise,
    join,
    retryJoin,
    retryIntervalMs,
    retryMax,
    profile,
    wire,
    config,
    transport,
    tags,
    rpc,
    rpcToken: token,
    log,
    leaveTimeoutMs: Number(leaveText),
    metrics,
    encryption,
    snapshot,
    rejoinAfterLeave,
    serfRpc,
    serfRpcAuth,
    queryHandlers,
  };
}

const SERF_RPC_AUTH_MAX_LENGTH = 1024;

/** `--serf-rpc HOST:PORT` (an IP; port 0 = any free port) and `--serf-rpc-auth TOKEN`, needed off loopback. */
function serfRpcArgs(raw: RawFlags): Pick<AgentArgs, 'serfRpc' | 'serfRpcAuth'> {
  const command = 'agent';
  const text = raw.strings.get('serf-rpc');
  const auth = raw.strings.get('serf-rpc-auth');
  if (text === undefined) {
    if (auth !== undefined) throw new UsageError('--serf-rpc-auth needs --serf-rpc HOST:PORT', command);
    return { serfRpc: undefined, serfRpcAuth: undefined };
  }
  const serfRpc = hostPortFlag(command, 'serf-rpc', text, { ipOnly: true, allowZero: true });
  if (auth !== undefined && (auth === '' || auth.length > SERF_RPC_AUTH_MAX_LENGTH)) {
    throw new UsageError(`--serf-rpc-auth: expected a token of 1 to ${SERF_RPC_AUTH_MAX_LENGTH} characters`, command);
  }
  if (auth === undefined && !isLoopbackIp(serfRpc.host)) {
    // Serf's RPC can make the agent leave, join anywhere and rotate keys: off loopback it needs a token.
    throw new UsageError(`--serf-rpc ${serfRpc.host} is not a loopback address: set --serf-rpc-auth so that Serf RPC clients must authenticate`, command);
  }
  return { serfRpc, serfRpcAuth: auth };
}

/** `--bind`: an IP literal; a host name is refused with the rule (names are for join, which resolves them). */
function bindAddress(command: Command, value: string): HostPort {
  const parsed = parseHostPort(value, { ipOnly: false, allowZero: true });
  if (typeof parsed !== 'string' && isIP(parsed.host) === 0) {
    throw new UsageError(
      `--bind '${value}': '${parsed.host}' is not an IP address: bind needs an IP (127.0.0.1, ::1, 0.0.0.0 or ::); host names are for --join, --retry-join and swim join, which resolve them`,
      command,
    );
  }
  return hostPortFlag(command, 'bind', value, { ipOnly: true, allowZero: true });
}

/** Longest --retry-interval: what a timer can wait (2^31 - 1 ms, about 24.8 days). */
const MAX_RETRY_INTERVAL_MS = 2 ** 31 - 1;

/** `--retry-join` seeds (host names allowed), `--retry-interval` (a duration, default 30s) and `--retry-max` (0 = no limit). */
function retryJoinArgs(raw: RawFlags): Pick<AgentArgs, 'retryJoin' | 'retryIntervalMs' | 'retryMax'> {
  const command = 'agent';
  const retryJoin = (raw.lists.get('retry-join') ?? []).flatMap(splitList).map((s) => {
    const parsed = parseHostPort(s, { ipOnly: false, allowZero: false });
    if (typeof parsed === 'string') throw new UsageError(`--retry-join '${s}': ${parsed}`, command);
    return s;
  });
  if (retryJoin.length > MAX_JOIN_SEEDS) throw new UsageError(`--retry-join takes at most ${MAX_JOIN_SEEDS} seeds, got ${retryJoin.length}`, command);
  const intervalText = raw.strings.get('retry-interval') ?? '30s';
  const retryIntervalMs = durationFlag(command, 'retry-interval', intervalText);
  if (retryIntervalMs < 1 || retryIntervalMs > MAX_RETRY_INTERVAL_MS) {
    throw new UsageError(`--retry-interval '${intervalText}': expected 1ms to ${formatDuration(MAX_RETRY_INTERVAL_MS)}`, command);
  }
  const maxText = raw.strings.get('retry-max') ?? '0';
  if (!/^\d{1,9}$/.test(maxText)) throw new UsageError(`--retry-max '${maxText}': expected a number of attempts (0 = no limit)`, command);
  return { retryJoin, retryIntervalMs, retryMax: Number(maxText) };
}

/** The agent's flags from `--config-file`, under those given on the command line. */
export function withConfigFile(raw: RawFlags, read: ReadText): RawFlags {
  const path = raw.strings.get('config-file');
  if (path === undefined) return raw;
  let text: string;
  try {
    text = read(path);
  } catch (error) {
    throw new UsageError(`--config-file '${path}': cannot read it (${(error as Error).message})`, 'agent');
  }
  const specs = Object.fromEntries(Object.entries(AGENT_FLAGS).filter(([name]) => name !== 'config-file'));
  const file = fileFlags(text, specs);
  if ('problems' in file) throw new UsageError(`--config-file '${path}': ${file.problems.join('; ')}`, 'agent');
  const given = (name: string) => raw.strings.has(name) || raw.lists.has(name) || raw.booleans.has(name);
  const fromFile = <T>(entries: Iterable<[string, T]>) => [...entries].filter(([name]) => !given(name));
  return {
    ...raw,
    strings: new Map([...fromFile(file.strings), ...raw.strings]),
    lists: new Map([...fromFile(file.lists), ...raw.lists]),
    booleans: new Set([...[...file.booleans].filter((name) => !given(name)), ...raw.booleans]),
  };
}
