import { createRng } from '@swim/core';
import { copyCounters, zeroCounters, type NetworkCounters } from './counters.js';
import { uniformLatency, type LatencyModel } from './latency.js';
import { MemoryTransport } from './memory-transport.js';
import { Router } from './router.js';
import type { Scheduler } from './scheduler.js';

/** Options of a {@link MemoryNetwork}. */
export interface MemoryNetworkOptions {
  /** Time and delivery: a VirtualClock for simulations, `realScheduler` for real-time tests. */
  readonly scheduler: Scheduler;
  /** Seed of the network's own randomness (latency draws, loss). */
  readonly seed: number;
  /** One-way delay of every packet and stream leg; default uniform 1-5 ms. */
  readonly latency?: LatencyModel;
  /** Largest packet carried; larger ones are dropped and counted as `oversize`. Default 1400 (memberlist UDPBufferSize). */
  readonly maxPacketBytes?: number;
}

/**
 * An in-memory network of {@link MemoryTransport}s with deterministic fault injection
 * (docs/design.md, "The simulator"). Given a seed and a virtual clock, every delay and every loss is
 * the same on every run.
 *
 * Faults, by address:
 * - `setLoss` / `setLinkLoss`: packet loss, uniform or one-way on one link. Streams are never
 *   dropped (TCP retransmits).
 * - `partition` / `heal`: packets across are dropped; streams across hang until their timeout.
 * - `crash` (permanent): nothing reaches the address again; packets to it are dropped, streams to
 *   it are refused after one latency.
 * - `pause` / `resume` (SIGSTOP): everything addressed to it is queued and handed over in order on
 *   resume; streams to it hang until the requester's timeout. The network cannot freeze the
 *   member's timers: the Simulation pauses its clock too.
 * - `blackout` / `endBlackout` (docs/corrections-study.md): the member's timers keep running; every packet to or
 *   from it is held and sent when the blackout ends, each with a fresh latency; every stream to or
 *   from it hangs until its timeout and fails.
 */
export class MemoryNetwork {
  /** What every delivery and stream timeout runs on (`MemoryNetworkOptions.scheduler`). */
  readonly scheduler: Scheduler;
  /** The seed of the network's own randomness (latency draws, loss), as given in the options. */
  readonly seed: number;
  /** Largest packet carried, in bytes (default 1400); every transport reports it as its `maxPacketBytes`. */
  readonly maxPacketBytes: number;
  readonly #router: Router;

  constructor(options: MemoryNetworkOptions) {
    const maxPacketBytes = options.maxPacketBytes ?? 1400;
    if (!(Number.isInteger(maxPacketBytes) && maxPacketBytes > 0)) {
      throw new RangeError(`maxPacketBytes must be a positive integer, got ${maxPacketBytes}`);
    }
    this.scheduler = options.scheduler;
    this.seed = options.seed;
    this.maxPacketBytes = maxPacketBytes;
    this.#router = new Router({
      scheduler: options.scheduler,
      rng: createRng(options.seed),
      latency: options.latency ?? uniformLatency(1, 5),
      maxPacketBytes,
    });
  }

  /** A new endpoint at `address`. The address may be reused after its previous transport closed or crashed. */
  transport(address: string): MemoryTransport {
    return new MemoryTransport(this.#router, this.#router.open(address));
  }

  /** A snapshot of the running totals. */
  get counters(): NetworkCounters {
    return copyCounters(this.#router.counters);
  }

  /** Zero every total in `counters`; `packetsHeld`, a gauge, keeps its value. */
  resetCounters(): void {
    const held = this.#router.counters.packetsHeld;
    Object.assign(this.#router.counters, zeroCounters(), { packetsHeld: held });
  }

  /** Lose each packet on every link with probability `p` (streams are never dropped). */
  setLoss(p: number): void {
    this.#router.faults.loss = probability('setLoss', p);
  }

  /** Lose each packet from `from` to `to` (one way) with probability `p`; 0 removes it. */
  setLinkLoss(from: string, to: string, p: number): void {
    this.#router.faults.setLinkLoss(from, to, probability('setLinkLoss', p));
  }

  /** Cut every link between the two groups (in addition to earlier partitions) until `heal()`. */
  partition(groupA: readonly string[], groupB: readonly string[]): void {
    this.#router.faults.partition(groupA, groupB);
  }

  /** Remove every partition. */
  heal(): void {
    this.#router.faults.heal();
  }

  /** Permanently stop the transport at `address`. */
  crash(address: string): void {
    this.#router.crash(this.#router.endpoint(address));
  }

  /** Queue everything addressed to `address` until `resume`. */
  pause(address: string): void {
    this.#router.pause(this.#router.endpoint(address));
  }

  /** Hand over what was queued during the pause, in order, at the current time. */
  resume(address: string): void {
    this.#router.resume(this.#router.endpoint(address));
  }

  /** True while the transport at `address` is paused (false for an address without a transport). */
  isPaused(address: string): boolean {
    return this.#router.endpoints.get(address)?.paused ?? false;
  }

  /** True once the transport at `address` crashed, until a new transport opens there (false for an address without one). */
  isCrashed(address: string): boolean {
    return this.#router.endpoints.get(address)?.crashed ?? false;
  }

  /** Cut `addresses` off (the blackout of docs/corrections-study.md); they need not have a transport yet. */
  blackout(addresses: readonly string[]): void {
    this.#router.faults.startBlackout(addresses);
  }

  /** End the blackout of `addresses` (every address when omitted) and release what it held. */
  endBlackout(addresses?: readonly string[]): void {
    this.#router.faults.endBlackout(addresses);
    this.#router.releaseBlackout();
  }

  /** True while `address` is blacked out (see `blackout`). */
  isBlackedOut(address: string): boolean {
    return this.#router.faults.blackedOut(address);
  }
}

function probability(what: string, p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`${what}: probability must be in [0, 1], got ${p}`);
  return p;
}
