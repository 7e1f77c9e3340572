/** Running totals the core keeps (memberlist's metrics, §10.1, plus what the bench needs). */
export interface Counters {
  /** Probes started (memberlist.probeNode). */
  probes: number;
  /** Probes that ended without any ack. */
  probeFailures: number;
  /** Probes that needed helpers (ping-req sent). */
  indirectProbes: number;
  /** Probes run with a scaled interval (memberlist.degraded.probe). */
  degradedProbes: number;
  /** Probes whose direct-ack wait came from the target's RTTs (adaptive probe timeout). */
  adaptiveProbes: number;
  /** Nacks received from helpers. */
  nacksReceived: number;
  /** Fallback pings sent over a stream. */
  fallbackPings: number;
  /** Suspicions this member raised from its own failed probes. */
  suspicionsRaised: number;
  /** Suspicion timers that expired with fewer than k confirmations (memberlist.degraded.timeout). */
  degradedTimeouts: number;
  /** Suspicion verdicts held back one probe timeout to ask the suspect directly (direct refutation). */
  verdictChecks: number;
  /** Accusations about ourselves that we refuted. */
  refutations: number;
  /** Dead verdicts made by our own suspicion timers. */
  deathsDeclared: number;
  /** Push-pull exchanges completed (both as initiator and responder). */
  pushPulls: number;
  /** Push-pulls started with a failed member to heal a partition (Serf reconnect). */
  reconnectAttempts: number;
  messagesIn: number;
  messagesOut: number;
  packetsIn: number;
  packetsOut: number;
  bytesIn: number;
  bytesOut: number;
  /** Packets or streams dropped because they could not be decoded. */
  decodeErrors: number;
}

export function zeroCounters(): Counters {
  return {
    probes: 0,
    probeFailures: 0,
    indirectProbes: 0,
    degradedProbes: 0,
    adaptiveProbes: 0,
    nacksReceived: 0,
    fallbackPings: 0,
    suspicionsRaised: 0,
    degradedTimeouts: 0,
    verdictChecks: 0,
    refutations: 0,
    deathsDeclared: 0,
    pushPulls: 0,
    reconnectAttempts: 0,
    messagesIn: 0,
    messagesOut: 0,
    packetsIn: 0,
    packetsOut: 0,
    bytesIn: 0,
    bytesOut: 0,
    decodeErrors: 0,
  };
}
