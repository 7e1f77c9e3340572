import type { StreamOptions, StreamResult, Transport, TransportHandlers } from '@swim/runtime';
import type { Endpoint } from './endpoint.js';
import type { Router } from './router.js';

/**
 * One member's view of a {@link MemoryNetwork}: the runtime's {@link Transport} over in-memory
 * delivery. Obtain it with `network.transport(address)`. Streams are supported (push-pull, join,
 * fallback ping), as over TCP.
 */
export class MemoryTransport implements Transport {
  readonly supportsStreams = true;
  readonly #router: Router;
  readonly #endpoint: Endpoint;
  #closing: Promise<void> | undefined;

  /** @internal Use `MemoryNetwork.transport(address)`. */
  constructor(router: Router, endpoint: Endpoint) {
    this.#router = router;
    this.#endpoint = endpoint;
  }

  get address(): string {
    return this.#endpoint.address;
  }

  get maxPacketBytes(): number {
    return this.#router.maxPacketBytes;
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  listen(handlers: TransportHandlers): void {
    if (this.#endpoint.handlers !== undefined) throw new Error(`transport ${this.address} is already listening`);
    if (this.#closing !== undefined) throw new Error(`transport ${this.address} is closed`);
    this.#endpoint.handlers = handlers;
  }

  sendPacket(to: string, bytes: Uint8Array): void {
    this.#router.sendPacket(this.#endpoint, to, bytes);
  }

  request(to: string, bytes: Uint8Array, options: StreamOptions, done: (result: StreamResult) => void): void {
    this.#router.request(this.#endpoint, to, bytes, options, done);
  }

  close(): Promise<void> {
    if (this.#closing === undefined) {
      this.#router.close(this.#endpoint);
      this.#closing = Promise.resolve();
    }
    return this.#closing;
  }
}
