import type { AckMessage, NackMessage, PingMessage, PingReqMessage } from '../codec/messages.js';
import type { ProbeEffect } from '../effects.js';
import { failedProbeDelta, HEALTH_DELTA } from '../lifeguard/awareness.js';
import type { MemberView } from '../members/member.js';
import { NO_MEMBER, type MemberId } from '../members/member-table.js';
import { pickRandom, randomFloat } from '../support/rng.js';
import { EMPTY_BYTES } from '../support/bytes.js';
import type { CoreContext } from '../context.js';
import type { Membership } from '../members/membership.js';
import type { ProbeTimeoutMode } from '../config/config.js';

const PROBE = 'probe';
const PROBE_TIMEOUT = 'probe-timeout';
const PROBE_END = 'probe-end';
const RELAY = 'r:';
/** Ping-reqs relayed at once. */
const MAX_RELAYS = 1024;

/** The probe in flight (memberlist probeNode runs one at a time). */
interface ActiveProbe {
  readonly seq: number;
  /** Held for the probe only: reaping, which frees ids, happens when the next probe starts. */
  readonly target: MemberId;
  /**
   * The target's incarnation when the probe began: a failed probe accuses this one. memberlist
   * probeNode copies the node at the start; an alive learnt while the probe ran (the target's own
   * refutation, say) already overrides an accusation of the older incarnation.
   */
  readonly incarnation: number;
  readonly sentAt: number;
  /** The wait for the direct ack before the indirect phase (fixed or adaptive). */
  readonly timeoutMs: number;
  /** Helpers asked for a nack (memberlist expectedNacks). */
  expectedNacks: number;
  nacks: number;
  /** Stream request of the fallback ping, if one was sent. */
  fallbackRequestId: number | undefined;
  fallbackSucceeded: boolean;
  /** A late call gave it its timeout again (once: a member whose every call is late still judges). */
  sparedLate: boolean;
}

/** A ping-req we are carrying out for another member (memberlist handleIndirectPing). */
interface Relay {
  readonly requesterSeq: number;
  readonly requesterAddress: string;
  readonly expiresAt: number;
  /** Still owe the requester a nack if the target stays silent. */
  nackPending: boolean;
}

/**
 * The failure detector: SWIM §4's probe cycle with Lifeguard's nacks and buddy system, following
 * memberlist probeNode step by step: direct ping, wait the probe timeout (fixed,
 * or per member from its RTTs: {@link ProbeTimeoutMode}), ask k helpers with ping-req and try a
 * stream ping in parallel, wait until the (health-scaled) probe interval ends, then suspect and
 * adjust local health.
 */
export class Prober {
  #active: ActiveProbe | undefined;
  /** When the last probe started; the next starts one interval later (a ticker, as memberlist). */
  #lastStart: number;
  readonly #relays = new Map<number, Relay>();

  constructor(
    private readonly ctx: CoreContext,
    private readonly membership: Membership,
    private readonly onReaped: (members: readonly MemberView[]) => void,
  ) {
    // A random stagger within one interval, as memberlist's schedule.
    const stagger = Math.floor(ctx.config.probeIntervalMs * randomFloat(ctx.rng));
    this.#lastStart = ctx.now + stagger - ctx.config.probeIntervalMs;
    ctx.deadlines.set(PROBE, ctx.now + stagger);
  }

  /** Handles a due deadline; false if the key is not the prober's. */
  onDeadline(key: string): boolean {
    switch (key) {
      case PROBE:
        this.#startProbe();
        return true;
      case PROBE_TIMEOUT:
        this.#startIndirect();
        return true;
      case PROBE_END:
        this.#endProbe();
        return true;
    }
    if (key.startsWith(RELAY)) {
      this.#relayDeadline(Number(key.slice(RELAY.length)));
      return true;
    }
    return false;
  }

  /** After a throw inside the core: a probe cycle with no deadline left starts again. */
  repair(): void {
    const { ctx } = this;
    const { deadlines } = ctx;
    if (deadlines.has(PROBE) || deadlines.has(PROBE_TIMEOUT) || deadlines.has(PROBE_END)) return;
    this.#active = undefined;
    deadlines.set(PROBE, ctx.now + ctx.config.probeIntervalMs);
  }

