/** Output of `swim`: log lines, the members table, JSON views of members. */
import type { MemberView } from '@swim/core';
import type { MembershipChange } from '@swim/runtime';
import { decodeMeta } from './args.js';

/** A member as the control endpoint returns it (GET /members). */
export interface MemberJson {
  readonly name: string;
  readonly address: string;
  readonly state: string;
  readonly incarnation: number;
  /** The metadata decoded as a JSON object; null when it is not one (then `metaHex` holds the bytes). */
  readonly meta: Record<string, unknown> | null;
  readonly metaHex?: string;
}

export interface MembersReply {
  readonly self: string;
  readonly healthScore: number;
  readonly members: readonly MemberJson[];
}

export function memberJson(view: MemberView): MemberJson {
  const meta = decodeMeta(view.meta);
  return {
    name: view.name,
    address: view.address,
    state: view.state,
    incarnation: view.incarnation,
    meta: meta ?? null,
    ...(meta === undefined ? { metaHex: Buffer.from(view.meta).toString('hex') } : {}),
  };
}

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
    ...(change.cause === undefined ? {} : { cause: change.cause.kind }),
  };
}

export function membersTable(reply: MembersReply): string {
  const header = ['NAME', 'ADDRESS', 'STATE', 'INCARNATION', 'META'];
  const rows = reply.members.map((m) => [
    m.name === reply.self ? `${m.name} (self)` : m.name,
    m.address,
    m.state,
    String(m.incarnation),
    m.meta === null
      ? `hex:${m.metaHex ?? ''}`
      : Object.entries(m.meta)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join(','),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line), '', `health score of ${reply.self}: ${reply.healthScore}`].join('\n');
}
