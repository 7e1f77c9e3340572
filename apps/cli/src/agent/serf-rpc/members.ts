/**
 * The agent's members as Serf's RPC lists them (ipc.go Member): the address as raw IP bytes and a
 * port, the tags decoded from the metadata, and Serf's status names (a suspect member is still
 * `alive` to Serf, a dead one `failed`).
 */
import { decodeTags, parseIpPort, SERF_VSN } from '@swim/adapter-memberlist';
import { SWIM_PROTOCOL, type MemberView } from '@swim/core';
import type { Member } from '@swim/runtime';
import type { RpcMember } from '../../serf-rpc/backend.js';
import type { Wire } from '../../commands/agent/flags.js';

export function rpcMember(member: Member, wire: Wire, view: MemberView, leaving: boolean): RpcMember {
  const parsed = parseIpPort(view.address);
  const { addr, port } = typeof parsed === 'string' ? { addr: new Uint8Array(0), port: 0 } : { addr: parsed.ip, port: parsed.port };
  return {
    name: view.name,
    addr,
    port,
    tags: decodeTags(view.meta),
    status: leaving && view.name === member.name ? 'leaving' : statusOf(view.state),
    ...versions(member, wire, view.name),
  };
}

function statusOf(state: MemberView['state']): RpcMember['status'] {
  switch (state) {
    case 'alive':
    case 'suspect':
      return 'alive';
    case 'dead':
      return 'failed';
    case 'left':
      return 'left';
  }
}

/**
 * memberlist mode: what every member of a Serf cluster announces (the Vsn Serf 0.9 writes, ours
 * too). @swim's wire: its protocol range (Cur the version the member writes now) as both the
 * memberlist and the delegate versions: `serf members -detailed` shows the delegate's.
 */
function versions(member: Member, wire: Wire, name: string): Pick<RpcMember, 'protocol' | 'delegate'> {
  if (wire === 'memberlist') {
    const [pmin, pmax, pcur, dmin, dmax, dcur] = SERF_VSN;
    return { protocol: [pmin, pmax, pcur], delegate: [dmin, dmax, dcur] };
  }
  // Our own range is this release's; a member of 0.1.0 announces none (it speaks version 1 only).
  const range = name === member.name ? SWIM_PROTOCOL : (member.protocolOf(name) ?? { min: 1, max: 1 });
  const current = member.protocolVersion ?? range.min;
  const versions = [range.min, range.max, Math.min(current, range.max)] as const;
  return { protocol: versions, delegate: versions };
}

/** The member event `stream` sends for a membership change (serf MemberEvent), if Serf has one for it. */
export function memberEventName(event: string): 'member-join' | 'member-leave' | 'member-failed' | 'member-update' | undefined {
  switch (event) {
    case 'join':
      return 'member-join';
    case 'left':
      return 'member-leave';
    case 'dead':
      return 'member-failed';
    case 'update':
      return 'member-update';
    default:
      return undefined;
  }
}
