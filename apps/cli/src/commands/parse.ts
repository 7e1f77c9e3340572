/**
 * Flag parsing for `swim`: pure functions, so the table tests can check every error message.
 * Bad input throws {@link UsageError} (exit code 2, printed with the command's usage).
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseArgs as parseFlags } from 'node:util';
import { encodeTags } from '@swim/adapter-memberlist';
import { ConfigError, memberlistProfile, resolveConfig, type PresetName, type SwimConfig } from '@swim/core';
import { isLoopbackIp } from '../control/loopback.js';
import { validateUdpTransportOptions, type UdpTransportOptions } from '@swim/transport-udp';
import { encryptionArgs, keyArgument, KEY_ACTIONS, type EncryptionArgs, type KeyAction } from './agent/encryption-flags.js';
import { fileFlags } from '../flags/config-file.js';
import { DurationError, formatDuration, parseDuration } from '../flags/duration.js';
import { parseMonitorKinds, type MonitorKind } from '../control/monitor-kinds.js';

export const DEFAULT_RPC = '127.0.0.1:7947';
/** The environment variable every command reads the control token from when `--rpc-token` is not given. */
export const RPC_TOKEN_ENV = 'SWIM_RPC_TOKEN';
/** A token shorter than this is refused: it would be guessed. */
export const RPC_TOKEN_MIN_LENGTH = 16;
const RPC_TOKEN_MAX_LENGTH = 1024;
/** Seeds one `swim join` (or POST /join) may name: each is dialled. */
export const MAX_JOIN_SEEDS = 64;
/** memberlist MetaMaxSize, a bound on the encoded tags (Serf refuses to send more); the core checks its own `metaMaxBytes` too. */
export const META_MAX_BYTES = 512;

export type Profile = PresetName | 'memberlist';
const PROFILES: readonly Profile[] = ['lan', 'wan', 'local', 'memberlist'];

/** The bytes on the network: swim's own codec, or memberlist's (to join Serf and other memberlist clusters). */
export type Wire = 'swim' | 'memberlist';
const WIRES: readonly Wire[] = ['swim', 'memberlist'];

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** A bad command line: exit code 2, with the usage of `command`. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command: Command | undefined,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export type Command = 'agent' | 'members' | 'monitor' | 'tags' | 'join' | 'leave' | 'stats' | 'keys' | 'keygen';
const COMMANDS: readonly Command[] = ['agent', 'members', 'monitor', 'tags', 'join', 'leave', 'stats', 'keys', 'keygen'];
/** The states `swim members --status` filters on. */
export const MEMBER_STATES = ['alive', 'suspect', 'dead', 'left'] as const;
export type MemberStateName = (typeof MEMBER_STATES)[number];

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
}

export interface MembersArgs {
  readonly command: 'members';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  readonly json: boolean;
  /** `--tag key=value`: only members with every one of these tags. */
  readonly tags: Readonly<Record<string, string>>;
  /** `--status`: only members in one of these states (empty: any). */
  readonly statuses: readonly MemberStateName[];
}
export interface MonitorArgs {
  readonly command: 'monitor';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  readonly json: boolean;
  /** `--kind`: the kinds of line streamed (every kind by default). */
  readonly kinds: readonly MonitorKind[];
}
export interface TagsArgs {
  readonly command: 'tags';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  /** `--set key=value`: tags added or changed. */
  readonly set: Readonly<Record<string, string>>;
  /** `--delete key`: tags removed. */
  readonly delete: readonly string[];
  readonly json: boolean;
}
export interface JoinArgs {
  readonly command: 'join';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  readonly seeds: readonly string[];
}
export interface LeaveArgs {
  readonly command: 'leave';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
}
export interface StatsArgs {
  readonly command: 'stats';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  readonly json: boolean;
}
export interface KeysArgs {
  readonly command: 'keys';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  readonly action: KeyAction;
  /** The key (base64) for install, use and remove. */
  readonly key: string | undefined;
  readonly json: boolean;
  /** How long each member has to answer. */
  readonly timeoutMs: number;
}
export interface KeygenArgs {
  readonly command: 'keygen';
}
export type HelpArgs = { readonly command: 'help'; readonly topic: Command | undefined };
/** `swim --version` (also `-v` and `swim version`): print the package's version. */
export type VersionArgs = { readonly command: 'version' };

