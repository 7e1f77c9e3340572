/**
 * One snapshot of the demo for the page and the terminal: every demo member's process and health,
 * the gateway and its browser sessions, and the cluster's consensus about every member (the state
 * most running demo members hold about it), and who sees whom (every demo member's and the
 * gateway's view of every member).
 */
import type { MemberState } from '@swim/core';
import type { Member } from '@swim/runtime';
import type { WsGateway } from '@swim/transport-ws/node';
import type { ClusterState } from './api.js';
import type { DemoCluster } from './cluster.js';
import { byName, matrixRow, type ViewMatrix } from './matrix-api.js';

export function clusterState(cluster: DemoCluster, gateway: WsGateway, gatewayMember: Member): ClusterState {
  // Per subject, one ballot per distinct (state, incarnation) held about it.
  const ballots = new Map<string, Map<string, { state: MemberState; incarnation: number; votes: number }>>();
  for (const name of cluster.names()) {
    for (const view of cluster.member(name)?.allMembers() ?? []) {
      const tally = ballots.get(view.name) ?? new Map();
      ballots.set(view.name, tally);
      const key = `${view.state}:${view.incarnation}`;
      const ballot = tally.get(key) ?? { state: view.state, incarnation: view.incarnation, votes: 0 };
      tally.set(key, ballot);
      ballot.votes++;
    }
  }
  const consensus: Record<string, { state: MemberState; incarnation: number }> = {};
  for (const [name, tally] of ballots) {
    const top = [...tally.values()].reduce((best, ballot) => (ballot.votes > best.votes ? ballot : best));
    consensus[name] = { state: top.state, incarnation: top.incarnation };
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
    partition: { ...cluster.partitionState(), reconnectIntervalMs: gatewayMember.config.reconnectIntervalMs, nextReconnect: nextReconnect(cluster, gatewayMember) },
    consensus,
    matrix: viewMatrix(cluster, gatewayMember),
  };
}

/** The members with a view: the demo members with a process (paused ones too), then the gateway's. */
function observers(cluster: DemoCluster, gatewayMember: Member): Member[] {
  return [...cluster.names().flatMap((name) => cluster.member(name) ?? []), gatewayMember];
}

/** The soonest reconnect tick among the members that hold some member failed. */
function nextReconnect(cluster: DemoCluster, gatewayMember: Member): { member: string; inMs: number; candidates: number } | null {
  let soonest: { member: string; inMs: number; candidates: number } | null = null;
  for (const member of observers(cluster, gatewayMember)) {
    const next = member.nextReconnect();
    if (next === undefined || next.candidates === 0) continue;
    if (soonest === null || next.inMs < soonest.inMs) soonest = { member: member.name, inMs: Math.round(next.inMs), candidates: next.candidates };
  }
  return soonest;
}

/** Rows: the demo members with a process (paused ones too) and the gateway; columns: every member any of them knows. */
function viewMatrix(cluster: DemoCluster, gatewayMember: Member): ViewMatrix {
  const viewers = observers(cluster, gatewayMember);
  const names = new Set<string>(cluster.names());
  for (const observer of viewers) for (const view of observer.allMembers()) names.add(view.name);
  const members = [...names].sort(byName);
  return { members, rows: viewers.map((observer) => matrixRow(observer.name, observer.healthScore, members, (subject) => observer.member(subject))) };
}
