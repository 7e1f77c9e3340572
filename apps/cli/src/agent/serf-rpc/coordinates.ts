/**
 * `get-coordinate` over the runtime's Vivaldi coordinates: member.coordinate() for this agent,
 * member.coordinateOf(name) for the others (cached from their acks). A node with none (unknown,
 * or coordinates turned off) is Ok false, as on a Serf agent (serf GetCachedCoordinate).
 */
import type { Member } from '@swim/runtime';
import type { RpcCoordinate } from '../../serf-rpc/backend.js';

export function coordinateOf(member: Member, node: string): RpcCoordinate | undefined {
  // serf GetCachedCoordinate: our own coordinate is in the cache under our name too.
  const found = node === member.name ? member.coordinate() : member.coordinateOf(node);
  return found === undefined ? undefined : { vec: [...found.vec], error: found.error, adjustment: found.adjustment, height: found.height };
}