export type ParsedArgs = AgentArgs | MembersArgs | MonitorArgs | TagsArgs | JoinArgs | LeaveArgs | StatsArgs | KeysArgs | KeygenArgs | HelpArgs | VersionArgs;

export const USAGE: Record<Command | 'main', string> = {
  main: `usage: swim <command> [flags]

commands:
  agent     run a member; logs membership changes, leaves gracefully on SIGINT/SIGTERM
  members   list the agent's view of the cluster (filtered by --tag and --status)
  monitor   stream the agent's membership changes and log lines as they happen
  tags      set or delete the agent's tags while it runs
  join      ask the agent to join more seeds
  leave     ask the agent to leave the cluster and exit
  stats     the agent's counters (core and transport)
  keys      list, install, use or remove gossip encryption keys on every member of the cluster
  keygen    print a new random encryption key (base64, 32 bytes)

Run \`swim <command> --help\` for its flags; \`swim --version\` prints the version.`,
  agent: `usage: swim agent --name NAME --bind HOST:PORT [flags]

  --name NAME              unique member name (required)
  --bind HOST:PORT         IP literal and port for UDP packets and TCP streams (required; port 0 = any free port)
  --advertise HOST:PORT    address peers dial (default: the bind address; required when binding 0.0.0.0 or ::)
  --join HOST:PORT,...     seeds to join at start (repeatable); an unreachable seed is logged, the agent keeps running
  --retry-join HOST:PORT   a seed to join at start and retry until one answers (repeatable), as Serf's -retry-join: for
                           agents started together (compose, a systemd target); a host name is resolved at every attempt
                           and every address it has (A and AAAA) is tried
  --retry-interval DUR     wait between retry-join attempts (default 30s; e.g. 500ms, 5s, 1m30s)
  --retry-max N            retry-join attempts in all before the agent gives up and exits 1 (default 0: no limit)
  --profile PROFILE        lan (default), wan, local or memberlist (lan with memberlist's behaviour)
  --wire swim|memberlist   wire format: swim (default), or memberlist to speak memberlist's wire format and join
                           Serf agents and other memberlist clusters (no --label: memberlist 0.2 knows none)
  --tag key=value          a tag (repeatable): the member's metadata, sent as Serf tags (0xff + a msgpack map of
                           string to string, what Serf/Consul/Nomad read) in every wire mode; at most 512 bytes encoded
  --config key=value       override a core config field (repeatable), e.g. --config probeIntervalMs=200 (validated)
  --transport key=value    override a bound of the UDP transport (repeatable), e.g. --transport maxFrameBytes=8388608
                           (maxFrameBytes, maxStreamBytesBuffered, maxStreamBytesPerSource, maxStreamConnections,
                           maxStreamConnectionsPerSource, maxBurst, maxQueuedPackets, recvBufferBytes; validated)
  --rpc HOST:PORT          control endpoint, HTTP (default ${DEFAULT_RPC}; port 0 = any free port); an address
                           other than loopback needs --rpc-token
  --rpc-token TOKEN        every control request must carry it (Authorization: Bearer TOKEN; at least
                           ${RPC_TOKEN_MIN_LENGTH} characters; default: $${RPC_TOKEN_ENV}, else no token)
  --log text|json          log format: lines (default) or one JSON object per line
  --metrics HOST:PORT      serve Prometheus metrics (swim_*, Node's process_*) at http://HOST:PORT/metrics, its own
                           HTTP server (IP literal; port 0 = any free port; read-only, no token)
  --leave-timeout MS       longest wait for the leave to spread on SIGINT/SIGTERM or \`swim leave\` (default 5000)
  --encrypt KEY            encrypt and authenticate gossip with this key (base64 of 16, 24 or 32 bytes; \`swim keygen\`);
                           with --keyring-file, installed in the file's keyring when the file does not exist yet
  --keyring-file FILE      the keyring (a JSON array of base64 keys, primary first), loaded at start and rewritten
                           after every \`swim keys\` change
  --label NAME             cluster label (1-255 bytes): members with another label, or none, are ignored
  --verify-incoming BOOL   refuse what does not decrypt (default true); false accepts plaintext too, to turn
                           encryption on in a running cluster
  --verify-outgoing BOOL   encrypt what is sent (default true); false sends plaintext, for the same migration
  --snapshot FILE          keep a snapshot log there (Serf's -snapshot): the agent's incarnation, the members it
                           knows and, with --wire memberlist, Serf's Lamport clocks, appended as they change and
                           compacted; on restart it comes back above its last incarnation and rejoins the members
                           it knew, unless it had left gracefully (SIGINT/SIGTERM, swim leave)
  --rejoin-after-leave     with --snapshot: rejoin the known members even after a graceful leave (Serf's -rejoin)
  --config-file FILE       a JSON object with any of these flags as keys ({"name": "n1", "join": ["10.0.0.1:7946"],
                           "tag": {"role": "web"}, "leave-timeout": 5000}); a flag on the command line wins over
                           the file (for a repeatable flag, its whole list); an unknown key is an error

Flags take --flag VALUE or --flag=VALUE; a repeatable flag takes one value each time it is given.`,
  keys: `usage: swim keys list | install KEY | use KEY | remove KEY [--rpc HOST:PORT] [--rpc-token TOKEN] [--json]

  list          the keys installed on every member, with how many members hold each and use it as primary
  install KEY   add KEY to every member's keyring (it decrypts, it does not encrypt yet)
  use KEY       make KEY the primary key (the one that encrypts) on every member; it must be installed
  remove KEY    remove KEY from every member's keyring; a member's primary key cannot be removed
  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
  --timeout MS        how long each member has to answer (default 5000)
  --json              print JSON instead of lines
The agent asks every live member and reports how many answered; exit code 1 if any did not or refused.
Rotation: install NEW, use NEW, remove OLD.`,
  keygen: `usage: swim keygen

Prints a new random 32-byte key, base64-encoded, for --encrypt or \`swim keys install\`.`,
  members: `usage: swim members [--rpc HOST:PORT] [--rpc-token TOKEN] [--json] [--tag key=value] [--status STATE]

  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
  --json              print JSON instead of a table
  --tag key=value     only members with this tag (repeatable: every one must match)
  --status STATE      only members in this state: ${MEMBER_STATES.join(', ')} (repeatable or comma-separated: any)`,
  monitor: `usage: swim monitor [--rpc HOST:PORT] [--rpc-token TOKEN] [--json] [--kind KIND,...]

  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
  --json              one JSON object per line (as the agent's --log json) instead of text lines
  --kind KIND,...     only these kinds (repeatable or comma-separated): join, update, suspect, alive, dead,
                      left (membership changes) and log (every other log line); default all
Streams until the agent stops (exit 0) or the connection is lost (exit 1). The agent drops a monitor
that does not keep up rather than buffer for it.`,
  tags: `usage: swim tags [--rpc HOST:PORT] [--rpc-token TOKEN] [--set key=value] [--delete key] [--json]

  --set key=value     add or change a tag (repeatable)
  --delete key        remove a tag (repeatable)
  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
  --json              print the new tags as JSON
The agent gossips its new tags (at most 512 bytes encoded) and prints them.`,
  join: `usage: swim join [--rpc HOST:PORT] [--rpc-token TOKEN] HOST:PORT ...

  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
At most ${MAX_JOIN_SEEDS} seeds.`,
  leave: `usage: swim leave [--rpc HOST:PORT] [--rpc-token TOKEN]

  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
The agent announces its leave, waits (bounded) for it to spread, then exits.`,
  stats: `usage: swim stats [--rpc HOST:PORT] [--rpc-token TOKEN] [--json]

  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
  --json              print JSON instead of lines`,
};

