/**
 * The page's one line about the partition: which members are on which side of the cut (the
 * gateway and this tab are with the first half), or, after a heal, that the reconnect is at work
 * and how often it retries (Member does not expose its next reconnect deadline).
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
  const since = Math.max(0, now - partition.healedAt);
  // Serf reconnect: the cluster as a whole tries each member it holds dead about once per interval.
  return `partition healed ${Math.round(since / 1000)} s ago: reconnection under way, the cluster retries each member it holds dead about once every ${Math.round(interval / 1000)} s (the next try is due within ${Math.round(interval / 1000)} s of the heal)`;
}
