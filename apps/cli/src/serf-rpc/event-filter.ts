/**
 * The `stream` command's Type (serf agent event_handler.go ParseEventFilter): a comma list of
 * member-join, member-leave, member-failed, member-update, member-reap, user, user:NAME, query,
 * query:NAME or `*`; empty means `*`. Any other entry is Serf's "Invalid event filter".
 */
import type { RpcEvent } from './backend.js';

interface EventFilter {
  readonly event: string;
  readonly name: string;
}

const VALID = new Set(['member-join', 'member-leave', 'member-failed', 'member-update', 'member-reap', 'user', 'query', '*']);

export function parseEventFilter(text: string): EventFilter[] | undefined {
  const filters = (text === '' ? '*' : text).split(',').map((entry): EventFilter => {
    if (entry.startsWith('user:')) return { event: 'user', name: entry.slice(5) };
    if (entry.startsWith('query:')) return { event: 'query', name: entry.slice(6) };
    return { event: entry, name: '' };
  });
  return filters.every((f) => VALID.has(f.event)) ? filters : undefined;
}

/** serf EventFilter.Invoke: the event's type matches, and for user events and queries the name when one is given. */
export function eventPasses(filters: readonly EventFilter[], event: RpcEvent): boolean {
  const type = event.kind === 'member' ? event.event : event.kind;
  return filters.some((f) => {
    if (f.event === '*') return true;
    if (f.event !== type) return false;
    if (f.name === '' || event.kind === 'member') return true;
    return f.name === event.name;
  });
}
