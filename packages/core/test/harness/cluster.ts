import { createRng, randomFloat, SwimCore, type Effect, type MemberEventEffect, type SwimConfig, type PresetName, type WireCodec } from '../../src/index.js';
import { EventHeap } from './event-heap.js';

/**
 * A small deterministic multi-node harness for the core's tests: many cores on virtual time,
 * packets and streams delivered through an event heap after a seeded latency, and the faults the
 * tests need (crash, pause, loss). Every byte goes through the real codec because cores only
 * exchange encoded packets.
 */
export interface ClusterOptions {
  readonly seed: number;
  readonly preset?: PresetName;
  readonly config?: Partial<SwimConfig>;
  /** One-way latency range in ms (uniform). */
  readonly latencyMs?: readonly [number, number];
  /** Probability a packet is dropped (streams are not dropped). */
  readonly loss?: number;
  /** A codec per member (each gets its own instance); the native one when absent. */
  readonly codec?: () => WireCodec;
}

export interface SimNode {
  readonly name: string;
  readonly address: string;
  readonly core: SwimCore;
  crashed: boolean;
  paused: boolean;
  /** Inputs held while paused, replayed on resume. */
  readonly held: Array<() => void>;
  readonly events: Array<{ at: number; effect: MemberEventEffect }>;
  readonly effects: Array<{ at: number; effect: Effect }>;
  wakeAt: number | undefined;
}

type Event =
  | { kind: 'wake'; node: SimNode }
  | { kind: 'packet'; to: string; from: string; bytes: Uint8Array }
  | { kind: 'stream-request'; to: string; from: SimNode; requestId: number; bytes: Uint8Array; expectReply: boolean }
  | { kind: 'stream-response'; node: SimNode; requestId: number; bytes: Uint8Array | undefined; failure: string | undefined };

export class Cluster {
  readonly nodes = new Map<string, SimNode>();
  readonly #byAddress = new Map<string, SimNode>();
  readonly #heap = new EventHeap<Event>();
  readonly #rng;
  readonly #streams = new Map<number, { requester: SimNode; requestId: number }>();
  /** Addresses whose packets (both ways) are lost while streams still work: a UDP-only fault. */
  readonly #packetsBlocked = new Set<string>();
  #nextStream = 1;
  #nextJoin = 1;
  now = 0;

  constructor(readonly options: ClusterOptions) {
    this.#rng = createRng(options.seed);
  }

  add(name: string, meta?: Uint8Array): SimNode {
    const address = `${name}.sim:7946`;
    const core = new SwimCore({
      name,
      address,
      ...(meta === undefined ? {} : { meta }),
      ...(this.options.preset === undefined ? {} : { preset: this.options.preset }),
      ...(this.options.config === undefined ? {} : { config: this.options.config }),
      seed: this.#rng.nextUint32(),
      now: this.now,
      ...(this.options.codec === undefined ? {} : { codec: this.options.codec() }),
    });
    const node: SimNode = { name, address, core, crashed: false, paused: false, held: [], events: [], effects: [], wakeAt: undefined };
    this.nodes.set(name, node);
    this.#byAddress.set(address, node);
    this.#schedule(node);
    return node;
  }

  node(name: string): SimNode {
    const node = this.nodes.get(name);
    if (node === undefined) throw new Error(`no node ${name}`);
    return node;
  }

  join(name: string, seeds: readonly string[]): number {
    const node = this.node(name);
    const joinId = this.#nextJoin++;
    this.#apply(node, node.core.join(seeds.map((s) => this.node(s).address), joinId, this.now));
    return joinId;
  }

  /** Call the core of `name` and carry out the effects it returns. */
  perform(name: string, action: (core: SwimCore, now: number) => Effect[]): Effect[] {
    const node = this.node(name);
    const effects = action(node.core, this.now);
    this.#apply(node, effects);
    return effects;
  }

  leave(name: string): void {
    const node = this.node(name);
    this.#apply(node, node.core.leave(this.now));
  }

  /** Stop a node for good: no timers, no packets (kill -9). */
  crash(name: string): void {
    this.node(name).crashed = true;
  }

  /** Freeze a node (SIGSTOP): timers stop, packets to it are held until resume. */
  pause(name: string): void {
    this.node(name).paused = true;
  }

  resume(name: string): void {
    const node = this.node(name);
    node.paused = false;
    const held = node.held.splice(0);
    for (const input of held) input();
    this.#apply(node, node.core.tick(this.now));
  }

  /** Lose every packet to or from `name`, leaving its streams working (UDP blocked, TCP open). */
  blockPackets(name: string): void {
    this.#packetsBlocked.add(this.node(name).address);
  }

