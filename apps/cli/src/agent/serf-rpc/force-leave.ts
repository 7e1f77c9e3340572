/**
 * `force-leave` over the runtime's force-leave (member.forceLeave(name), and SerfLayer.forceLeave
 * in memberlist mode, which also sends Serf's leave intent; the API agreed in issue 30), with
 * `Prune` passed on (erase the node at once). An unknown node is not an error (serf
 * RemoveFailedNode). Until the member has it, Serf's text for an operation it cannot do.
 */
import type { SerfLayer } from '@swim/adapter-memberlist';
import type { Member } from '@swim/runtime';
import { UNSUPPORTED_OPERATION } from '../../serf-rpc/protocol.js';

interface ForceLeaving {
  forceLeave?(name: string, options?: { readonly prune?: boolean }): unknown;
}

export async function forceLeave(member: Member, serf: SerfLayer | undefined, node: string, prune: boolean): Promise<void> {
  const target = (serf ?? member) as unknown as ForceLeaving;
  if (typeof target.forceLeave !== 'function') throw new Error(UNSUPPORTED_OPERATION);
  await target.forceLeave(node, { prune });
}