interface FlagSpec {
  /** `repeatable`: a string flag given any number of times, every value kept in order. */
  readonly type: 'string' | 'boolean' | 'repeatable';
}
const FLAGS: Record<Command, Record<string, FlagSpec>> = {
  agent: {
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
    'config-file': { type: 'string' },
  },
  members: { rpc: { type: 'string' }, 'rpc-token': { type: 'string' }, json: { type: 'boolean' }, tag: { type: 'repeatable' }, status: { type: 'repeatable' } },
  monitor: { rpc: { type: 'string' }, 'rpc-token': { type: 'string' }, json: { type: 'boolean' }, kind: { type: 'repeatable' } },
  tags: { rpc: { type: 'string' }, 'rpc-token': { type: 'string' }, json: { type: 'boolean' }, set: { type: 'repeatable' }, delete: { type: 'repeatable' } },
  join: { rpc: { type: 'string' }, 'rpc-token': { type: 'string' } },
  leave: { rpc: { type: 'string' }, 'rpc-token': { type: 'string' } },
  stats: { rpc: { type: 'string' }, 'rpc-token': { type: 'string' }, json: { type: 'boolean' } },
  keys: { rpc: { type: 'string' }, 'rpc-token': { type: 'string' }, json: { type: 'boolean' }, timeout: { type: 'string' } },
  keygen: {},
};

