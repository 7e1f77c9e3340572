import type { StreamOptions, StreamResult, Transport, TransportHandlers } from '@swim/runtime';
import type { Endpoint } from './endpoint.js';
import type { Router } from './router.js';

/**
 * One member's view of a {@link MemoryNetwork}: the runtime's {@link Transport} over in-memory
 * delivery. Obtain it with `network.transport(address)`. Streams are supported (push-pull, join,
 * fallback ping), as over TCP. {@link moveTo} changes its address while it runs, as a browser
 * member's does when it reconnects through another gateway.
 */
export class MemoryTransport implements Transport {
  readonly supportsStreams = true;
  readonly #router: Router;
  #endpoint: Endpoint;
  #closing: Promise<void> | undefined;
  readonly #addressListeners = new Set<(address: string) => void>();

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

  /** Transport.onAddressChange: `listener` hears every {@link moveTo}, until unsubscribed. */
  onAddressChange(listener: (address: string) => void): () => void {
    this.#addressListeners.add(listener);
    return () => {
      this.#addressListeners.delete(listener);
    };
  }

  /**
   * Move to `address`: a new endpoint there takes over the handlers, and the old one closes as
   * `close()` closes it (what is addressed to the old address is no longer delivered; requests
   * in flight fail, streams being served reset). Then every address-change listener is told.
   * Throws if the transport is closed, not listening yet, or `address` is in use.
   */
  moveTo(address: string): void {
    if (this.#closing !== undefined) throw new Error(`transport ${this.address} is closed`);
    const previous = this.#endpoint;
    if (previous.handlers === undefined) throw new Error(`transport ${this.address} is not listening: nothing to move`);
    if (address === previous.address) return;
    const next = this.#router.open(address);
    next.handlers = previous.handlers;
    this.#router.close(previous);
    this.#endpoint = next;
    for (const listener of [...this.#addressListeners]) listener(address);
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
