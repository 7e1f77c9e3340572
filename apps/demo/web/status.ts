/**
 * The page's status lines. About the partition: which members are on which side of the cut (the
 * gateways and this tab are with the first half), or, after a heal, that the reconnect is at work
 * and when its next tick is due. About recovery: members running and on the network again (after
 * a black out, say) that the cluster still holds dead, and what brings them back.
 */
import type { ClusterState } from '../src/api.js';

export function partitionText(state: ClusterState | undefined, now: number): string {
  const partition = state?.partition;
  if (partition === undefined) return '';
  if (partition.halves !== null) {
    const [near, far] = partition.halves;
    return `partition in force: ${near.join(' ')} + gateways + this tab  ✂  ${far.join(' ')}; each side will declare the other dead`;
  }
  if (partition.healedAt === null) return '';
  const interval = partition.reconnectIntervalMs;
  if (interval === 0) return 'partition healed: this profile never reconnects to a dead member (memberlist); a restart or a join brings it back';
  const since = Math.round(Math.max(0, now - partition.healedAt) / 1000);
  const next = partition.nextReconnect;
  // Serf reconnect: every member ticks once per interval and, with probability failed / alive,
  // push-pulls with one member it holds failed; the first exchange that crosses brings both sides back.
  if (next === null) return `partition healed ${since} s ago: no member holds another failed any more; the reconnect has done its work`;
  return (
    `partition healed ${since} s ago: reconnection under way; the next reconnect tick is ${next.member}'s in ${(next.inMs / 1000).toFixed(1)} s ` +
    `(${next.candidates} failed member${next.candidates === 1 ? '' : 's'} to try; every member ticks every ${Math.round(interval / 1000)} s and tries one failed member with probability failed / alive)`
  );
}

/**
 * Members whose process runs and whose network is back, but whom most members still hold dead:
 * nobody probes a dead member, so only a reconnect tick (or a push-pull it starts itself) brings
 * it back. Empty when there is none, or while a partition is in force (the partition line says it).
 */
export function recoveryText(state: ClusterState | undefined): string {
  if (state === undefined || state.partition?.halves != null) return '';
  const back = state.members.filter((m) => m.process === 'running' && !m.blackout && state.consensus[m.name]?.state === 'dead').map((m) => m.name);
  if (back.length === 0) return '';
  const who = back.length === 1 ? `${back[0]} is` : `${back.join(', ')} are`;
  const interval = state.partition?.reconnectIntervalMs ?? 0;
  const it = back.length === 1 ? 'it' : 'them';
  // memberlist gossips to recently dead members (GossipToTheDeadTime): one that hears of its own death refutes it.
  const gossip = `if ${it} hear${back.length === 1 ? 's' : ''} of ${back.length === 1 ? 'its' : 'their'} death in the gossip still sent to recently dead members, ${back.length === 1 ? 'it refutes it' : 'they refute it'}`;
  if (interval === 0) return `${who} running and reachable, but most members hold ${it} dead: ${gossip}; this profile never reconnects to a dead member (memberlist), so otherwise a restart or a join brings ${it} back`;
  const next = state.partition?.nextReconnect;
  const tick = next == null ? '' : ` (next tick: ${next.member}'s in ${(next.inMs / 1000).toFixed(1)} s)`;
  return `${who} running and reachable, but most members hold ${it} dead, so nobody probes ${it}: ${gossip}, or the reconnect brings ${it} back when a tick picks ${it}${tick}; every member ticks every ${Math.round(interval / 1000)} s and tries one failed member with probability failed / alive`;
}
