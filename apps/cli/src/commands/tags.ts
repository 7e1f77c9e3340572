/** `swim tags --set key=value --delete key`: the agent's tags changed while it runs, as `serf tags` does. */
import { encodeTags } from '@swim/adapter-memberlist';
import type { HostPort } from '../flags/host-port.js';
import { keyValues } from '../flags/key-values.js';
import { DEFAULT_RPC, rpcAddress, rpcToken, RPC_TOKEN_ENV, type Env } from '../flags/rpc.js';
import { noPositionals, type FlagSpecs, type RawFlags } from '../flags/scan.js';
import { META_MAX_BYTES } from '../flags/tags.js';
import { UsageError } from '../flags/usage-error.js';
import { call, refused } from '../control-client/request.js';
import { tagsText } from '../output/members.js';

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

export const TAGS_FLAGS: FlagSpecs = { rpc: { type: 'string' }, 'rpc-token': { type: 'string' }, json: { type: 'boolean' }, set: { type: 'repeatable' }, delete: { type: 'repeatable' } };

export const TAGS_USAGE = `usage: swim tags [--rpc HOST:PORT] [--rpc-token TOKEN] [--set key=value] [--delete key] [--json]

  --set key=value     add or change a tag (repeatable)
  --delete key        remove a tag (repeatable)
  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
  --json              print the new tags as JSON
The agent gossips its new tags (at most 512 bytes encoded) and prints them.`;

export function tagsArgs(raw: RawFlags, env: Env): TagsArgs {
  const command = 'tags';
  noPositionals(command, raw);
  return { command, rpc: rpcAddress(command, raw), rpcToken: rpcToken(command, raw, env), json: raw.booleans.has('json'), ...tagsChange(raw) };
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

/** `swim tags --set k=v --delete k`: the agent gossips its new tags and answers with them. */
export async function tags(args: TagsArgs, out: (text: string) => void): Promise<void> {
  const res = await call(args, 'POST', '/tags', { set: args.set, delete: args.delete });
  if (res.status !== 200) throw refused(res);
  const body = res.body as { tags: Record<string, string>; spread: boolean };
  if (args.json) return out(JSON.stringify(body, null, 2));
  const tagList = tagsText(body.tags);
  out(`tags: ${tagList === '' ? '(none)' : tagList}${body.spread ? '' : ' (not yet confirmed spread to every member)'}`);
}
