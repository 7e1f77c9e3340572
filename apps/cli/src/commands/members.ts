/** `swim members`: the agent's view of the cluster, filtered by `--tag` and `--status` as `serf members` does. */
import type { HostPort } from '../flags/host-port.js';
import { keyValues } from '../flags/key-values.js';
import { DEFAULT_RPC, rpcAddress, rpcToken, RPC_TOKEN_ENV, type Env } from '../flags/rpc.js';
import { noPositionals, splitList, type FlagSpecs, type RawFlags } from '../flags/scan.js';
import { UsageError } from '../flags/usage-error.js';
import { call, refused } from '../control-client/request.js';
import { membersTable, type MemberJson, type MembersReply } from '../output/members.js';

/** The states `swim members --status` filters on. */
export const MEMBER_STATES = ['alive', 'suspect', 'dead', 'left'] as const;
export type MemberStateName = (typeof MEMBER_STATES)[number];

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

export const MEMBERS_FLAGS: FlagSpecs = { rpc: { type: 'string' }, 'rpc-token': { type: 'string' }, json: { type: 'boolean' }, tag: { type: 'repeatable' }, status: { type: 'repeatable' } };

export const MEMBERS_USAGE = `usage: swim members [--rpc HOST:PORT] [--rpc-token TOKEN] [--json] [--tag key=value] [--status STATE]

  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
  --json              print JSON instead of a table
  --tag key=value     only members with this tag (repeatable: every one must match)
  --status STATE      only members in this state: ${MEMBER_STATES.join(', ')} (repeatable or comma-separated: any)`;

export function membersArgs(raw: RawFlags, env: Env): MembersArgs {
  const command = 'members';
  noPositionals(command, raw);
  return { command, rpc: rpcAddress(command, raw), rpcToken: rpcToken(command, raw, env), json: raw.booleans.has('json'), ...membersFilter(raw) };
}

/** `swim members --tag key=value --status STATE`. */
function membersFilter(raw: RawFlags): { tags: Record<string, string>; statuses: MemberStateName[] } {
  const tags = keyValues('members', 'tag', raw.lists.get('tag') ?? []);
  const named = (raw.lists.get('status') ?? []).flatMap(splitList);
  const unknown = named.filter((state) => !(MEMBER_STATES as readonly string[]).includes(state));
  if (unknown.length > 0) throw new UsageError(`--status '${unknown[0]}': expected ${MEMBER_STATES.join(', ')}`, 'members');
  return { tags, statuses: MEMBER_STATES.filter((state) => named.includes(state)) };
}

export async function members(args: MembersArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args, 'GET', '/members');
  if (res.status !== 200) throw refused(res);
  const reply = res.body as MembersReply;
  const shown: MembersReply = { ...reply, members: reply.members.filter((member) => matches(member, args)) };
  out(args.json ? JSON.stringify(shown, null, 2) : membersTable(shown));
}

/** Whether a member passes `--status` (any of them) and `--tag` (every one), as `serf members -status -tag` do. */
function matches(member: MemberJson, filter: Pick<MembersArgs, 'tags' | 'statuses'>): boolean {
  if (filter.statuses.length > 0 && !(filter.statuses as readonly string[]).includes(member.state)) return false;
  return Object.entries(filter.tags).every(([key, value]) => Object.hasOwn(member.tags, key) && member.tags[key] === value);
}
