/**
 * The page's one line about the partition: which members are on which side of the cut (the
 * gateway and this tab are with the first half), or, after a heal, that the reconnect is at work
 * and when its next tick is due.
 */
import type { ClusterState } from '../src/api.js';

export function partitionText(state: ClusterState | undefined, now: number): string {
  const partition = state?.partition;
  if (partition === undefined) return '';
  if (partition.halves !== null) {
    const [near, far] = partition.halves;
    return `partition in force: ${near.join(' ')} + gateway + this tab  ✂  ${far.join(' ')}; each side will declare the other dead`;
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