  /**
   * A late call (lifeguard/late-tick.ts): the probe in flight is not failed by our lateness. Its due
   * phase starts again from now: a due direct-ack wait gets its probe timeout again (the helpers'
   * phase after it keeps its length), a due end gets one probe timeout for a direct or relayed ack,
   * since acks that queued behind the stall are read right after it. True when a probe was spared.
   */
  spareLateProbe(): boolean {
    const { ctx } = this;
    const probe = this.#active;
    // Once per probe: when every call comes late (a tab throttled to a wake-up a minute), the
    // second late call judges it, so a dead target is still found, one probe timeout later.
    if (probe === undefined || probe.sparedLate) return false;
    const { deadlines, now } = ctx;
    const timeoutAt = deadlines.get(PROBE_TIMEOUT);
    const endAt = deadlines.get(PROBE_END);
    if (timeoutAt !== undefined && timeoutAt <= now) {
      const shift = now + probe.timeoutMs - timeoutAt;
      deadlines.set(PROBE_TIMEOUT, timeoutAt + shift);
      if (endAt !== undefined) deadlines.set(PROBE_END, endAt + shift);
      probe.sparedLate = true;
      return true;
    }
    if (endAt !== undefined && endAt <= now) {
      deadlines.set(PROBE_END, now + probe.timeoutMs);
      probe.sparedLate = true;
      return true;
    }
    return false;
  }

  // --- the prober's side ---------------------------------------------------------------------

