import type { SwimConfig } from './config.js';

/** A preset of {@link presets}; `lan` is the default wherever one is chosen. */
export type PresetName = 'lan' | 'wan' | 'local';

/**
 * Our two corrections and our own knobs (docs/design.md), the same on every preset. memberlist has no
 * such fields; {@link memberlistProfile} sets its behaviour back.
 */
const OUR_DEFAULTS = {
  overdueGraceMs: 2000,
  healthScaling: 'at-expiry',
  healthPenaltyOrder: 'before-suspicion',
  nackTimeoutRatio: 0.8, // Lifeguard §IV.A: a helper nacks at 80% of the probe timeout
  fallbackStreamPing: true, // memberlist DisableTcpPings = false
  // Lifeguard's nacks and buddy system, always on in memberlist; switches for the bench only.
  requestNacks: true,
  buddySystem: true,
  directRefutation: true,
  // Restarts (docs/restarts.md): `pnpm bench restart` found the two direct answers to matter, and
  // memberlist PR #345's two gossip rules not to help (relaying unknown accusations made it worse).
  answerStaleAlive: true,
  answerAccusedPingers: true,
  regossipStaleAccusation: false,
  relayUnknownAccusations: false,
  // Serf's default (DisableCoordinates false): Vivaldi coordinates ride on direct acks.
  coordinates: true,
  // Serf's defaults (serf/config.go): memberlist alone never reconnects to a failed member.
  reconnectIntervalMs: 30_000,
  // Our addition (docs/endurance.md): a member declared dead catches up with its declarer's view.
  pushPullWithDeclarer: true,
  reconnectTimeoutMs: 24 * 60 * 60 * 1000,
  // Adaptive probe timeouts exist but are off: the bench (`pnpm bench adaptive`) found no preset
  // on which they win (apps/bench/results/adaptive.md). The ceiling is set per preset, below.
  probeTimeoutMode: 'fixed',
  adaptiveTimeoutFloorMs: 100,
  adaptiveTimeoutPhi: 4,
  adaptiveTimeoutWindow: 32,
  adaptiveTimeoutMinSamples: 5,
  adaptiveTimeoutMinStdDevMs: 20,
  refutationQueueKey: 'name',
  // Bounds against hostile peers (docs/memberlist-differences.md, "Hardening bounds"); memberlist has none of them.
  maxMembers: 16_384,
  maxNewMembersPerSource: 64,
  maxPushPullEntries: 16_384,
  maxConcurrentPushPulls: 128, // memberlist maxPushPullRequests
  mergeSliceEntries: 512,
  maxIncarnationJump: 65_536,
  leftNameReclaimMs: 30_000,
} as const satisfies Partial<SwimConfig>;

/**
 * `lateTickMs` in probe intervals: a call more than a whole interval late has skipped a probe round,
 * and a probe in flight (ping, helpers, verdict: one interval) would be judged in that one call,
 * before the answers queued meanwhile are read. Chrome's standard throttling of hidden tabs (timers
 * on one-second wake-ups, at most one lan interval late, while their WebSocket messages keep driving
 * the core) stays within it; intensive throttling (one wake-up a minute) and stalls go far past it.
 */
const LATE_TICK_INTERVALS = 1;

/**
 * memberlist `DefaultLANConfig()` (config.go), mapped onto our fields.
 * `maxPacketBytes` is UDPBufferSize, `streamTimeoutMs` is TCPTimeout, `metaMaxBytes` is MetaMaxSize,
 * `deadNodeReclaimMs` 0 is DeadNodeReclaimTime left unset (never reclaim).
 */
function lan(): SwimConfig {
  return Object.freeze({
    probeIntervalMs: 1000,
    probeTimeoutMs: 500,
    adaptiveTimeoutCeilingMs: 500, // = probeTimeoutMs: adaptive waits only ever shorten it
    indirectChecks: 3,
    suspicionMult: 4,
    suspicionMaxTimeoutMult: 6,
    awarenessMaxMultiplier: 8,
    retransmitMult: 4,
    gossipIntervalMs: 200,
    gossipNodes: 3,
    gossipToTheDeadMs: 30_000,
    maxPacketBytes: 1400,
    pushPullIntervalMs: 30_000,
    streamTimeoutMs: 10_000,
    deadNodeReclaimMs: 0,
    metaMaxBytes: 512,
    lateTickMs: LATE_TICK_INTERVALS * 1000,
    ...OUR_DEFAULTS,
  });
}

