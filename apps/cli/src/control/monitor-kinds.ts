/**
 * What `swim monitor --kind` (and `GET /monitor?kinds=`) selects: membership changes by their kind,
 * as `member.changes({ kinds })` does, and every other line of the agent's log as `log`.
 */
import { MEMBER_EVENT_KINDS } from '@swim/runtime';

export const MONITOR_KINDS = [...MEMBER_EVENT_KINDS, 'log'] as const;
export type MonitorKind = (typeof MONITOR_KINDS)[number];

/** The kinds named in comma-separated lists (none: every kind), or what is wrong with them. */
export function parseMonitorKinds(lists: readonly string[]): MonitorKind[] | { readonly problem: string } {
  const named = lists.flatMap((list) => list.split(',').map((kind) => kind.trim()));
  if (named.length === 0) return [...MONITOR_KINDS];
  const unknown = named.filter((kind) => !(MONITOR_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0) {
    const shown = unknown.map((kind) => `'${kind.slice(0, 40)}'`).join(', ');
    return { problem: `unknown kind${unknown.length === 1 ? '' : 's'} ${shown} (expected ${MONITOR_KINDS.join(', ')})` };
  }
  return MONITOR_KINDS.filter((kind) => named.includes(kind));
}