  #startProbe(): void {
    const { ctx } = this;
    const { config } = ctx;
    const { table } = ctx;
    const reaped: MemberView[] = [];
    const target = table.nextProbeTarget(ctx.self.id, ctx.now, config.gossipToTheDeadMs, reaped);
    if (reaped.length > 0) this.onReaped(reaped);
    this.#lastStart = ctx.now;
    if (target === undefined) {
      ctx.deadlines.set(PROBE, ctx.now + config.probeIntervalMs);
      return;
    }
    const interval = ctx.awareness.scaleTimeout(config.probeIntervalMs);
    ctx.counters.probes++;
    if (interval > config.probeIntervalMs) ctx.counters.degradedProbes++;
    const seq = ctx.nextSeq();
    const timeoutMs = this.#directTimeout(target);
    const ping = this.#ping(seq, target);
    if (table.state(target) === 'suspect' && config.buddySystem) {
      // Buddy system (Lifeguard §IV.C, memberlist PR #85): tell the suspect it is suspected, so it
      // can refute at once. Sent raw: the accusation must not be crowded out by other gossip.
      ctx.sendRaw(table.address(target), [
        ping,
        { type: 'suspect', incarnation: table.incarnation(target), node: table.name(target), from: ctx.self.name },
      ]);
    } else {
      ctx.sendWithGossip(table.address(target), ping);
    }
    this.#active = {
      seq,
      target,
      incarnation: table.incarnation(target),
      sentAt: ctx.now,
      timeoutMs,
      expectedNacks: 0,
      nacks: 0,
      fallbackRequestId: undefined,
      fallbackSucceeded: false,
      sparedLate: false,
    };
    ctx.deadlines.set(PROBE_TIMEOUT, ctx.now + timeoutMs);
    ctx.deadlines.set(PROBE_END, ctx.now + interval);
  }

  /**
   * How long to wait for `target`'s direct ack before asking helpers. `fixed`: probeTimeoutMs.
   * `adaptive`: derived from the target's RTTs (probe/rtt-history.ts), probeTimeoutMs while it has
   * too few. Not scaled by local health, as memberlist never scales ProbeTimeout
   * (probeNode and awareness.go ScaleTimeout: only the probe interval is scaled). We read the issue's "scaled by local health
   * like the fixed one" as "treated like the fixed one", which is unscaled: an unhealthy member
   * already gets a longer probe (the scaled interval) in which late direct acks still count, and
   * lengthening the direct wait would only leave its helpers less of that time.
   */
  #directTimeout(target: MemberId): number {
    const { ctx } = this;
    const { config } = ctx;
    const name = ctx.table.name(target);
    if (config.probeTimeoutMode !== 'adaptive' || !ctx.rtts.isAdaptive(name)) return config.probeTimeoutMs;
    ctx.counters.adaptiveProbes++;
    return ctx.rtts.timeoutFor(name, config.probeTimeoutMs);
  }

  /** The direct ping timed out: ask helpers, and try a stream ping alongside (memberlist probeNode's indirect phase). */
  #startIndirect(): void {
    const { ctx } = this;
    const probe = this.#active;
    if (probe === undefined) return;
    const { table } = ctx;
    const target = probe.target;
    // Helpers that answered our own pings within the last two probe passes come first, and only
    // their silence counts against our health (missed nacks, Lifeguard §IV.A): a member that never
    // answered us (one a stranger invented, say) proves nothing about us by not nacking.
    const { indirectChecks, probeIntervalMs, requestNacks } = ctx.config;
    const provenSince = ctx.now - 2 * ctx.clusterSize * probeIntervalMs;
    const candidate = (m: MemberId) => m !== ctx.self.id && m !== target && table.state(m) === 'alive';
    const helpers = pickRandom(ctx.rng, table.all(), indirectChecks, (m) => candidate(m) && table.ackedAt(m) >= provenSince);
    const proven = helpers.length;
    if (proven < indirectChecks) {
      helpers.push(...pickRandom(ctx.rng, table.all(), indirectChecks - proven, (m) => candidate(m) && !(table.ackedAt(m) >= provenSince)));
    }
    if (helpers.length > 0) ctx.counters.indirectProbes++;
    for (const helper of helpers) {
      const request: PingReqMessage = {
        type: 'ping-req',
        seq: probe.seq,
        target: table.name(target),
        targetAddress: table.address(target),
        nack: requestNacks,
        sourceName: ctx.self.name,
        sourceAddress: ctx.self.address,
      };
      ctx.sendWithGossip(table.address(helper), request);
    }
    // Without nacks, a failed probe costs +1 (memberlist: no nack-capable helper).
    probe.expectedNacks = requestNacks ? proven : 0;
    if (ctx.config.fallbackStreamPing) {
      const requestId = ctx.nextRequestId();
      probe.fallbackRequestId = requestId;
      ctx.counters.fallbackPings++;
      ctx.emit({
        type: 'stream-request',
        requestId,
        purpose: 'fallback-ping',
        to: table.address(target),
        bytes: ctx.encodeStream(this.#ping(probe.seq, target)),
        expectReply: true,
        timeoutMs: Math.max(1, (ctx.deadlines.get(PROBE_END) ?? ctx.now) - ctx.now),
      });
    }
  }

  /** The probe's scaled interval is over without an ack (memberlist probeNode's end). */
  #endProbe(): void {
    const { ctx } = this;
    const probe = this.#active;
    if (probe === undefined) return;
    if (probe.fallbackSucceeded) {
      // Reachable over a stream though packets failed: not suspected (memberlist: "network may be misconfigured").
      this.#succeed(probe, 'stream');
      return;
    }
    this.#active = undefined;
    ctx.deadlines.delete(PROBE_TIMEOUT);
    ctx.counters.probeFailures++;
    const delta = failedProbeDelta(probe.expectedNacks, probe.nacks);
    const target = probe.target;
    const targetName = ctx.table.name(target);
    const suspect = () => {
      const raised = this.membership.applySuspect({
        type: 'suspect',
        incarnation: probe.incarnation,
        node: targetName,
        from: ctx.self.name,
      });
      if (raised) ctx.counters.suspicionsRaised++;
    };
    // memberlist raises the suspicion and applies the penalty afterwards, in a deferred call (docs/corrections-study.md).
    if (ctx.config.healthPenaltyOrder === 'before-suspicion') {
      ctx.applyHealthDelta(delta);
      suspect();
    } else {
      suspect();
      ctx.applyHealthDelta(delta);
    }
    this.#report({ type: 'probe', target: targetName, ok: false, via: 'none', rttMs: undefined, timeoutMs: probe.timeoutMs });
    this.#scheduleNext();
  }

  #succeed(probe: ActiveProbe, via: ProbeEffect['via']): void {
    const { ctx } = this;
    this.#active = undefined;
    ctx.deadlines.delete(PROBE_TIMEOUT);
    ctx.deadlines.delete(PROBE_END);
    ctx.applyHealthDelta(HEALTH_DELTA.probeSucceeded);
    const rttMs = via === 'direct' ? ctx.now - probe.sentAt : undefined;
    const targetName = ctx.table.name(probe.target);
    if (via === 'direct') ctx.table.setAckedAt(probe.target, ctx.now);
    // Only direct acks measure the path to the target; relayed and stream acks measure other paths.
    if (rttMs !== undefined && ctx.config.probeTimeoutMode === 'adaptive') ctx.rtts.record(targetName, rttMs);
    this.#report({ type: 'probe', target: targetName, ok: true, via, rttMs, timeoutMs: probe.timeoutMs });
    this.#scheduleNext();
  }

  #report(effect: ProbeEffect): void {
    this.ctx.emit(effect);
  }

  /** A ticker that drops missed ticks: next start one interval after the last, or now if overdue. */
  #scheduleNext(): void {
    const { ctx } = this;
    ctx.deadlines.set(PROBE, Math.max(ctx.now, this.#lastStart + ctx.config.probeIntervalMs));
  }

  /** Fallback stream ping answered (or failed). */
  onFallbackResult(requestId: number, acked: boolean): boolean {
    const probe = this.#active;
    if (probe === undefined || probe.fallbackRequestId !== requestId) return false;
    if (acked) probe.fallbackSucceeded = true;
    return true;
  }

  /** Whether `requestId` is the active probe's fallback ping and its expected sequence number. */
  fallbackSeq(requestId: number): number | undefined {
    const probe = this.#active;
    return probe !== undefined && probe.fallbackRequestId === requestId ? probe.seq : undefined;
  }

  // --- incoming messages ---------------------------------------------------------------------

  /**
   * memberlist handlePing: a ping names the member it means to reach, so one that reached a
   * member restarted under another name is ignored; an empty name (old memberlist senders) is answered.
   */
  static isForUs(ping: PingMessage, selfName: string): boolean {
    return ping.target === selfName || ping.target === '';
  }

  /**
   * memberlist handlePing: answer pings addressed to us; a ping for another name means the address
   * was reused. memberlist answers at the source address the ping names; we do so only when that
   * is where the packet came from, or the named member's known address, and then only a bare ack:
   * otherwise one forged ping would aim our ack, and the gossip it carries, at anyone.
   */
  onPing(ping: PingMessage, from: string): void {
    const { ctx } = this;
    if (!Prober.isForUs(ping, ctx.self.name)) return;
    if (ping.sourceAddress === '' || ping.sourceAddress === from) {
      ctx.sendWithGossip(from, { type: 'ack', seq: ping.seq, payload: ctx.ackPayloadTo(from) });
      this.membership.answerAccusedPinger(ping.sourceName, from);
      return;
    }
    const ack: AckMessage = { type: 'ack', seq: ping.seq, payload: ctx.bareAckPayload };
    const source = ctx.table.idOf(ping.sourceName);
    ctx.sendRaw(source !== NO_MEMBER && ctx.table.address(source) === ping.sourceAddress ? ping.sourceAddress : from, [ack]);
  }

  /**
   * memberlist handleIndirectPing: probe the target for the requester, nack if it stays silent.
   * Only for a requester that is a member asking from its own address, about a member at the
   * address we know for it (memberlist relays for anyone to any address: a reflector and, with
   * piggybacked gossip, an amplifier).
   */
  onPingReq(request: PingReqMessage, from: string): void {
    const { ctx } = this;
    const { probeTimeoutMs, nackTimeoutRatio } = ctx.config;
    const { table } = ctx;
    const requester = table.idOf(request.sourceName);
    const target = table.idOf(request.target);
    const requesterAddress = request.sourceAddress !== '' ? request.sourceAddress : from;
    if (requester === NO_MEMBER || requester === ctx.self.id || table.address(requester) !== from || requesterAddress !== from) {
      ctx.counters.pingReqsRefused++;
      return;
    }
    if (target === NO_MEMBER || target === ctx.self.id || table.address(target) !== request.targetAddress || table.state(target) === 'left') {
      // A member asked about someone we cannot vouch for: nack at once, so that its Lifeguard
      // health does not count our silence against itself (a nack says: this helper is fine).
      ctx.counters.pingReqsRefused++;
      if (request.nack) ctx.sendRaw(from, [{ type: 'nack', seq: request.seq }]);
      return;
    }
    // Each relay lives one probe timeout; members ask a few per probe interval, so this only binds a flood.
    if (this.#relays.size >= MAX_RELAYS) {
      ctx.counters.pingReqsRefused++;
      return;
    }
    const seq = ctx.nextSeq();
    ctx.sendWithGossip(request.targetAddress, {
      type: 'ping',
      seq,
      target: request.target,
      sourceName: ctx.self.name,
      sourceAddress: ctx.self.address,
    });
    const relay: Relay = {
      requesterSeq: request.seq,
      requesterAddress,
      expiresAt: ctx.now + probeTimeoutMs,
      nackPending: request.nack,
    };
    this.#relays.set(seq, relay);
    // Lifeguard §IV.A: nack at 80% of the timeout, so it reaches the prober before it gives up.
    ctx.deadlines.set(RELAY + seq, request.nack ? ctx.now + probeTimeoutMs * nackTimeoutRatio : relay.expiresAt);
  }

  onAck(ack: AckMessage, from: string): void {
    const probe = this.#active;
    if (probe !== undefined && ack.seq === probe.seq) {
      // A relayed ack comes from a helper; a direct one (even late) from the target.
      const direct = from === this.ctx.table.address(probe.target);
      if (direct) this.#readDirectAck(probe, ack);
      this.#succeed(probe, direct ? 'direct' : 'indirect');
      return;
    }
    const relay = this.#relays.get(ack.seq);
    if (relay === undefined) {
      this.membership.onCheckAck(ack.seq, from);
      return;
    }
    this.#relays.delete(ack.seq);
    this.ctx.deadlines.delete(RELAY + ack.seq);
    // memberlist relays the ack without the payload.
    this.ctx.sendWithGossip(relay.requesterAddress, { type: 'ack', seq: relay.requesterSeq, payload: EMPTY_BYTES });
  }

  /**
   * The target's own word in its direct ack's payload: the protocol versions it speaks
   * (protocol-range.ts; an empty payload is a member of 0.1.0, which speaks version 1 only) and
   * its coordinate, which moves ours by the RTT (memberlist NotifyPingComplete). As memberlist,
   * only an ack within the probe timeout is a sample: a later one waited behind a loss.
   */
  #readDirectAck(probe: ActiveProbe, ack: AckMessage): void {
    const { ctx } = this;
    const content = ctx.readAckPayload(ack.payload);
    if (ctx.codec.protocol !== undefined) ctx.table.setProtocol(probe.target, content.protocol);
    const rttMs = ctx.now - probe.sentAt;
    if (ctx.coordinates !== undefined && rttMs <= probe.timeoutMs) ctx.coordinates.onDirectAck(ctx.table.name(probe.target), rttMs, content);
  }

  onNack(nack: NackMessage): void {
    const probe = this.#active;
    if (probe === undefined || nack.seq !== probe.seq) return;
    probe.nacks++;
    this.ctx.counters.nacksReceived++;
  }

  #relayDeadline(seq: number): void {
    const { ctx } = this;
    const relay = this.#relays.get(seq);
    if (relay === undefined) return;
    if (relay.nackPending) {
      relay.nackPending = false;
      const nack: NackMessage = { type: 'nack', seq: relay.requesterSeq };
      ctx.sendWithGossip(relay.requesterAddress, nack);
      if (relay.expiresAt > ctx.now) {
        ctx.deadlines.set(RELAY + seq, relay.expiresAt);
        return;
      }
    }
    this.#relays.delete(seq);
  }

  #ping(seq: number, target: MemberId): PingMessage {
    const self = this.ctx.self;
    return { type: 'ping', seq, target: this.ctx.table.name(target), sourceName: self.name, sourceAddress: self.address };
  }
}
