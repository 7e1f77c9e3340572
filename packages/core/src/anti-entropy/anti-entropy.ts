import type { Message, PushPullEntry, PushPullMessage } from '../codec/messages.js';
import { encodePacket } from '../codec/codec.js';
import type { StreamPurpose } from '../effects.js';
import { pushPullIntervalMs } from './push-pull-interval.js';
import { EMPTY_BYTES } from '../support/bytes.js';
import { pickRandom, randomFloat } from '../support/rng.js';
import type { CoreContext } from '../context.js';
import type { Membership } from '../members/membership.js';
import type { MemberRecord } from '../members/member-table.js';
import { isDown } from '../members/member.js';
import { FailedMembers } from './failed-members.js';

const PUSH_PULL = 'push-pull';
const RECONNECT = 'reconnect';

/** A join in progress: one push-pull per seed address (memberlist Join). */
interface PendingJoin {
  readonly id: number;
  remaining: number;
  readonly contacted: string[];
  readonly failed: Array<{ address: string; reason: string }>;
}

/** An outstanding push-pull we initiated. */
interface PendingExchange {
  readonly purpose: Extract<StreamPurpose, 'push-pull' | 'join'>;
  readonly address: string;
  readonly join: PendingJoin | undefined;
}

/**
 * Anti-entropy (memberlist §7): a periodic full-state push-pull with one random alive member over
 * a stream, interval scaled with cluster size; join is the same exchange with seed addresses.
 * Remote state is merged by the ordinary rules, except that a remote "dead" is only a suspicion
 * here ("we prefer to suspect that node instead of declaring it dead instantly", mergeState).
 * Reconnects (Serf serf.go `reconnect`) push-pull with a failed member now and then, so that a
 * partition heals by itself after both sides have declared, and reaped, each other dead.
 */
export class AntiEntropy {
  readonly #exchanges = new Map<number, PendingExchange>();
  readonly #failed: FailedMembers;
  /** Application state shared in every exchange (memberlist Delegate.LocalState). */
  userState: Uint8Array = EMPTY_BYTES;

  constructor(
    private readonly ctx: CoreContext,
    private readonly membership: Membership,
  ) {
    const base = ctx.config.pushPullIntervalMs;
    if (base > 0) ctx.deadlines.set(PUSH_PULL, ctx.now + Math.floor(base * randomFloat(ctx.rng)));
    this.#failed = new FailedMembers(ctx);
    const reconnect = ctx.config.reconnectIntervalMs;
    if (reconnect > 0) ctx.deadlines.set(RECONNECT, ctx.now + Math.floor(reconnect * randomFloat(ctx.rng)));
  }

  onDeadline(key: string): boolean {
    if (key === RECONNECT) {
      this.#reconnect();
      return true;
    }
    if (key !== PUSH_PULL) return false;
    const { ctx } = this;
    const [peer] = pickRandom(ctx.rng, ctx.table.all(), 1, (m) => m !== ctx.self && m.state === 'alive');
    if (peer !== undefined) this.#request(peer.address, 'push-pull', undefined);
    ctx.deadlines.set(PUSH_PULL, ctx.now + pushPullIntervalMs(ctx.config.pushPullIntervalMs, ctx.clusterSize));
    return true;
  }

  /** The probe pass reaped these records; failed ones stay reconnect candidates. */
  onReaped(records: readonly MemberRecord[]): void {
    this.#failed.rememberReaped(records);
  }

