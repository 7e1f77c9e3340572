import { retransmitLimit } from '../dissemination/retransmit-limit.js';
import { suspicionTimeoutMs } from '../lifeguard/suspicion-timeout.js';
import type { SwimConfig } from './config.js';

/**
 * Worst case, in ms, from a member's crash until every other member holds it dead, for a cluster
 * of `members` (ourselves included) on a network without loss, every member at health score 0.
 * Each term is a step of the protocol at its slowest:
 * - probing: each member probes everyone once per pass and reshuffles between passes (SWIM §4.3),
 *   so a crash right after a probe is probed again at most 2(n − 1) intervals later, and that
 *   probe fails at the end of its interval;
 * - suspicion: the Lifeguard maximum, suspicionMaxTimeoutMult × min (no confirmation at all);
 * - an overdue confirmation waits `overdueGraceMs` more (correction 1);
 * - direct refutation asks the suspect one probe timeout before the verdict, and holds the verdict
 *   up to that long when a confirmation brought it closer than that (a loose bound: it adds it all);
 * - dissemination: the dead message is sent at most retransmitLimit times, one gossip tick each
 *   at worst (one probe interval each when the gossip tick is off).
 * Local health stretches the probe interval and (with health scaling) the suspicion by up to
 * (score + 1): multiply by awarenessMaxMultiplier for a bound that survives a degraded prober.
 */
export function failureDetectionBoundMs(config: SwimConfig, members: number): number {
  const n = Math.max(2, Math.floor(members));
  const probing = 2 * (n - 1) * config.probeIntervalMs;
  const suspicion = suspicionTimeoutMs(config.suspicionMult, n, config.probeIntervalMs) * config.suspicionMaxTimeoutMult;
  const verdictCheck = config.directRefutation ? config.probeTimeoutMs : 0;
  const spreadTick = config.gossipIntervalMs > 0 ? config.gossipIntervalMs : config.probeIntervalMs;
  const spread = retransmitLimit(config.retransmitMult, n) * spreadTick;
  return probing + suspicion + config.overdueGraceMs + verdictCheck + spread;
}
