/**
 * `members-filtered` (ipc.go filterMembers): each of Name, Status and every tag is a Go regexp
 * wrapped as `^EXPR$` (the text as given, so `a|b` becomes `^a|b$`, as in Serf), compiled by the
 * core's RE2 matcher. An empty Name or Status filters nothing; a tag a member lacks is matched as
 * "". An expression Go would refuse makes Serf drop the connection without a reply: so does this.
 */
import { TagPattern } from '@swim/core';
import type { RpcMember } from './backend.js';

export interface MemberFilter {
  readonly name: string;
  readonly status: string;
  readonly tags: ReadonlyMap<string, string>;
}

/** The members that pass, or the compile error (the connection is then closed). */
export function filterMembers(members: readonly RpcMember[], filter: MemberFilter): RpcMember[] | { readonly error: string } {
  const compile = (expr: string) => TagPattern.compile(`^${expr}$`);
  const tags: Array<[string, TagPattern]> = [];
  for (const [tag, expr] of filter.tags) {
    const pattern = compile(expr);
    if (!(pattern instanceof TagPattern)) return { error: `Failed to compile regex: ${pattern.error}` };
    tags.push([tag, pattern]);
  }
  const status = compile(filter.status);
  if (!(status instanceof TagPattern)) return { error: `Failed to compile regex: ${status.error}` };
  const name = compile(filter.name);
  if (!(name instanceof TagPattern)) return { error: `Failed to compile regex: ${name.error}` };
  return members.filter((m) => {
    for (const [tag, pattern] of tags) if (!pattern.match(Object.hasOwn(m.tags, tag) ? m.tags[tag]! : '').matched) return false;
    if (filter.status !== '' && !status.match(m.status).matched) return false;
    if (filter.name !== '' && !name.match(m.name).matched) return false;
    return true;
  });
}
