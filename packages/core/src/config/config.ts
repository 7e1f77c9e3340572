/**
 * How a node's own health stretches its suspicion timeouts (docs/design.md, correction 2).
 * - `off`: memberlist; suspicion timeouts ignore local health.
 * - `at-creation`: scale by (score + 1) read when the suspicion is created. With memberlist's
 *   ordering the failed probe's penalty lands after that read, so this barely helps (docs/corrections-study.md).
 * - `at-expiry`: read the score when the timer fires; if the scaled timeout has not passed yet,
 *   re-arm for the difference (at least the overdue grace).
 */
export type HealthScaling = 'off' | 'at-creation' | 'at-expiry';

/**
 * When a failed probe's health penalty is applied relative to the suspicion it raises.
 * memberlist's probeNode raises the suspicion first and applies the penalty in a deferred call.
 */
export type PenaltyOrder = 'before-suspicion' | 'after-suspicion';

/**
 * How long a probe waits for the direct ack before it asks helpers.
 * - `fixed`: `probeTimeoutMs` for every probe (memberlist ProbeTimeout).
 * - `adaptive`: per member, from its direct-ack round trips, phi accrual style:
 *   mean + z(`adaptiveTimeoutPhi`)·max(std, `adaptiveTimeoutMinStdDevMs`), clamped to
 *   [`adaptiveTimeoutFloorMs`, `adaptiveTimeoutCeilingMs`]; `probeTimeoutMs` while a member has
 *   fewer than `adaptiveTimeoutMinSamples` RTTs. Only the wait before the indirect phase changes:
 *   the probe still ends (and suspects) at the health-scaled probe interval, and a late direct ack
 *   still counts until then.
 *
 * Neither is scaled by local health: memberlist scales only the probe interval, never
 * ProbeTimeout (probeNode; awareness.go ScaleTimeout), and the adaptive wait follows the same rule.
 */
export type ProbeTimeoutMode = 'fixed' | 'adaptive';

/** Every tunable of the core. Times are milliseconds. Defaults come from `presets` (config.go). */
export interface SwimConfig {
  // --- probing (SWIM §4; memberlist probeNode) ---
  /** Time between probes, scaled by local health: × (score + 1). LAN 1000. */
  readonly probeIntervalMs: number;
  /** Wait for a direct ack before asking helpers; never scaled. LAN 500. With `adaptive`, the wait
   * for members without enough RTTs yet; helpers (ping-req) and the direct-refutation check always
   * use it. */
  readonly probeTimeoutMs: number;
  /** See {@link ProbeTimeoutMode}. Every preset: `fixed`. */
  readonly probeTimeoutMode: ProbeTimeoutMode;
  /** Adaptive mode: the derived wait is never below this. Every preset: 100. */
  readonly adaptiveTimeoutFloorMs: number;
  /**
   * Adaptive mode: the derived wait is never above this; must be below probeIntervalMs, to leave
   * the indirect phase its time. Presets: their probeTimeoutMs (LAN 500), so adaptive waits only
   * ever shorten the fixed one: a longer direct wait cannot save a probe (a late direct ack counts
   * anyway), it only leaves helpers less time and their nacks less chance of arriving.
   */
  readonly adaptiveTimeoutCeilingMs: number;
  /** Adaptive mode: phi threshold; z standard deviations past the mean RTT (4 → 3.72). Every preset: 4. */
  readonly adaptiveTimeoutPhi: number;
  /** Adaptive mode: RTTs kept per member. Every preset: 32. */
  readonly adaptiveTimeoutWindow: number;
  /** Adaptive mode: RTTs a member needs before its own wait is used. Every preset: 5. */
  readonly adaptiveTimeoutMinSamples: number;
  /** Adaptive mode: floor on the RTT standard deviation, ms. Every preset: 20. */
  readonly adaptiveTimeoutMinStdDevMs: number;
  /** Helpers asked to ping-req a target that missed its direct ack. LAN 3. */
  readonly indirectChecks: number;
  /** A helper nacks when the target is silent for this fraction of the probe timeout (Lifeguard: 0.8). */
  readonly nackTimeoutRatio: number;
  /** Also try a ping over a stream when the direct ping fails (memberlist TCP fallback ping). */
  readonly fallbackStreamPing: boolean;
  /**
   * Ask ping-req helpers for a nack (Lifeguard §IV.A; memberlist probeNode sets Nack for peers
   * with PMax >= 4). Off: helpers send none, and a failed probe costs +1 health, as memberlist
   * with peers that cannot nack. Every preset: true; false only to measure Lifeguard without it.
   */
  readonly requestNacks: boolean;
  /**
   * Buddy system (Lifeguard §IV.C; memberlist probeNode): a ping to a suspect carries the
   * accusation, so it can refute at once. Every preset: true; false only to measure Lifeguard without it.
   */
  readonly buddySystem: boolean;

