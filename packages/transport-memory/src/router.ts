import { randomFloat, type Rng } from '@swim/core';
import type { StreamOptions, StreamResult } from '@swim/runtime';
import { zeroCounters, type DropCause, type NetworkCounters } from './counters.js';
import { Endpoint, StreamCall } from './endpoint.js';
import { Faults } from './faults.js';
import type { LatencyModel } from './latency.js';
import type { Scheduler } from './scheduler.js';

const REFUSED: StreamResult = Object.freeze({ ok: false, reason: 'connection refused' });
const RESET: StreamResult = Object.freeze({ ok: false, reason: 'connection reset by peer' });
const CLOSED: StreamResult = Object.freeze({ ok: false, reason: 'transport closed' });
const NO_REPLY: StreamResult = Object.freeze({ ok: false, reason: 'closed without reply' });
const WRITTEN: StreamResult = Object.freeze({ ok: true, bytes: undefined });

/** A packet held by a blackout, released with a fresh latency when both ends are out of it. */
interface BlackoutPacket {
  readonly from: string;
  readonly to: string;
  readonly bytes: Uint8Array;
}

export interface RouterOptions {
  readonly scheduler: Scheduler;
  readonly rng: Rng;
  readonly latency: LatencyModel;
  readonly maxPacketBytes: number;
}

/**
 * Moves packets and stream legs between endpoints on a scheduler, applying the faults. Internal to
 * the package: {@link MemoryNetwork} is its public face and {@link MemoryTransport} the endpoints'.
 *
 * Every delivery is a scheduled event (never synchronous inside a send), one latency after the
 * send; a stream costs one latency to reach the peer and another for the reply. All randomness
 * (latency, loss) comes from one seeded generator, drawn in event order, so runs replay exactly.
 */
export class Router {
  readonly counters: NetworkCounters = zeroCounters();
  readonly faults = new Faults();
  readonly endpoints = new Map<string, Endpoint>();
  readonly scheduler: Scheduler;
  readonly maxPacketBytes: number;
  readonly #rng: Rng;
  readonly #latency: LatencyModel;
  #blackoutHeld: BlackoutPacket[] = [];

  constructor(options: RouterOptions) {
    this.scheduler = options.scheduler;
    this.#rng = options.rng;
    this.#latency = options.latency;
    this.maxPacketBytes = options.maxPacketBytes;
  }

  /** A new endpoint at `address`; an address is reusable once its previous endpoint closed or crashed. */
  open(address: string): Endpoint {
    if (typeof address !== 'string' || address.length === 0) throw new TypeError('a transport address must be a non-empty string');
    const existing = this.endpoints.get(address);
    if (existing !== undefined && !existing.closed && !existing.crashed) throw new Error(`address ${address} is already in use`);
    const endpoint = new Endpoint(address);
    this.endpoints.set(address, endpoint);
    return endpoint;
  }

  endpoint(address: string): Endpoint {
    const endpoint = this.endpoints.get(address);
    if (endpoint === undefined) throw new Error(`no transport at ${address}`);
    return endpoint;
  }

  // --- packets --------------------------------------------------------------------------------

