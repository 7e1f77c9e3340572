/**
 * `POST /tags {"set": {"k": "v"}, "delete": ["k"]}`: the agent's tags changed while it runs, as
 * `serf tags` does; the member gossips the new metadata under a higher incarnation (memberlist
 * UpdateNode) and the answer carries the tags now set.
 */
import { decodeTags, encodeTags } from '@swim/adapter-memberlist';
import type { Member } from '@swim/runtime';
import { META_MAX_BYTES } from '../../flags/tags.js';
import type { ControlAnswer } from '../server.js';

export const TAGS_ROUTE = 'POST /tags';

export interface TagsChange {
  readonly set: Readonly<Record<string, string>>;
  readonly delete: readonly string[];
}

/** The change a POST body asks for, checked, or every problem with it. */
export function tagsChangeFromBody(body: unknown): TagsChange | { readonly error: string } {
  const usage = 'expected {"set": {"key": "value", ...}, "delete": ["key", ...]} with at least one tag';
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: usage };
  const problems: string[] = [];
  const { set = {}, delete: deleted = [], ...rest } = body as Record<string, unknown>;
  for (const key of Object.keys(rest)) problems.push(`unknown field '${key.slice(0, 40)}'`);
  const setEntries = typeof set === 'object' && set !== null && !Array.isArray(set) ? Object.entries(set) : undefined;
  if (setEntries === undefined) problems.push('set must be an object of strings');
  else if (setEntries.some(([key, value]) => key === '' || typeof value !== 'string')) problems.push('set must map non-empty keys to strings');
  if (!Array.isArray(deleted) || deleted.some((key) => typeof key !== 'string' || key === '')) problems.push('delete must be an array of non-empty strings');
  if (problems.length > 0) return { error: problems.join('; ') };
  const deleteList = deleted as string[];
  if (setEntries!.length === 0 && deleteList.length === 0) return { error: usage };
  const both = deleteList.find((key) => setEntries!.some(([k]) => k === key));
  if (both !== undefined) return { error: `tag '${both.slice(0, 40)}' is both set and deleted` };
  return { set: Object.fromEntries(setEntries!) as Record<string, string>, delete: deleteList };
}

/**
 * Apply `change` to the member's own tags and gossip them. Refused (400) when the encoded tags would
 * be larger than memberlist's 512 bytes or the member's `metaMaxBytes`, whichever is smaller.
 */
export async function updateTags(member: Member, change: TagsChange, onUpdated: (tags: Record<string, string>) => void): Promise<ControlAnswer> {
  const current = decodeTags(member.member(member.name)?.meta ?? new Uint8Array(0));
  const next: Record<string, string> = {};
  for (const [key, value] of [...Object.entries(current), ...Object.entries(change.set)]) {
    // defineProperty: a tag named __proto__ is a tag like any other.
    Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
  }
  for (const key of change.delete) delete next[key];
  const meta = encodeTags(next);
  const limit = Math.min(META_MAX_BYTES, member.config.metaMaxBytes);
  if (meta.length > limit) return { status: 400, body: { error: `the tags would be ${meta.length} bytes encoded, more than ${limit} (memberlist's limit on node metadata)` } };
  // Set now (synchronously): a concurrent request reads these tags, none is lost.
  const spreading = member.updateMeta(meta);
  const tags = decodeTags(meta);
  onUpdated(tags);
  const { spread } = await spreading;
  return { status: 200, body: { tags, spread } };
}
