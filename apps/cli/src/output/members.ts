/** Members for people and for scripts: the JSON view of a member (GET /members, log lines), the table of `swim members`, tags as text. */
import { decodeTags } from '@swim/adapter-memberlist';
import type { MemberView } from '@swim/core';

/** A member as the control endpoint returns it (GET /members). */
export interface MemberJson {
  readonly name: string;
  readonly address: string;
  readonly state: string;
  readonly incarnation: number;
  /** The metadata as Serf reads it (decodeTags): the tags `serf members` would list for this member. */
  readonly tags: Record<string, string>;
  /** The metadata bytes, only when they are not Serf tags and not UTF-8 text (see {@link memberJson}). */
  readonly metaHex?: string;
}

export interface MembersReply {
  readonly self: string;
  readonly healthScore: number;
  readonly members: readonly MemberJson[];
}

/**
 * Tags always come from decodeTags, so `swim members` and `serf members` agree on every member.
 * Meta that is not in tag form (no leading 0xff) is Serf's legacy form: one tag `role` holding the
 * meta as text. That makes sense for text (a role name; the JSON an older swim agent sent), so it
 * is shown as such; for bytes that are not UTF-8 the text is lossy (U+FFFD), so the bytes also go
 * along as `metaHex`, and the table shows them instead.
 */
export function memberJson(view: MemberView): MemberJson {
  const tags = decodeTags(view.meta);
  const lossy = (view.meta.length === 0 || view.meta[0] !== 0xff) && !isUtf8(view.meta, tags['role'] ?? '');
  return {
    name: view.name,
    address: view.address,
    state: view.state,
    incarnation: view.incarnation,
    tags,
    ...(lossy ? { metaHex: Buffer.from(view.meta).toString('hex') } : {}),
  };
}

/** Whether `text` is exactly what `bytes` decode to (they were well-formed UTF-8). */
function isUtf8(bytes: Uint8Array, text: string): boolean {
  return Buffer.compare(Buffer.from(text, 'utf8'), bytes) === 0;
}

export function membersTable(reply: MembersReply): string {
  const header = ['NAME', 'ADDRESS', 'STATE', 'INCARNATION', 'TAGS'];
  const rows = reply.members.map((m) => [
    m.name === reply.self ? `${m.name} (self)` : m.name,
    m.address,
    m.state,
    String(m.incarnation),
    m.metaHex !== undefined ? `hex:${m.metaHex}` : tagsText(m.tags),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line), '', `health score of ${reply.self}: ${reply.healthScore}`].join('\n');
}

/** `dc=eu,role=web`, control characters escaped. */
export function tagsText(tags: Readonly<Record<string, string>>): string {
  return Object.entries(tags)
    .map(([k, v]) => `${printable(k)}=${printable(v)}`)
    .join(',');
}

/** Tags come from any member of the cluster: control characters (terminal escapes, newlines) are shown escaped, not sent to the terminal. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
