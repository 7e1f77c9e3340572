/**
 * The gateways a client may use, and the order it tries them in.
 *
 * The first connection tries them in the order given, so the application decides where a page
 * goes first (its nearest gateway, or a list it shuffled itself to spread pages over gateways);
 * the order is then also deterministic for tests. After a lost connection the gateway that
 * welcomed the member comes first (a resume keeps its address, the cheapest outcome), then the
 * others from the one after it, wrapping around, so that the pages of a dead gateway that were
 * given rotated lists spread over the others instead of all moving to the first one listed.
 */
export class GatewayList {
  readonly urls: readonly string[];
  #current = 0;

  constructor(url: string | readonly string[]) {
    const urls = typeof url === 'string' ? [url] : [...url];
    if (urls.length === 0) throw new TypeError('url is required: a gateway URL or a non-empty list of them');
    for (const u of urls) if (typeof u !== 'string' || u.length === 0) throw new TypeError('every gateway url must be a non-empty string');
    this.urls = urls;
  }

  /** Index of the gateway that welcomed the member last. */
  get current(): number {
    return this.#current;
  }

  /** A welcome came from gateway `index`. */
  settle(index: number): void {
    this.#current = index;
  }

  /** Indexes in the order of a first connection. */
  firstConnect(): number[] {
    return this.urls.map((_, i) => i);
  }

  /** Indexes in the order of a reconnect round: the current gateway, then the others after it. */
  reconnectRound(): number[] {
    return this.urls.map((_, i) => (this.#current + i) % this.urls.length);
  }
}
