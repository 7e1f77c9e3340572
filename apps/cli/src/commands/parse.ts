/**
 * The command line of `swim`: the command, then its flags, each command checking its own
 * (commands/<command>). Pure functions, so the table tests can check every error message.
 * Bad input throws {@link UsageError} (exit code 2, printed with the command's usage).
 */
import { readFileSync } from 'node:fs';
import type { ReadText } from '../flags/config-file.js';
import type { Env } from '../flags/rpc.js';
import { scan, type FlagSpecs } from '../flags/scan.js';
import { UsageError } from '../flags/usage-error.js';
import { AGENT_FLAGS, agentArgs, withConfigFile, type AgentArgs } from './agent/flags.js';
import { AGENT_USAGE } from './agent/usage.js';
import { FORCE_LEAVE_FLAGS, FORCE_LEAVE_USAGE, forceLeaveArgs, type ForceLeaveArgs } from './force-leave.js';
import { JOIN_FLAGS, JOIN_USAGE, joinArgs, type JoinArgs } from './join.js';
import { KEYGEN_FLAGS, KEYGEN_USAGE, keygenArgs, type KeygenArgs } from './keygen.js';
import { KEYS_FLAGS, KEYS_USAGE, keysArgs, type KeysArgs } from './keys.js';
import { LEAVE_FLAGS, LEAVE_USAGE, leaveArgs, type LeaveArgs } from './leave.js';
import { MEMBERS_FLAGS, MEMBERS_USAGE, membersArgs, type MembersArgs } from './members.js';
import { MONITOR_FLAGS, MONITOR_USAGE, monitorArgs, type MonitorArgs } from './monitor.js';
import { COMMANDS, isCommand, type Command } from './names.js';
import { QUERY_FLAGS, QUERY_USAGE, queryArgs, type QueryArgs } from './query.js';
import { RTT_FLAGS, RTT_USAGE, rttArgs, type RttArgs } from './rtt.js';
import { STATS_FLAGS, STATS_USAGE, statsArgs, type StatsArgs } from './stats.js';
import { TAGS_FLAGS, TAGS_USAGE, tagsArgs, type TagsArgs } from './tags.js';

export type HelpArgs = { readonly command: 'help'; readonly topic: Command | undefined };
/** `swim --version` (also `-v` and `swim version`): print the package's version. */
export type VersionArgs = { readonly command: 'version' };

export type ParsedArgs = AgentArgs | MembersArgs | MonitorArgs | QueryArgs | TagsArgs | JoinArgs | LeaveArgs | ForceLeaveArgs | StatsArgs | KeysArgs | KeygenArgs | RttArgs | HelpArgs | VersionArgs;

export const USAGE: Record<Command | 'main', string> = {
  main: `usage: swim <command> [flags]

commands:
  agent     run a member; logs membership changes, leaves gracefully on SIGINT/SIGTERM
  members   list the agent's view of the cluster (filtered by --tag and --status)
  monitor   stream the agent's membership changes and log lines as they happen
  query     ask the cluster a question: members answer with their query handlers (as serf query)
  tags      set or delete the agent's tags while it runs
  join      ask the agent to join more seeds
  leave     ask the agent to leave the cluster and exit
  force-leave  mark a failed member left, so that nobody reconnects to it (serf force-leave)
  stats     the agent's counters (core and transport)
  keys      list, install, use or remove gossip encryption keys on every member of the cluster
  keygen    print a new random encryption key (base64, 32 bytes)
  rtt       estimate the round trip time between two members from their network coordinates

Run \`swim <command> --help\` for its flags; \`swim --version\` prints the version.`,
  agent: AGENT_USAGE,
  keys: KEYS_USAGE,
  keygen: KEYGEN_USAGE,
  members: MEMBERS_USAGE,
  monitor: MONITOR_USAGE,
  query: QUERY_USAGE,
  tags: TAGS_USAGE,
  join: JOIN_USAGE,
  leave: LEAVE_USAGE,
  'force-leave': FORCE_LEAVE_USAGE,
  stats: STATS_USAGE,
  rtt: RTT_USAGE,
};

const FLAGS: Record<Command, FlagSpecs> = {
  agent: AGENT_FLAGS,
  members: MEMBERS_FLAGS,
  monitor: MONITOR_FLAGS,
  query: QUERY_FLAGS,
  tags: TAGS_FLAGS,
  join: JOIN_FLAGS,
  leave: LEAVE_FLAGS,
  'force-leave': FORCE_LEAVE_FLAGS,
  stats: STATS_FLAGS,
  keys: KEYS_FLAGS,
  keygen: KEYGEN_FLAGS,
  rtt: RTT_FLAGS,
};

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
  const raw = scan(first, FLAGS[first], rest);
  if (raw.help) return { command: 'help', topic: first };
  switch (first) {
    case 'agent':
      return agentArgs(withConfigFile(raw, read), env);
    case 'members':
      return membersArgs(raw, env);
    case 'monitor':
      return monitorArgs(raw, env);
    case 'query':
      return queryArgs(raw, env);
    case 'tags':
      return tagsArgs(raw, env);
    case 'stats':
      return statsArgs(raw, env);
    case 'leave':
      return leaveArgs(raw, env);
    case 'force-leave':
      return forceLeaveArgs(raw, env);
    case 'keygen':
      return keygenArgs(raw);
    case 'keys':
      return keysArgs(raw, env);
    case 'join':
      return joinArgs(raw, env);
    case 'rtt':
      return rttArgs(raw, env);
  }
}
