/**
 * One snapshot of the demo for the page and the terminal: every demo member's process and health,
 * the gateways and their browser sessions, and the cluster's consensus about every member (the state
 * most running demo members hold about it), and who sees whom (every demo member's and the
 * running gateways' view of every member).
 */
import type { MemberState } from '@swim/core';
import type { Member } from '@swim/runtime';
import type { ClusterState, GatewaySnapshot } from './api.js';
import type { DemoCluster } from './cluster.js';
import type { DemoGateway } from './gateways.js';
import { byName, matrixRow, type ViewMatrix } from './matrix-api.js';

export function clusterState(cluster: DemoCluster, gateways: readonly DemoGateway[]): ClusterState {
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
    gateways: gateways.map(gatewaySnapshot),
    partitioned: cluster.faults.partitioned,
    partition: { ...cluster.partitionState(), reconnectIntervalMs: gateways[0]!.config.reconnectIntervalMs, nextReconnect: nextReconnect(cluster, gateways) },
    consensus,
    matrix: viewMatrix(cluster, gateways),
  };
}

function gatewaySnapshot(gateway: DemoGateway): GatewaySnapshot {
  const member = gateway.member;
  return {
    name: gateway.name,
    url: gateway.url,
    process: gateway.state,
    address: gateway.address,
    incarnation: member?.incarnation ?? 0,
    healthScore: member?.healthScore ?? 0,
    browsers: gateway.sessions().map(({ name, address, connected }) => ({ name, address, connected })),
  };
}

/** The members with a view: the demo members with a process (paused ones too), then the running gateways'. */
function observers(cluster: DemoCluster, gateways: readonly DemoGateway[]): Member[] {
  return [...cluster.names().flatMap((name) => cluster.member(name) ?? []), ...gateways.flatMap((g) => g.member ?? [])];
}

/** The soonest reconnect tick among the members that hold some member failed. */
function nextReconnect(cluster: DemoCluster, gateways: readonly DemoGateway[]): { member: string; inMs: number; candidates: number } | null {
  let soonest: { member: string; inMs: number; candidates: number } | null = null;
  for (const member of observers(cluster, gateways)) {
    const next = member.nextReconnect();
    if (next === undefined || next.candidates === 0) continue;
    if (soonest === null || next.inMs < soonest.inMs) soonest = { member: member.name, inMs: Math.round(next.inMs), candidates: next.candidates };
  }
  return soonest;
}

/** Rows: the demo members with a process (paused ones too) and the running gateways; columns: every member any of them knows. */
function viewMatrix(cluster: DemoCluster, gateways: readonly DemoGateway[]): ViewMatrix {
  const viewers = observers(cluster, gateways);
  const names = new Set<string>(cluster.names());
  for (const observer of viewers) for (const view of observer.allMembers()) names.add(view.name);
  const members = [...names].sort(byName);
  return { members, rows: viewers.map((observer) => matrixRow(observer.name, observer.healthScore, members, (subject) => observer.member(subject))) };
}