  // --- suspicion (Lifeguard §IV.B; memberlist suspicion.go) ---
  /** Suspicion min = mult × log10(n) floored at 1 × probe interval. LAN 4. Confirmations wanted k = mult − 2. */
  readonly suspicionMult: number;
  /** Suspicion max = this × min. LAN 6. */
  readonly suspicionMaxTimeoutMult: number;
  /** Correction 1: when a confirmation finds the shrunken timeout already passed, wait this long
   * instead of declaring death on the spot. 0 turns it off (memberlist). */
  readonly overdueGraceMs: number;
  /**
   * Local health from our own timers (Lifeguard §IV.A, local health awareness; our addition): a call
   * that comes more than this long after the deadline the core last asked for (`nextDeadline()`)
   * means our timers ran late (a throttled background tab, a stalled process). Answers queued behind
   * the stall have not been read yet, so that call judges nobody: the probe in flight gets its probe
   * timeout again from now, suspicions that came due wait `max(overdueGraceMs, probeTimeoutMs)`
   * more, and the health score rises by one (counter `lateTicks`); each probe and suspicion is
   * spared once, so a member whose every call is late still judges. 0 turns it off. Presets: one
   * probe interval (lan and local 1000, wan 5000; presets.ts says why); memberlistProfile: 0. Set
   * it again when you change `probeIntervalMs`. The runtime retries a tick that threw one interval
   * later: that retry counts as late.
   */
  readonly lateTickMs: number;
  /** Correction 2: see {@link HealthScaling}. */
  readonly healthScaling: HealthScaling;
  /** See {@link PenaltyOrder}. */
  readonly healthPenaltyOrder: PenaltyOrder;
  /**
   * Refutations that cannot get lost (our addition; memberlist has no equivalent). A member that
   * hears an accusation about itself, current or stale, also answers the packet's sender directly
   * with its alive message; and one probe timeout before a suspicion timer's verdict, the
   * suspecting member sends the suspect the accusation once more, so the answer can arrive before
   * the verdict without delaying it (only when a confirmation brings the verdict closer than a probe
   * timeout does it wait that long after asking). Gossip alone can spend a refutation's whole
   * retransmit budget within a reconnection storm and miss a member.
   */
  readonly directRefutation: boolean;

  // --- restarts (docs/restarts.md) ---
  /**
   * A restarted process comes back at incarnation 1, below the death or leave its peers may hold
   * about it; its alive is then stale to them, and it refutes only if an accusation reaches it.
   * When an alive arrives about a member we hold dead or left at an incarnation the alive does not
   * override, send that member our accusation directly (to the address we hold for it, at most once
   * per probe interval per member), so it refutes above it at once. The same holds for a member
   * reaped after its death, for `reconnectTimeoutMs` (its name, address and incarnation are kept, at
   * most `maxMembers` of them): a stale view of it, from its old address at no higher incarnation,
   * does not bring it back (counter `reapedAlivesRefused`). Our addition; memberlist aliveNode drops
   * such an alive, and takes a reaped member back at any incarnation. Presets: true;
   * memberlistProfile: false.
   */
  readonly answerStaleAlive: boolean;
  /**
   * The same trigger as `answerStaleAlive`, answered as memberlist PR #345 proposes: queue our
   * accusation for gossip again (at most once per probe interval per member). Every preset and
   * memberlistProfile: false (`pnpm bench restart`: it does not help; docs/restarts.md).
   */
  readonly regossipStaleAccusation: boolean;
  /**
   * memberlist PR #345's second rule: a suspect or dead message about a member we do not know is
   * gossiped on instead of dropped, so that an accusation crosses members that restarted and never
   * heard of the accused. Bounded by `maxNewMembersPerSource` per source address per probe interval.
   * Every preset and memberlistProfile: false (`pnpm bench restart`: it spreads deaths of members
   * that are back to members that held them alive, and slows convergence; docs/restarts.md).
   */
  readonly relayUnknownAccusations: boolean;
  /**
   * A ping from a member we hold suspect, dead or left (by name, from the address we hold for it)
   * is answered with its ack and, once per probe interval per member, our accusation: it is running
   * and may not know what we hold (a restart, or a refutation gossip did not bring us). It refutes,
   * or with `directRefutation` answers with its newer alive. Our addition; memberlist handlePing
   * only acks. Presets: true; memberlistProfile: false.
   */
  readonly answerAccusedPingers: boolean;

  // --- network coordinates (Serf's ping delegate; docs/design.md, "Network coordinates") ---
  /**
   * Vivaldi network coordinates: our direct acks carry our coordinate, and each direct ack to our
   * probes updates ours with its RTT (serf ping_delegate.go), so that `estimateRtt` can tell the
   * round trip time to any member from two coordinates. Off: acks carry no coordinate and ours
   * never moves (Serf's DisableCoordinates). Every preset and memberlistProfile: true, as Serf.
   */
  readonly coordinates: boolean;

