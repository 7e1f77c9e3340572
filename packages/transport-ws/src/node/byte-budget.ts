import type { WsGatewayCounters } from './gateway-counters.js';

/**
 * The bytes the gateway holds for clients, per connection and in total: frames queued for a
 * client's socket and not yet written out, and the client's requests in flight. A client that
 * never reads fills its socket's send buffer, then this budget, then loses what does not fit
 * (datagrams, as UDP would; streams and results fail), instead of growing the gateway's memory.
 */
export class ByteBudget {
  #total = 0;

  constructor(
    readonly perConnection: number,
    readonly total: number,
    private readonly counters: WsGatewayCounters,
  ) {}

  /** Whether `bytes` more fit a connection that holds `held` now. */
  fits(held: number, bytes: number): boolean {
    return held + bytes <= this.perConnection && this.#total + bytes <= this.total;
  }

  take(bytes: number): void {
    this.#total += bytes;
    this.counters.bufferedBytes = this.#total;
  }

  give(bytes: number): void {
    this.#total -= bytes;
    this.counters.bufferedBytes = this.#total;
  }
}