  /** Run virtual time forward by `ms`. */
  run(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      const at = this.#heap.peekTime();
      if (at === undefined || at > until) break;
      const event = this.#heap.pop()!;
      this.now = Math.max(this.now, event.at);
      this.#handle(event.value, event.at);
    }
    this.now = until;
  }

  /** Run until `predicate` holds (checked every `stepMs`), or fail after `limitMs`. Returns the time taken. */
  runUntil(predicate: () => boolean, limitMs: number, stepMs = 100): number {
    const start = this.now;
    while (!predicate()) {
      if (this.now - start >= limitMs) throw new Error(`condition not met within ${limitMs} ms (seed ${this.options.seed})`);
      this.run(stepMs);
    }
    return this.now - start;
  }

  /** The state `observer` holds about `subject`. */
  stateOf(observer: string, subject: string): string | undefined {
    return this.node(observer).core.member(subject)?.state;
  }

  live(): SimNode[] {
    return [...this.nodes.values()].filter((n) => !n.crashed);
  }

  #handle(event: Event, at: number): void {
    switch (event.kind) {
      case 'wake': {
        const node = event.node;
        if (node.wakeAt !== at) return;
        node.wakeAt = undefined;
        if (node.crashed || node.paused) return;
        this.#apply(node, node.core.tick(at));
        return;
      }
      case 'packet': {
        const node = this.#byAddress.get(event.to);
        if (node === undefined || node.crashed) return;
        const deliver = () => this.#apply(node, node.core.receivePacket(event.from, event.bytes, this.now));
        if (node.paused) node.held.push(deliver);
        else deliver();
        return;
      }
      case 'stream-request': {
        const node = this.#byAddress.get(event.to);
        const requester = event.from;
        if (node === undefined || node.crashed || node.paused) {
          // Nobody answers: the requester's stream times out (a paused peer holds the connection).
          if (event.expectReply) this.#failStream(requester, event.requestId, 'timeout');
          return;
        }
        const streamId = this.#nextStream++;
        if (event.expectReply) this.#streams.set(streamId, { requester, requestId: event.requestId });
        this.#apply(node, node.core.receiveStream(streamId, requester.address, event.bytes, this.now));
        return;
      }
      case 'stream-response': {
        const node = event.node;
        if (node.crashed) return;
        const deliver = () =>
          this.#apply(
            node,
            event.bytes !== undefined
              ? node.core.step({ type: 'stream-response', requestId: event.requestId, bytes: event.bytes }, this.now)
              : node.core.step({ type: 'stream-failed', requestId: event.requestId, reason: event.failure ?? 'closed' }, this.now),
          );
        if (node.paused) node.held.push(deliver);
        else deliver();
        return;
      }
    }
  }

  #failStream(node: SimNode, requestId: number, failure: string): void {
    const timeout = node.core.config.streamTimeoutMs;
    this.#heap.push(this.now + timeout, { kind: 'stream-response', node, requestId, bytes: undefined, failure });
  }

  #latency(): number {
    const [lo, hi] = this.options.latencyMs ?? [1, 5];
    return lo + (hi - lo) * randomFloat(this.#rng);
  }

  #apply(node: SimNode, effects: Effect[]): void {
    for (const effect of effects) {
      node.effects.push({ at: this.now, effect });
      switch (effect.type) {
        case 'send-packet':
          if (this.options.loss !== undefined && randomFloat(this.#rng) < this.options.loss) break;
          if (this.#packetsBlocked.has(effect.to) || this.#packetsBlocked.has(node.address)) break;
          this.#heap.push(this.now + this.#latency(), { kind: 'packet', to: effect.to, from: node.address, bytes: effect.bytes });
          break;
        case 'stream-request':
          this.#heap.push(this.now + this.#latency(), {
            kind: 'stream-request',
            to: effect.to,
            from: node,
            requestId: effect.requestId,
            bytes: effect.bytes,
            expectReply: effect.expectReply,
          });
          break;
        case 'stream-reply': {
          const stream = this.#streams.get(effect.streamId);
          this.#streams.delete(effect.streamId);
          if (stream === undefined) break;
          this.#heap.push(this.now + this.#latency(), {
            kind: 'stream-response',
            node: stream.requester,
            requestId: stream.requestId,
            bytes: effect.bytes,
            failure: effect.bytes === undefined ? 'closed without reply' : undefined,
          });
          break;
        }
        case 'member':
          node.events.push({ at: this.now, effect });
          break;
        default:
          break;
      }
    }
    this.#schedule(node);
  }

  #schedule(node: SimNode): void {
    const next = node.core.nextDeadline();
    if (next === undefined || next === node.wakeAt) return;
    node.wakeAt = Math.max(next, this.now);
    this.#heap.push(node.wakeAt, { kind: 'wake', node });
  }
}
