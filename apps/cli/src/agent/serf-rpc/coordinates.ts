/**
 * `get-coordinate` over the runtime's coordinates (member.coordinate() for this agent,
 * member.coordinateOf(name) for the others, the API agreed in issue 30). Until the member has
 * them, every node is unknown (Ok false), as on a Serf agent with coordinates disabled.
 */
import type { Member } from '@swim/runtime';
import type { RpcCoordinate } from '../../serf-rpc/backend.js';

interface CoordinatingMember {
  coordinate?(): RpcCoordinate | undefined;
  coordinateOf?(name: string): RpcCoordinate | undefined;
}

export function coordinateOf(member: Member, node: string): RpcCoordinate | undefined {
  const m = member as unknown as CoordinatingMember;
  // serf GetCachedCoordinate: our own coordinate is in the cache under our name too.
  const found = node === member.name ? m.coordinate?.() : m.coordinateOf?.(node);
  return found === undefined ? undefined : { vec: [...found.vec], error: found.error, adjustment: found.adjustment, height: found.height };
}