interface RawFlags {
  readonly strings: Map<string, string>;
  readonly booleans: Set<string>;
  /** `repeatable` flags: every value, in order. */
  readonly lists: Map<string, string[]>;
  readonly positionals: string[];
  readonly help: boolean;
}

/** The process environment, or the part of it `swim` reads ({@link RPC_TOKEN_ENV}). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Reads a `--config-file` (the tests pass their own). */
export type ReadText = (path: string) => string;
const readText: ReadText = (path) => readFileSync(path, 'utf8');

export function parseArgs(argv: readonly string[], env: Env = {}, read: ReadText = readText): ParsedArgs {
  const [first, ...rest] = argv;
  // No command is a mistake (exit 2, as bench); asking for help is not.
  if (first === undefined) throw new UsageError('missing command', undefined);
  if (first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? rest[0] : undefined;
    return { command: 'help', topic: isCommand(topic) ? topic : undefined };
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    if (rest.length > 0) throw new UsageError(`swim ${first} takes no arguments (got ${rest.join(' ')})`, undefined);
    return { command: 'version' };
  }
  if (!isCommand(first)) throw new UsageError(`unknown command '${first}' (expected one of ${COMMANDS.join(', ')})`, undefined);
  const raw = scan(first, rest);
  if (raw.help) return { command: 'help', topic: first };
  switch (first) {
    case 'agent':
      return agentArgs(withConfigFile(raw, read), env);
    case 'members':
      noPositionals(first, raw);
      return { command: 'members', rpc: rpcAddress(first, raw), rpcToken: rpcToken(first, raw, env), json: raw.booleans.has('json'), ...membersFilter(raw) };
    case 'monitor': {
      noPositionals(first, raw);
      const kinds = parseMonitorKinds(raw.lists.get('kind') ?? []);
      if ('problem' in kinds) throw new UsageError(`--kind: ${kinds.problem}`, first);
      return { command: 'monitor', rpc: rpcAddress(first, raw), rpcToken: rpcToken(first, raw, env), json: raw.booleans.has('json'), kinds };
    }
    case 'tags':
      noPositionals(first, raw);
      return { command: 'tags', rpc: rpcAddress(first, raw), rpcToken: rpcToken(first, raw, env), json: raw.booleans.has('json'), ...tagsChange(raw) };
    case 'stats':
      noPositionals(first, raw);
      return { command: 'stats', rpc: rpcAddress(first, raw), rpcToken: rpcToken(first, raw, env), json: raw.booleans.has('json') };
    case 'leave':
      noPositionals(first, raw);
      return { command: 'leave', rpc: rpcAddress(first, raw), rpcToken: rpcToken(first, raw, env) };
    case 'keygen':
      noPositionals(first, raw);
      return { command: 'keygen' };
    case 'keys':
      return keysArgs(raw, env);
    case 'join': {
      const seeds = raw.positionals.flatMap(splitList).map((s) => seedAddress(first, s));
      if (seeds.length === 0) throw new UsageError('swim join needs at least one seed HOST:PORT', first);
      if (seeds.length > MAX_JOIN_SEEDS) throw new UsageError(`swim join takes at most ${MAX_JOIN_SEEDS} seeds, got ${seeds.length}`, first);
      return { command: 'join', rpc: rpcAddress(first, raw), rpcToken: rpcToken(first, raw, env), seeds };
    }
  }
}

function isCommand(value: string | undefined): value is Command {
  return (COMMANDS as readonly (string | undefined)[]).includes(value);
}

type FlagToken = NonNullable<ReturnType<typeof parseFlags>['tokens']>[number];

/**
 * The command's flags through node:util parseArgs. It runs without `strict` and the tokens are
 * checked here instead, in order, so that every problem gets swim's own message (and the command's usage).
 */
