import { pickRandom, randomFloat } from '../support/rng.js';
import type { CoreContext } from '../context.js';

const GOSSIP = 'gossip';

/**
 * The gossip tick (memberlist gossip): every interval, send queued updates to a few random
 * members. Suspects and recently dead members are eligible, so they can hear about themselves
 * and refute; members that left are not.
 *
 * A tick with nothing queued sends nothing and draws no randomness, so while the queue is empty
 * the tick is not scheduled at all: the next enqueue schedules it at the first time on the same
 * grid (every interval from the last tick) that is not in the past. In a quiet cluster a member
 * then wakes for its probes only, not five more times a second for empty gossip ticks.
 */
export class Gossiper {
  /** While idle: when the skipped tick would have run next. */
  #idleNext: number | undefined = undefined;

  constructor(private readonly ctx: CoreContext) {
    const { gossipIntervalMs, gossipNodes } = ctx.config;
    if (gossipIntervalMs > 0 && gossipNodes > 0) {
      ctx.deadlines.set(GOSSIP, ctx.now + Math.floor(gossipIntervalMs * randomFloat(ctx.rng)));
      ctx.onQueued = () => this.#wake();
    }
  }

  /** After a throw inside the core: the gossip tick is scheduled again (unless idle with nothing queued). */
  repair(): void {
    const { ctx } = this;
    const { gossipIntervalMs, gossipNodes } = ctx.config;
    if (!(gossipIntervalMs > 0 && gossipNodes > 0) || ctx.deadlines.has(GOSSIP)) return;
    if (this.#idleNext !== undefined && ctx.queue.size === 0) return;
    this.#idleNext = undefined;
    ctx.deadlines.set(GOSSIP, ctx.now + gossipIntervalMs);
  }

  onDeadline(key: string): boolean {
    if (key !== GOSSIP) return false;
    const { ctx } = this;
    const { config, now } = ctx;
    const next = now + config.gossipIntervalMs;
    ctx.deadlines.set(GOSSIP, next);
    this.gossipNow();
    if (ctx.queue.size === 0) {
      ctx.deadlines.delete(GOSSIP);
      this.#idleNext = next;
    }
    return true;
  }

  /** Something was queued: an idle tick resumes on its grid, at the first tick time not before now. */
  #wake(): void {
    let next = this.#idleNext;
    if (next === undefined) return;
    this.#idleNext = undefined;
    const { ctx } = this;
    // Repeated addition, as the ticks that were skipped would have re-armed one after another.
    while (next < ctx.now) next += ctx.config.gossipIntervalMs;
    ctx.deadlines.set(GOSSIP, next);
  }

  /** One round of gossip now, outside the tick (a leave, so that a member exiting at once is heard). */
  gossipNow(): void {
    const { ctx } = this;
    const { config, codec } = ctx;
    if (ctx.queue.size === 0 || config.gossipNodes === 0) return;
    const targets = pickRandom(ctx.rng, ctx.table.all(), config.gossipNodes, (m) => ctx.isGossipTarget(m));
    const limit = ctx.transmitLimit();
    for (const target of targets) {
      const taken = ctx.queue.take(config.maxPacketBytes - codec.packetOverheadBytes, codec.partOverheadBytes, limit, codec.maxPartsPerPacket);
      ctx.reportFinished(taken.finished);
      // Nothing left to say: later targets would get nothing either (memberlist returns here).
      if (taken.parts.length === 0) break;
      ctx.sendParts(ctx.table.address(target), taken.parts, taken.parts.length);
    }
  }
}
