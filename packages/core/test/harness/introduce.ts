import { encodePacket, type Effect, type ProtocolRange, type PushPullEntry, type SwimCore } from '../../src/index.js';

let nextJoin = 2_000_000_000;

/**
 * Make `core` learn members as a join would: gossip from addresses that are not members adds no
 * names (Membership admission), so tests introduce members by answering a join of the core with a
 * push-pull that lists them. A state over `mergeSliceEntries` is merged a slice per millisecond:
 * the returned time is when the merge was done (equal to `now` for small states).
 */
export function introduce(
  core: SwimCore,
  members: ReadonlyArray<{
    readonly name: string;
    readonly address?: string;
    readonly meta?: Uint8Array;
    readonly incarnation?: number;
    /** The member's protocol range; without one it is a member of 0.1.0 (version 1). */
    readonly protocol?: ProtocolRange;
  }>,
  now: number,
): { effects: Effect[]; now: number } {
  const entries: PushPullEntry[] = members.map((m) => ({
    name: m.name,
    address: m.address ?? `${m.name}:1`,
    meta: m.meta ?? new Uint8Array(0),
    incarnation: m.incarnation ?? 1,
    state: 'alive',
    ...(m.protocol === undefined ? {} : { protocol: m.protocol }),
  }));
  const joinId = nextJoin++;
  const effects = core.join(['introducer:1'], joinId, now);
  const request = effects.find((e) => e.type === 'stream-request');
  if (request?.type !== 'stream-request') throw new Error('the core opened no stream to join');
  const reply = encodePacket([{ type: 'push-pull', join: true, members: entries, userState: new Uint8Array(0) }]);
  effects.push(...core.step({ type: 'stream-response', requestId: request.requestId, bytes: reply }, now));
  while (!effects.some((e) => e.type === 'join-finished' && e.joinId === joinId)) {
    now = core.nextDeadline() ?? now + 1;
    effects.push(...core.tick(now));
  }
  return { effects, now };
}
