/** Membership changes as the agent logs them: one text line, or one JSON object (`--log json`, `swim monitor --json`). */
import type { MembershipChange } from '@swim/runtime';
import { memberJson } from './members.js';

/** `2026-11-29T18:00:00.000Z n2 join n3 (10.0.0.3:7946, incarnation 1)` */
export function changeLine(now: Date, self: string, change: MembershipChange): string {
  const m = change.member;
  const cause = change.cause === undefined ? '' : `, ${change.cause.kind === 'timeout' ? 'suspicion timed out' : 'told by gossip'}`;
  return `${now.toISOString()} ${self} ${change.event} ${m.name} (${m.address}, incarnation ${m.incarnation}${cause})`;
}

export function changeJson(now: Date, self: string, change: MembershipChange): Record<string, unknown> {
  return {
    time: now.toISOString(),
    self,
    event: change.event,
    member: memberJson(change.member),
    previous: change.previous ?? null,
    ...(change.cause === undefined ? {} : { cause: change.cause.kind, by: change.cause.by }),
  };
}
