import { introduce } from './introduce.js';
import { SwimCore, type Effect, type SwimConfig, type MemberEventEffect } from '../../src/index.js';

/**
 * One core driven by hand, for focused tests: the test plays the network. `introduce` makes the
 * core learn members through alive packets; `advance` runs its deadlines in order.
 */
export class LoneCore {
  readonly core: SwimCore;
  readonly log: Array<{ at: number; effect: Effect }> = [];
  now = 0;

  constructor(config: Partial<SwimConfig>, seed = 1, name = 'me') {
    this.core = new SwimCore({ name, address: `${name}:1`, config, seed, now: 0 });
  }

  /** Learn members as a join would (gossip from strangers adds no names); see harness/introduce. */
  introduce(...names: string[]): void {
    const { effects, now } = introduce(this.core, names.map((name) => ({ name })), this.now);
    this.now = now;
    this.#record(effects);
  }

  receive(from: string, bytes: Uint8Array): Effect[] {
    return this.#record(this.core.receivePacket(from, bytes, this.now));
  }

  /** Run deadlines up to `until`, letting `network` answer each effect. */
  advance(until: number, network: (effect: Effect, core: LoneCore) => void = () => {}): void {
    for (let next = this.core.nextDeadline(); next !== undefined && next <= until; next = this.core.nextDeadline()) {
      this.now = Math.max(this.now, next);
      for (const effect of this.#record(this.core.tick(this.now))) network(effect, this);
    }
    this.now = until;
  }

  memberEvents(): Array<{ at: number; effect: MemberEventEffect }> {
    return this.log.filter((e): e is { at: number; effect: MemberEventEffect } => e.effect.type === 'member');
  }

  #record(effects: Effect[]): Effect[] {
    for (const effect of effects) this.log.push({ at: this.now, effect });
    return effects;
  }
}