/** memberlist `DefaultWANConfig()`: LAN with these overrides (config.go). */
function wan(): SwimConfig {
  return Object.freeze({
    ...lan(),
    streamTimeoutMs: 30_000,
    suspicionMult: 6,
    pushPullIntervalMs: 60_000,
    probeTimeoutMs: 3000,
    adaptiveTimeoutCeilingMs: 3000,
    probeIntervalMs: 5000,
    lateTickMs: LATE_TICK_INTERVALS * 5000,
    gossipNodes: 4,
    gossipIntervalMs: 500,
    gossipToTheDeadMs: 60_000,
  });
}

/** memberlist `DefaultLocalConfig()`: LAN with these overrides (config.go). */
function local(): SwimConfig {
  return Object.freeze({
    ...lan(),
    streamTimeoutMs: 1000,
    indirectChecks: 1,
    retransmitMult: 2,
    suspicionMult: 3,
    pushPullIntervalMs: 15_000,
    probeTimeoutMs: 200,
    adaptiveTimeoutCeilingMs: 200,
    probeIntervalMs: 1000,
    gossipIntervalMs: 100,
    gossipToTheDeadMs: 15_000,
  });
}

/** Each call returns a fresh, frozen config. */
export const presets: {
  /** memberlist `DefaultLANConfig()`: 1 s probe interval, 500 ms probe timeout, 1400-byte packets. */
  readonly lan: () => SwimConfig;
  /** memberlist `DefaultWANConfig()`: 5 s probe interval, 3 s probe timeout, suspicion multiplier 6. */
  readonly wan: () => SwimConfig;
  /** memberlist `DefaultLocalConfig()`: 1 s probe interval, 200 ms probe timeout, 1 indirect check. */
  readonly local: () => SwimConfig;
} = Object.freeze({ lan, wan, local });

/**
 * memberlist compatibility: `base` with both corrections (docs/design.md) turned off and memberlist's
 * orderings kept, so the bench can show the leak the corrections remove.
 * - `overdueGraceMs` 0: an overdue confirmation fires the suspicion at once (suspicion.go Confirm).
 * - `lateTickMs` 0: memberlist judges probes and suspicions whenever its timers fire, however late.
 * - `healthScaling` 'off': suspicion timeouts ignore local health (state.go suspectNode).
 * - `healthPenaltyOrder` 'after-suspicion': probeNode raises the suspicion, then its deferred
 *   ApplyDelta runs.
 * - `nackTimeoutRatio` 1: memberlist's relay nacks after the full ProbeTimeout
 *   (net.go handleIndirectPing), not at 80% as Lifeguard §IV.A suggests.
 * - `directRefutation` false: refutations travel by gossip only, and a suspicion timer's verdict
 *   is immediate (memberlist suspectNode's timeout function).
 * - `probeTimeoutMode` 'fixed': memberlist waits ProbeTimeout for every direct ack.
 * - `reconnectIntervalMs` 0: memberlist never contacts a failed member again (Serf does).
 * - `pushPullWithDeclarer` false: memberlist refute only gossips the alive.
 * - `refutationQueueKey` 'address': memberlist refute queues our alive under our address.
 * - `answerStaleAlive`, `regossipStaleAccusation`, `relayUnknownAccusations`, `answerAccusedPingers`
 *   false: aliveNode drops a stale alive, suspectNode and deadNode drop news about unknown members,
 *   handlePing only acks (docs/restarts.md).
 * The bounds against hostile peers stay on: they are listed in docs/memberlist-differences.md.
 * `coordinates` stays as `base` has it (on): Serf, which runs on memberlist, has them on, and
 * memberlist without a ping delegate ignores ack payloads.
 */
export function memberlistProfile(base: SwimConfig): SwimConfig {
  return Object.freeze({
    ...base,
    overdueGraceMs: 0,
    lateTickMs: 0,
    healthScaling: 'off',
    healthPenaltyOrder: 'after-suspicion',
    nackTimeoutRatio: 1,
    directRefutation: false,
    probeTimeoutMode: 'fixed',
    reconnectIntervalMs: 0,
    pushPullWithDeclarer: false,
    refutationQueueKey: 'address',
    answerStaleAlive: false,
    regossipStaleAccusation: false,
    relayUnknownAccusations: false,
    answerAccusedPingers: false,
  });
}
