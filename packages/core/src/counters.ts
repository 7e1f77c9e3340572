/** Running totals the core keeps (memberlist's metrics, plus what the bench needs). */
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
  /** Verdict checks the suspect acked: the verdict waited one probe interval more and asked again. */
  verdictChecksAcked: number;
  /** Accusations about ourselves that we refuted. */
  refutations: number;
  /** Stale alives about members held down that we answered with the accusation (answerStaleAlive / regossipStaleAccusation). */
  staleAlivesAnswered: number;
  /** Pings from members held suspect, dead or left that we answered with the accusation (answerAccusedPingers). */
  accusedPingersAnswered: number;
  /** Alives about members reaped after their death, at the address and no higher incarnation they died at, not taken back in (answerStaleAlive). */
  reapedAlivesRefused: number;
  /** Suspect and dead messages about members we do not know that we gossiped on (relayUnknownAccusations). */
  unknownAccusationsRelayed: number;
  /** Dead verdicts made by our own suspicion timers. */
  deathsDeclared: number;
  /** Calls that came more than `lateTickMs` after the deadline we asked for: our timers ran late (local health). */
  lateTicks: number;
  /** Push-pull exchanges completed (both as initiator and responder). */
  pushPulls: number;
  /** Push-pulls started with a failed member to heal a partition (Serf reconnect). */
  reconnectAttempts: number;
  /** Failed members we marked left by a `force-leave` input (Serf RemoveFailedNode). */
  forceLeaves: number;
  /** `force-leave` inputs about a member alive or suspect to us: nothing done (it is not failed). */
  forceLeavesIgnored: number;
  /** Members forgotten at once by a `force-leave` with `prune`. */
  forceLeavesPruned: number;
  /** Push-pulls with the member that declared us dead, opened as we refuted it (pushPullWithDeclarer). */
  declarerPushPulls: number;
  /** Push-pulls opened to announce our move, one after another until one reaches a live member (anti-entropy.ts afterMove). */
  movePushPulls: number;
  /** Messages decoded from packets and streams (a stream carries one). */
  messagesIn: number;
  /** Messages sent in packets, piggybacked gossip included; stream requests and replies are not counted. */
  messagesOut: number;
  /** Packets decoded; undecodable ones count in `decodeErrors` instead. */
  packetsIn: number;
  /** Packets sent: one per `send-packet` effect. */
  packetsOut: number;
  /** Bytes of the packets decoded and of every stream request and reply received. */
  bytesIn: number;
  /** Bytes of the packets sent; stream bytes are not counted. */
  bytesOut: number;
  /** Packets or streams dropped because they could not be decoded. */
  decodeErrors: number;
  /**
   * Messages of a type this version does not know, from a member of a later version, skipped
   * whole; the other messages of their packet were handled (docs/compatibility.md).
   */
  unknownMessages: number;
  /** Alive messages dropped because their meta exceeds metaMaxBytes. */
  oversizedMeta: number;
  /** Updates dropped for an incarnation implausibly far above the one held (maxIncarnationJump). */
  implausibleUpdates: number;
  /** New names refused because the table holds maxMembers. */
  membersRefused: number;
  /** New names not admitted: their source spent its budget (maxNewMembersPerSource), a stranger spoke for someone else, or a live member holds their address. */
  newMembersNotAdmitted: number;
  /** Stale accusations about a moved member answered to their sender with the move it missed (membership.ts #correctMissedMove). */
  missedMovesCorrected: number;
  /** Refutations that found the incarnation space exhausted and restarted it at 1. */
  incarnationRenewals: number;
  /** Push-pulls refused: too many entries, or too many merging at once. */
  pushPullsRefused: number;
  /** Ping-reqs ignored: requester or target not a known member at the address given. */
  pingReqsRefused: number;
  /** Calls that threw inside the core (a bug); their effects were dropped and the timers kept. */
  internalErrors: number;
  /** Updates dropped instead of queued for gossip because no packet could carry them (larger than maxPacketBytes). */
  oversizedBroadcasts: number;
  /** User broadcast keys forgotten to keep the table of seen versions bounded (oldest activity first). */
  broadcastKeysEvicted: number;
  /** Direct acks whose coordinate updated ours (Serf's ping delegate; docs/design.md, "Network coordinates"). */
  coordinateUpdates: number;
  /**
   * Direct acks whose coordinate was refused, ours unchanged: NaN or infinite, implausible, of
   * another dimensionality, with an RTT beyond 10 s, or unreadable (Serf: "Rejected coordinate").
   */
  coordinatesRejected: number;
  /** Times our coordinate went NaN or infinite and started over (Serf's coordinate_resets). */
  coordinateResets: number;
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
    verdictChecksAcked: 0,
    refutations: 0,
    staleAlivesAnswered: 0,
    accusedPingersAnswered: 0,
    reapedAlivesRefused: 0,
    unknownAccusationsRelayed: 0,
    deathsDeclared: 0,
    lateTicks: 0,
    pushPulls: 0,
    reconnectAttempts: 0,
    forceLeaves: 0,
    forceLeavesIgnored: 0,
    forceLeavesPruned: 0,
    declarerPushPulls: 0,
    movePushPulls: 0,
    messagesIn: 0,
    messagesOut: 0,
    packetsIn: 0,
    packetsOut: 0,
    bytesIn: 0,
    bytesOut: 0,
    decodeErrors: 0,
    unknownMessages: 0,
    oversizedMeta: 0,
    implausibleUpdates: 0,
    membersRefused: 0,
    newMembersNotAdmitted: 0,
    missedMovesCorrected: 0,
    incarnationRenewals: 0,
    pushPullsRefused: 0,
    pingReqsRefused: 0,
    internalErrors: 0,
    oversizedBroadcasts: 0,
    broadcastKeysEvicted: 0,
    coordinateUpdates: 0,
    coordinatesRejected: 0,
    coordinateResets: 0,
  };
}