function scan(command: Command, args: readonly string[]): RawFlags {
  const specs = FLAGS[command];
  const options = Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [name, spec.type === 'boolean' ? { type: 'boolean' as const } : { type: 'string' as const, multiple: spec.type === 'repeatable' }]),
  );
  const { values, positionals, tokens } = parseFlags({
    args: [...args],
    options: { ...options, help: { type: 'boolean', short: 'h' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const empty = { strings: new Map(), booleans: new Set<string>(), lists: new Map(), positionals: [] };
  // `--help` anywhere asks for the usage, whatever else is wrong (`--name --help` too: a value is never a flag).
  if (tokens.some((t) => t.kind === 'option' && (t.name === 'help' || (t.inlineValue === false && (t.value === '--help' || t.value === '-h'))))) {
    return { ...empty, help: true };
  }
  const given = new Set<string>();
  let previous: FlagToken | undefined;
  for (const token of tokens) {
    if (token.kind === 'positional') {
      // `--config a=1 b=2` was the old form of a repeatable flag: say what to write instead.
      if (previous?.kind === 'option' && previous.inlineValue === false && specs[previous.name]?.type === 'repeatable') {
        throw new UsageError(`unexpected argument '${token.value}' for swim ${command}: --${previous.name} takes one value, repeat it (--${previous.name} ${token.value})`, command);
      }
    } else if (token.kind === 'option') {
      const spec = Object.hasOwn(specs, token.name) ? specs[token.name] : undefined;
      if (spec === undefined) {
        const renamed = command === 'agent' && token.name === 'meta' ? ': metadata is --tag key=value now (Serf tags)' : '';
        throw new UsageError(`unknown flag '${token.rawName}' for swim ${command}${renamed}`, command);
      }
      if (spec.type === 'boolean') {
        if (token.value !== undefined) throw new UsageError(`--${token.name} takes no value`, command);
      } else {
        // parseArgs takes the next word as the value even when it is a flag: `--name --bind ...` lacks the name.
        if (token.value === undefined || token.value === '' || (!token.inlineValue && token.value.startsWith('--'))) {
          throw new UsageError(`--${token.name} needs a value`, command);
        }
        if (spec.type === 'string' && given.has(token.name)) throw new UsageError(`--${token.name} given twice`, command);
      }
      given.add(token.name);
    }
    previous = token;
  }
  const raw: RawFlags = { ...empty, positionals, help: false };
  // Every value was checked above: a string (a list of them for a repeatable flag), or true.
  for (const name of Object.keys(specs)) {
    const value: unknown = values[name];
    if (value === true) raw.booleans.add(name);
    else if (typeof value === 'string') raw.strings.set(name, value);
    else if (Array.isArray(value)) raw.lists.set(name, value.map(String));
  }
  return raw;
}

function noPositionals(command: Command, raw: RawFlags): void {
  if (raw.positionals.length > 0) throw new UsageError(`unexpected argument '${raw.positionals[0]}' for swim ${command}`, command);
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * "host:port" or "[v6]:port". `ipOnly`: the host must be an IP literal (what we bind).
 * `allowZero`: port 0 (pick a free port) is allowed.
 */
export function parseHostPort(value: string, options: { readonly ipOnly: boolean; readonly allowZero: boolean }): HostPort | string {
  let host: string;
  let portText: string;
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close < 0 || value[close + 1] !== ':') return 'expected [IPv6]:PORT';
    host = value.slice(1, close);
    portText = value.slice(close + 2);
    if (isIP(host) !== 6) return `'${host}' is not an IPv6 address`;
  } else {
    const colon = value.lastIndexOf(':');
    if (colon < 0) return 'expected HOST:PORT';
    host = value.slice(0, colon);
    portText = value.slice(colon + 1);
    if (host.length === 0) return 'missing host';
    if (host.includes(':')) return 'an IPv6 address needs brackets: [IPv6]:PORT';
  }
  if (!/^\d{1,5}$/.test(portText)) return `port '${portText}' is not a number`;
  const port = Number(portText);
  const min = options.allowZero ? 0 : 1;
  if (port < min || port > 65_535) return `port ${port} is out of range (${min}-65535)`;
  if (options.ipOnly && isIP(host) === 0) return `'${host}' is not an IP address`;
  if (!options.ipOnly && !/^[A-Za-z0-9.\-:_]+$/.test(host)) return `'${host}' is not a valid host`;
  return { host, port };
}

function hostPortFlag(command: Command, flag: string, value: string, options: { readonly ipOnly: boolean; readonly allowZero: boolean }): HostPort {
  const parsed = parseHostPort(value, options);
  if (typeof parsed === 'string') throw new UsageError(`--${flag} '${value}': ${parsed}`, command);
  return parsed;
}

function rpcAddress(command: Command, raw: RawFlags): HostPort {
  const value = raw.strings.get('rpc');
  if (value === undefined) return hostPortFlag(command, 'rpc', DEFAULT_RPC, { ipOnly: true, allowZero: false });
  // Clients dial it: port 0 means nothing there; the agent accepts 0.
  return hostPortFlag(command, 'rpc', value, { ipOnly: true, allowZero: command === 'agent' });
}

/** `--rpc-token`, else the environment's {@link RPC_TOKEN_ENV} (empty means unset), else undefined. */
function rpcToken(command: Command, raw: RawFlags, env: Env): string | undefined {
  const flag = raw.strings.get('rpc-token');
  const fromEnv = env[RPC_TOKEN_ENV];
  const [source, token] = flag !== undefined ? ['--rpc-token', flag] : fromEnv !== undefined && fromEnv !== '' ? [RPC_TOKEN_ENV, fromEnv] : [undefined, undefined];
  if (source === undefined) return undefined;
  const problem = tokenProblem(token);
  if (problem !== undefined) throw new UsageError(`${source}: ${problem}`, command);
  return token;
}

/** Why `token` cannot be a control token (it travels in an HTTP header), or undefined. */
export function tokenProblem(token: string): string | undefined {
  if (!/^[\x21-\x7e]*$/.test(token)) return 'the token must be printable ASCII without spaces';
  if (token.length < RPC_TOKEN_MIN_LENGTH) return `the token is ${token.length} characters, fewer than ${RPC_TOKEN_MIN_LENGTH} (try: openssl rand -hex 16)`;
  if (token.length > RPC_TOKEN_MAX_LENGTH) return `the token is ${token.length} characters, more than ${RPC_TOKEN_MAX_LENGTH}`;
  return undefined;
}

function seedAddress(command: Command, value: string): string {
  const parsed = parseHostPort(value, { ipOnly: false, allowZero: false });
  if (typeof parsed === 'string') throw new UsageError(`seed '${value}': ${parsed}`, command);
  return value;
}

function agentArgs(raw: RawFlags, env: Env): AgentArgs {
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
  };
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
  let retryIntervalMs: number;
  try {
    retryIntervalMs = parseDuration(intervalText);
  } catch (error) {
    if (!(error instanceof DurationError)) throw error;
    throw new UsageError(`--retry-interval: ${error.message}`, command);
  }
  if (retryIntervalMs < 1 || retryIntervalMs > MAX_RETRY_INTERVAL_MS) {
    throw new UsageError(`--retry-interval '${intervalText}': expected 1ms to ${formatDuration(MAX_RETRY_INTERVAL_MS)}`, command);
  }
  const maxText = raw.strings.get('retry-max') ?? '0';
  if (!/^\d{1,9}$/.test(maxText)) throw new UsageError(`--retry-max '${maxText}': expected a number of attempts (0 = no limit)`, command);
  return { retryJoin, retryIntervalMs, retryMax: Number(maxText) };
}

/** The agent's flags from `--config-file`, under those given on the command line. */
function withConfigFile(raw: RawFlags, read: ReadText): RawFlags {
  const path = raw.strings.get('config-file');
  if (path === undefined) return raw;
  let text: string;
  try {
    text = read(path);
  } catch (error) {
    throw new UsageError(`--config-file '${path}': cannot read it (${(error as Error).message})`, 'agent');
  }
  const specs = Object.fromEntries(Object.entries(FLAGS.agent).filter(([name]) => name !== 'config-file'));
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

/** `swim members --tag key=value --status STATE`. */
function membersFilter(raw: RawFlags): { tags: Record<string, string>; statuses: MemberStateName[] } {
  const tags = keyValues('members', 'tag', raw.lists.get('tag') ?? []);
  const named = (raw.lists.get('status') ?? []).flatMap(splitList);
  const unknown = named.filter((state) => !(MEMBER_STATES as readonly string[]).includes(state));
  if (unknown.length > 0) throw new UsageError(`--status '${unknown[0]}': expected ${MEMBER_STATES.join(', ')}`, 'members');
  return { tags, statuses: MEMBER_STATES.filter((state) => named.includes(state)) };
}

/** `swim tags --set key=value --delete key`: at least one, no key both set and deleted, the same bound as `--tag`. */
function tagsChange(raw: RawFlags): { set: Record<string, string>; delete: string[] } {
  const set = keyValues('tags', 'set', raw.lists.get('set') ?? []);
  const deleted = raw.lists.get('delete') ?? [];
  if (Object.keys(set).length === 0 && deleted.length === 0) throw new UsageError('swim tags needs --set key=value or --delete key', 'tags');
  const both = deleted.find((key) => Object.hasOwn(set, key));
  if (both !== undefined) throw new UsageError(`tag '${both}' is both set and deleted`, 'tags');
  const bytes = encodeTags(set).length;
  if (bytes > META_MAX_BYTES) throw new UsageError(`--set: the tags are ${bytes} bytes encoded, more than ${META_MAX_BYTES} (memberlist's limit on node metadata)`, 'tags');
  return { set, delete: deleted };
}

/** `key=value` pairs (a key given once, never empty) into an object. */
function keyValues(command: Command, flag: string, pairs: readonly string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--${flag} '${pair}': expected key=value`, command);
    const key = pair.slice(0, eq);
    if (Object.hasOwn(result, key)) throw new UsageError(`--${flag} key '${key}' given twice`, command);
    // defineProperty: a tag named __proto__ is a tag like any other.
    Object.defineProperty(result, key, { value: pair.slice(eq + 1), enumerable: true, writable: true, configurable: true });
  }
  return result;
}

function keysArgs(raw: RawFlags, env: Env): KeysArgs {
  const command = 'keys';
  const [action, key, extra] = raw.positionals;
  if (action === undefined) throw new UsageError(`swim keys needs an action: ${KEY_ACTIONS.join(', ')}`, command);
  if (!(KEY_ACTIONS as readonly string[]).includes(action)) throw new UsageError(`unknown action '${action}' for swim keys (expected one of ${KEY_ACTIONS.join(', ')})`, command);
  const needsKey = action !== 'list';
  if (needsKey && key === undefined) throw new UsageError(`swim keys ${action} needs a KEY`, command);
  const unexpected = needsKey ? extra : key;
  if (unexpected !== undefined) throw new UsageError(`unexpected argument '${unexpected}' for swim keys ${action}`, command);
  const checked = needsKey ? keyArgument(key!) : undefined;
  if (typeof checked === 'object') throw new UsageError(`KEY: ${checked.problem}`, command);
  const timeoutText = raw.strings.get('timeout') ?? '5000';
  if (!/^\d+$/.test(timeoutText) || Number(timeoutText) < 1 || Number(timeoutText) > 600_000) {
    throw new UsageError(`--timeout '${timeoutText}': expected milliseconds (1-600000)`, command);
  }
  return {
    command,
    rpc: rpcAddress(command, raw),
    rpcToken: rpcToken(command, raw, env),
    action: action as KeyAction,
    key: checked,
    json: raw.booleans.has('json'),
    timeoutMs: Number(timeoutText),
  };
}

/** `--tag key=value` pairs into tags; keys must be unique and non-empty, the encoded tags at most {@link META_MAX_BYTES}. */
export function parseTags(pairs: readonly string[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--tag '${pair}': expected key=value`, 'agent');
    const key = pair.slice(0, eq);
    if (Object.hasOwn(tags, key)) throw new UsageError(`--tag key '${key}' given twice`, 'agent');
    // defineProperty: a tag named __proto__ is a tag like any other.
    Object.defineProperty(tags, key, { value: pair.slice(eq + 1), enumerable: true, writable: true, configurable: true });
  }
  const bytes = encodeTags(tags).length;
  if (bytes > META_MAX_BYTES) throw new UsageError(`--tag: the tags are ${bytes} bytes encoded, more than ${META_MAX_BYTES} (memberlist's limit on node metadata)`, 'agent');
  return tags;
}

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
