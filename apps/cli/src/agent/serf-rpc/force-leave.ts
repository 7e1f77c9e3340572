/**
 * `force-leave` (serf RemoveFailedNode): member.forceLeave(name), or SerfLayer.forceLeave in
 * memberlist mode, which also sends Serf's leave intent for the node, with `Prune` passed on
 * (erase the node at once). An unknown node is not an error, as in Serf.
 */
import type { SerfLayer } from '@swim/adapter-memberlist';
import type { Member } from '@swim/runtime';

export function forceLeave(member: Member, serf: SerfLayer | undefined, node: string, prune: boolean): void {
  if (serf === undefined) member.forceLeave(node, { prune });
  else serf.forceLeave(node, { prune });
}
