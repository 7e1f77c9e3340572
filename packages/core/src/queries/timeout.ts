import { goLog10 } from '../support/go-math.js';

/**
 * The timeout of a query sent without one (serf serf.go DefaultQueryTimeout):
 *
 *   gossip interval × queryTimeoutMult × ceil(log10(n + 1))
 *
 * long enough for the query to reach everyone by gossip and for their answers to come back. With
 * Serf's LAN gossip interval (200 ms) and multiplier (16): n = 1..9 → 3.2 s, 10..99 → 6.4 s,
 * 100..999 → 9.6 s. Exact at powers of ten, as Go's math.Log10.
 *
 * @param gossipIntervalMs our config's `gossipIntervalMs` (memberlist GossipInterval).
 * @param numMembers members that are neither dead nor left, ourselves included (memberlist
 *   NumMembers); fewer than 1 counts as 1, since we are always one (Go would give 0 s for 0).
 * @param queryTimeoutMult `QueryConfig.queryTimeoutMult`, default 16.
 */
export function defaultQueryTimeoutMs(gossipIntervalMs: number, numMembers: number, queryTimeoutMult = 16): number {
  const n = Number.isFinite(numMembers) ? Math.max(1, Math.floor(numMembers)) : 1;
  return gossipIntervalMs * queryTimeoutMult * Math.ceil(goLog10(n + 1));
}