  sendPacket(from: Endpoint, to: string, bytes: Uint8Array): void {
    if (from.closed || from.crashed) return;
    const counters = this.counters;
    counters.packetsSent++;
    counters.bytesSent += bytes.length;
    if (bytes.length > this.maxPacketBytes) return this.#drop('oversize');
    const faults = this.faults;
    if (faults.loss > 0 && randomFloat(this.#rng) < faults.loss) return this.#drop('loss');
    const linkLoss = faults.linkLoss(from.address, to);
    if (linkLoss > 0 && randomFloat(this.#rng) < linkLoss) return this.#drop('link-loss');
    if (faults.partitioned && faults.separated(from.address, to)) return this.#drop('partition');
    if (faults.blackedOut(from.address) || faults.blackedOut(to)) return this.#holdForBlackout(from.address, to, bytes);
    this.#transmit(from.address, to, bytes);
  }

  #transmit(from: string, to: string, bytes: Uint8Array): void {
    const scheduler = this.scheduler;
    scheduler.schedule(scheduler.now() + this.#delay(from, to), () => this.#arrive(from, to, bytes));
  }

  #arrive(from: string, to: string, bytes: Uint8Array): void {
    const faults = this.faults;
    // A partition or blackout that began while the packet was in flight catches it too.
    if (faults.partitioned && faults.separated(from, to)) return this.#drop('partition');
    if (faults.blackedOut(to)) return this.#holdForBlackout(from, to, bytes);
    const endpoint = this.endpoints.get(to);
    if (endpoint === undefined) return this.#drop('unreachable');
    if (endpoint.crashed) return this.#drop('crashed');
    if (endpoint.closed || endpoint.handlers === undefined) return this.#drop('unreachable');
    if (endpoint.paused) {
      endpoint.held.push({ kind: 'packet', from, bytes });
      return;
    }
    this.#handOver(endpoint, from, bytes);
  }

  #handOver(endpoint: Endpoint, from: string, bytes: Uint8Array): void {
    this.counters.packetsDelivered++;
    this.counters.bytesDelivered += bytes.length;
    endpoint.handlers!.packet(from, bytes);
  }

  #drop(cause: DropCause): void {
    this.counters.packetsDropped++;
    this.counters.dropped[cause]++;
  }

  #holdForBlackout(from: string, to: string, bytes: Uint8Array): void {
    this.#blackoutHeld.push({ from, to, bytes });
    this.counters.packetsHeld = this.#blackoutHeld.length;
  }

  /** Release every held packet whose ends are both out of blackout now, each with a fresh latency. */
  releaseBlackout(): void {
    const faults = this.faults;
    const still: BlackoutPacket[] = [];
    for (const packet of this.#blackoutHeld) {
      if (faults.blackedOut(packet.from) || faults.blackedOut(packet.to)) still.push(packet);
      else this.#transmit(packet.from, packet.to, packet.bytes);
    }
    this.#blackoutHeld = still;
    this.counters.packetsHeld = still.length;
  }

  // --- streams --------------------------------------------------------------------------------