  // --- awareness (Lifeguard §IV.A; memberlist awareness.go) ---
  /** Health score range is [0, max − 1]; probe interval scales by up to this factor. LAN 8. */
  readonly awarenessMaxMultiplier: number;

  // --- dissemination (memberlist queue.go, state.go gossip) ---
  /** Retransmit limit = mult × ceil(log10(n + 1)). LAN 4. */
  readonly retransmitMult: number;
  /** Gossip tick; 0 turns the gossip tick off. LAN 200. */
  readonly gossipIntervalMs: number;
  /** Random members gossiped to per tick. LAN 3. */
  readonly gossipNodes: number;
  /** Dead members keep receiving gossip this long, and dead/left members are reaped after it. LAN 30000. */
  readonly gossipToTheDeadMs: number;
  /** Byte budget of one packet: the transport's MTU. Default 1400 (memberlist UDPBufferSize). */
  readonly maxPacketBytes: number;

  // --- anti-entropy (memberlist pushPull) ---
  /** Base interval of periodic push-pull, scaled with cluster size; 0 turns it off. LAN 30000. */
  readonly pushPullIntervalMs: number;
  /**
   * Every this long, with probability failed / alive, push-pull with one random member declared
   * dead (not left) in the last `reconnectTimeoutMs` (Serf ReconnectInterval, 30 s; memberlist has
   * none). This is what heals a partition long enough for both sides to reap each other. 0 = off.
   */
  readonly reconnectIntervalMs: number;
  /**
   * A dead message about us, from another member's verdict, means we were cut off from it long
   * enough for its suspicion to run out: its side of the cluster went on without us (joins,
   * restarts, refutations gossiped while we could not hear them, whose retransmits are spent).
   * Besides refuting, push-pull at once with the member that declared us, which holds that view,
   * at most once per `pushPullIntervalMs`. Without it a member that missed a join during a
   * partition learns of it at its next periodic push-pull, up to a scaled interval later (121 s at
   * 200 members; docs/endurance.md). Our addition; memberlist refute only gossips the alive.
   * Presets: true; memberlistProfile: false. Needs `pushPullIntervalMs` > 0.
   */
  readonly pushPullWithDeclarer: boolean;
  /** How long a dead member stays a reconnect candidate (Serf ReconnectTimeout, 24 h). */
  readonly reconnectTimeoutMs: number;
  /** Timeout of stream exchanges (push-pull, fallback ping, reliable user messages). LAN 10000. */
  readonly streamTimeoutMs: number;

  // --- identity ---
  /** A dead member's name may be taken by a new address after this long; 0 = never (memberlist default). */
  readonly deadNodeReclaimMs: number;
  /** Maximum metadata size in bytes (memberlist MetaMaxSize 512); larger meta from peers is dropped. */
  readonly metaMaxBytes: number;
  /**
   * Where our refutation is queued for gossip. `name`: under our member name, so it replaces queued
   * accusations about us. `address`: under our address, as memberlist's refute does (a quirk: the
   * accusations about us stay queued beside the refutation). Presets: `name`; memberlistProfile: `address`.
   */
  readonly refutationQueueKey: 'name' | 'address';

  // --- bounds against hostile peers (docs/memberlist-differences.md, "Hardening bounds") ---
  /** Most members the table holds, ourselves and unreaped dead included; new names beyond it are refused. Default 16384. */
  readonly maxMembers: number;
  /**
   * New member names accepted per source address per probe interval from unsolicited traffic
   * (gossip packets and push-pulls a peer opened); answers to push-pulls we started are exempt. Default 64.
   */
  readonly maxNewMembersPerSource: number;
  /** Most entries a push-pull may carry; a larger one is refused whole. Default 16384 (= maxMembers). */
  readonly maxPushPullEntries: number;
  /** Push-pulls opened by peers that may be merging at once; more are refused (memberlist maxPushPullRequests 128). */
  readonly maxConcurrentPushPulls: number;
  /** Entries merged per step of a push-pull merge; the rest waits for the next tick, so no merge blocks the event loop. Default 512. */
  readonly mergeSliceEntries: number;
  /**
   * An update about a member we know whose incarnation is more than this above the one we hold is
   * dropped as forged: only the member raises its incarnation, by one per refutation. It keeps a
   * forged accusation at the top of the uint32 range from exhausting a member's incarnations. 0 = no bound. Default 65536.
   */
  readonly maxIncarnationJump: number;
  /** A member that left keeps its name for this long before another address may take it (memberlist: at once). Default 30000. */
  readonly leftNameReclaimMs: number;
}
