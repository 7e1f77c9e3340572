import { encodePacket, SwimCore, type Effect, type SwimConfig, type MemberEventEffect } from '../../src/index.js';

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

  introduce(...names: string[]): void {
    const alive = names.map((name) => ({ type: 'alive', incarnation: 1, node: name, address: `${name}:1`, meta: new Uint8Array(0) }) as const);
    this.receive(`${names[0]}:1`, encodePacket(alive));
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