  /**
   * Serf reconnect: with probability failed / alive (alive counts ourselves), push-pull with one
   * random failed member, so the cluster as a whole tries each failed member about once per
   * interval however large it is. A reachable member merges our state and we merge its: both
   * sides then refute or learn of each other as after any push-pull.
   */
  #reconnect(): void {
    const { ctx } = this;
    ctx.deadlines.set(RECONNECT, ctx.now + ctx.config.reconnectIntervalMs);
    if (ctx.leaving) return;
    const candidates = this.#failed.candidates();
    if (candidates.length === 0) return;
    let alive = 0;
    for (const record of ctx.table.all()) if (!isDown(record.state)) alive++;
    if (randomFloat(ctx.rng) > candidates.length / Math.max(1, alive)) return;
    const [target] = pickRandom(ctx.rng, candidates, 1, () => true);
    ctx.counters.reconnectAttempts++;
    this.#request(target!.address, 'push-pull', undefined);
  }

  /** Start a join: push-pull with every seed address; `join-finished` reports it under `joinId`. */
  join(seeds: readonly string[], joinId: number): void {
    const join: PendingJoin = { id: joinId, remaining: seeds.length, contacted: [], failed: [] };
    if (seeds.length === 0) this.#finishJoin(join);
    for (const address of seeds) this.#request(address, 'join', join);
  }

  /** A peer opened a push-pull stream: answer with our state first, then merge theirs (memberlist handleConn). */
  onRequest(message: PushPullMessage, from: string, streamId: number): void {
    const { ctx } = this;
    ctx.emit({ type: 'stream-reply', streamId, bytes: encodePacket([this.#localState(message.join)]) });
    this.#merge(message, from);
  }

  /** Our push-pull was answered; false if `requestId` is not one of ours. */
  onResponse(requestId: number, reply: Message | undefined, failure: string | undefined): boolean {
    const exchange = this.#exchanges.get(requestId);
    if (exchange === undefined) return false;
    this.#exchanges.delete(requestId);
    let reason = failure;
    if (reason === undefined) {
      if (reply?.type === 'push-pull') this.#merge(reply, exchange.address);
      else reason = reply?.type === 'error' ? `remote error: ${reply.message}` : 'unexpected reply';
    }
    const join = exchange.join;
    if (join !== undefined) {
      if (reason === undefined) join.contacted.push(exchange.address);
      else join.failed.push({ address: exchange.address, reason });
      if (--join.remaining === 0) this.#finishJoin(join);
    }
    return true;
  }

  #request(address: string, purpose: PendingExchange['purpose'], join: PendingJoin | undefined): void {
    const { ctx } = this;
    const requestId = ctx.nextRequestId();
    this.#exchanges.set(requestId, { purpose, address, join });
    ctx.emit({
      type: 'stream-request',
      requestId,
      purpose,
      to: address,
      bytes: encodePacket([this.#localState(purpose === 'join')]),
      expectReply: true,
      timeoutMs: ctx.config.streamTimeoutMs,
    });
  }

  /** Every entry we hold, ourselves and dead/left members included (memberlist sendLocalState). */
  #localState(join: boolean): PushPullMessage {
    const members: PushPullEntry[] = this.ctx.table.all().map((m) => ({
      name: m.name,
      address: m.address,
      meta: m.meta,
      incarnation: m.incarnation,
      state: m.state,
    }));
    return { type: 'push-pull', join, members, userState: this.userState };
  }

  /** memberlist mergeState. */
  #merge(message: PushPullMessage, from: string): void {
    const { ctx, membership } = this;
    ctx.counters.pushPulls++;
    const selfName = ctx.self.name;
    for (const entry of message.members) {
      switch (entry.state) {
        case 'alive':
          membership.applyAlive({ type: 'alive', incarnation: entry.incarnation, node: entry.name, address: entry.address, meta: entry.meta });
          break;
        case 'left':
          membership.applyDead(
            { type: 'dead', incarnation: entry.incarnation, node: entry.name, from: entry.name },
            { kind: 'gossip', confirmations: 0, by: entry.name },
          );
          break;
        case 'dead':
        case 'suspect':
          membership.applySuspect({ type: 'suspect', incarnation: entry.incarnation, node: entry.name, from: selfName });
          break;
      }
    }
    if (message.userState.length > 0) {
      ctx.emit({ type: 'user-state', from, state: message.userState, join: message.join });
    }
  }

  #finishJoin(join: PendingJoin): void {
    this.ctx.emit({ type: 'join-finished', joinId: join.id, contacted: join.contacted, failed: join.failed });
  }
}
