import { goLog10 } from '../support/go-math.js';

/**
 * How many times one update is piggybacked or gossiped in total, across all packets and targets,
 * before it is dropped (memberlist util.go `retransmitLimit`, used by queue.go
 * `TransmitLimitedQueue.GetBroadcasts`; SWIM §4.1 infection-style dissemination needs
 * O(log n) retransmissions):
 *
 *   limit = mult × ceil(log10(n + 1))
 *
 * With mult 4 (LAN/WAN): n = 1..9 → 4, 10..99 → 8, 100..999 → 12. n = 0 gives 0, as memberlist.
 *
 * @param mult `retransmitMult` (a Go int).
 * @param n estimated cluster size (memberlist `estNumNodes`); negative values count as 0.
 */
export function retransmitLimit(mult: number, n: number): number {
  // Exact at powers of ten, as Go's math.Log10: n = 9 → ceil(1) = 1, not 2.
  const nodeScale = Math.ceil(goLog10(Math.max(0, n) + 1));
  return mult * nodeScale;
}