  request(from: Endpoint, to: string, bytes: Uint8Array, options: StreamOptions, done: (result: StreamResult) => void): void {
    const { timeoutMs, expectReply } = options;
    if (!(timeoutMs >= 0)) throw new RangeError(`request: timeoutMs must be >= 0, got ${timeoutMs}`);
    const scheduler = this.scheduler;
    const now = scheduler.now();
    if (from.closed || from.crashed) {
      scheduler.schedule(now, () => done(CLOSED));
      return;
    }
    const call = new StreamCall(from, to, expectReply, done);
    this.counters.streamsOpened++;
    this.counters.streamBytes += bytes.length;
    from.requests.add(call);
    const timedOut: StreamResult = { ok: false, reason: `timed out after ${timeoutMs} ms` };
    call.timeout = scheduler.timer(() => this.#settle(call, timedOut));
    call.timeout.arm(now + timeoutMs);
    // Across a partition or blackout the connection hangs: only the timeout ends it.
    if (this.faults.cut(from.address, to)) return;
    scheduler.schedule(now + this.#delay(from.address, to), () => this.#openStream(call, bytes));
  }

  #openStream(call: StreamCall, bytes: Uint8Array): void {
    if (call.settled) return;
    const from = call.requester.address;
    if (this.faults.cut(from, call.to)) return;
    const peer = this.endpoints.get(call.to);
    if (peer === undefined || peer.closed || peer.crashed || peer.handlers === undefined) return this.#settle(call, REFUSED);
    // A stopped process never reads the request: the requester times out.
    if (peer.paused) return;
    if (!call.expectReply) {
      // A one-way write succeeds once the peer has the bytes (one more leg to learn it).
      peer.handlers.stream(from, bytes, ignoreReply);
      this.#sendBack(call, WRITTEN);
      return;
    }
    peer.serving.add(call);
    let answered = false;
    peer.handlers.stream(from, bytes, (reply) => {
      if (answered || !peer.serving.delete(call)) return;
      answered = true;
      if (reply !== undefined) this.counters.streamBytes += reply.length;
      this.#sendBack(call, reply === undefined ? NO_REPLY : { ok: true, bytes: reply });
    });
  }

  /** The reply leg: one latency back to the requester, unless the path is cut by then. */
  #sendBack(call: StreamCall, result: StreamResult): void {
    const scheduler = this.scheduler;
    scheduler.schedule(scheduler.now() + this.#delay(call.to, call.requester.address), () => {
      if (call.settled || this.faults.cut(call.requester.address, call.to)) return;
      this.#settle(call, result);
    });
  }

  #settle(call: StreamCall, result: StreamResult): void {
    if (call.settled) return;
    call.settled = true;
    call.timeout?.cancel();
    const requester = call.requester;
    requester.requests.delete(call);
    if (result.ok) this.counters.streamsOk++;
    else this.counters.streamsFailed++;
    if (requester.crashed) return; // a dead process hears nothing
    if (requester.paused) {
      requester.held.push({ kind: 'outcome', call, result });
      return;
    }
    call.done(result);
  }

  // --- endpoint lifecycle ---------------------------------------------------------------------

  /**
   * Close an endpoint: it stops receiving, its pending requests fail (reported asynchronously, so
   * no callback runs inside `close`) and their timeouts are cancelled, and peers waiting on its
   * replies see the connection reset. Only deliveries already in flight stay scheduled, each due
   * within one latency.
   */
  close(endpoint: Endpoint): void {
    if (endpoint.closed) return;
    endpoint.closed = true;
    endpoint.paused = false;
    this.#discardHeld(endpoint, 'unreachable');
    const scheduler = this.scheduler;
    for (const call of endpoint.requests) {
      call.settled = true;
      call.timeout?.cancel();
      this.counters.streamsFailed++;
      if (!endpoint.crashed) scheduler.schedule(scheduler.now(), () => call.done(CLOSED));
    }
    endpoint.requests.clear();
    this.#resetServed(endpoint);
  }

  /** Kill -9: permanent. Nothing reaches it again; its own requests end unheard. */
  crash(endpoint: Endpoint): void {
    if (endpoint.crashed) return;
    endpoint.crashed = true;
    endpoint.paused = false;
    this.#discardHeld(endpoint, 'crashed');
    for (const call of endpoint.requests) {
      call.settled = true;
      call.timeout?.cancel();
      this.counters.streamsFailed++;
    }
    endpoint.requests.clear();
    this.#resetServed(endpoint);
  }

  pause(endpoint: Endpoint): void {
    if (!endpoint.crashed && !endpoint.closed) endpoint.paused = true;
  }

  /** Deliver what was held, in order, as one event at the current time. */
  resume(endpoint: Endpoint): void {
    if (!endpoint.paused) return;
    endpoint.paused = false;
    if (endpoint.held.length === 0) return;
    const scheduler = this.scheduler;
    scheduler.schedule(scheduler.now(), () => this.#drain(endpoint));
  }

  #drain(endpoint: Endpoint): void {
    const held = endpoint.held;
    let i = 0;
    // Stop if a callback paused it again; the rest waits for the next resume.
    for (; i < held.length && !endpoint.paused && !endpoint.crashed && !endpoint.closed; i++) {
      const item = held[i]!;
      if (item.kind === 'packet') this.#handOver(endpoint, item.from, item.bytes);
      else item.call.done(item.result);
    }
    held.splice(0, i);
  }

  #discardHeld(endpoint: Endpoint, cause: DropCause): void {
    for (const item of endpoint.held) if (item.kind === 'packet') this.#drop(cause);
    endpoint.held.length = 0;
  }

  #resetServed(endpoint: Endpoint): void {
    for (const call of endpoint.serving) this.#sendBack(call, RESET);
    endpoint.serving.clear();
  }

  /** One leg from address `from` to address `to`. */
  #delay(from: string, to: string): number {
    const ms = this.#latency(this.#rng, from, to);
    return ms > 0 ? ms : 0; // negative or NaN draws count as no delay
  }
}

function ignoreReply(): void {}
