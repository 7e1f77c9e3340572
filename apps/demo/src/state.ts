/**
 * One snapshot of the demo for the page and the terminal: every demo member's process and health,
 * the gateway and its browser sessions, and the cluster's consensus about every member (the state
 * most running demo members hold about it).
 */
import type { MemberState } from '@swim/core';
import type { Member } from '@swim/runtime';
import type { WsGateway } from '@swim/transport-ws/node';
import type { ClusterState } from './api.js';
import type { DemoCluster } from './cluster.js';

export function clusterState(cluster: DemoCluster, gateway: WsGateway, gatewayMember: Member): ClusterState {
  const votes = new Map<string, Map<string, number>>();
  for (const name of cluster.names()) {
    const member = cluster.member(name);
    if (member === undefined) continue;
    for (const view of member.allMembers()) {
      const key = `${view.state}:${view.incarnation}`;
      const tally = votes.get(view.name) ?? new Map<string, number>();
      tally.set(key, (tally.get(key) ?? 0) + 1);
      votes.set(view.name, tally);
    }
  }
  const consensus: Record<string, { state: MemberState; incarnation: number }> = {};
  for (const [name, tally] of votes) {
    const [top] = [...tally.entries()].sort((a, b) => b[1] - a[1]);
    const [state, incarnation] = top![0].split(':');
    consensus[name] = { state: state as MemberState, incarnation: Number(incarnation) };
  }
  return {
    time: Date.now(),
    members: cluster.snapshot(),
    gateway: {
      name: gatewayMember.name,
      address: gatewayMember.address,
      incarnation: gatewayMember.incarnation,
      healthScore: gatewayMember.healthScore,
      browsers: gateway.sessions(),
    },
    partitioned: cluster.faults.partitioned,
    consensus,
  };
}
