import { pickRandom, randomFloat } from '../support/rng.js';
import type { CoreContext } from '../context.js';

const GOSSIP = 'gossip';

/**
 * The gossip tick (memberlist gossip): every interval, send queued updates to a few random
 * members. Suspects and recently dead members are eligible, so they can hear about themselves
 * and refute; members that left are not.
 */
export class Gossiper {
  constructor(private readonly ctx: CoreContext) {
    const { gossipIntervalMs, gossipNodes } = ctx.config;
    if (gossipIntervalMs > 0 && gossipNodes > 0) {
      ctx.deadlines.set(GOSSIP, ctx.now + Math.floor(gossipIntervalMs * randomFloat(ctx.rng)));
    }
  }

  /** After a throw inside the core: the gossip tick is scheduled again. */
  repair(): void {
    const { ctx } = this;
    const { gossipIntervalMs, gossipNodes } = ctx.config;
    if (gossipIntervalMs > 0 && gossipNodes > 0 && !ctx.deadlines.has(GOSSIP)) ctx.deadlines.set(GOSSIP, ctx.now + gossipIntervalMs);
  }

  onDeadline(key: string): boolean {
    if (key !== GOSSIP) return false;
    const { ctx } = this;
    const { config, now } = ctx;
    ctx.deadlines.set(GOSSIP, now + config.gossipIntervalMs);
    this.gossipNow();
    return true;
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
      ctx.sendParts(target.address, taken.parts, taken.parts.length);
    }
  }
}
