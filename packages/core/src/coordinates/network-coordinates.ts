import type { AckPayloadContent } from '../codec/ack-payload.js';
import type { Counters } from '../counters.js';
import type { Rng } from '../support/rng.js';
import { copyCoordinate, distanceNanoseconds, type Coordinate } from './coordinate.js';
import { VivaldiClient } from './vivaldi-client.js';
import type { VivaldiConfig } from './vivaldi-config.js';

const MS_PER_SECOND = 1000;
const NS_PER_MS = 1e6;

/**
 * A member's network coordinates (Serf's ping delegate, serf/ping_delegate.go, and coordCache):
 * our Vivaldi client, fed by the direct acks to our probes with their RTT, and the last coordinate
 * each peer sent us that the client accepted. The cache is bounded as the client's latency
 * samples are (`maxTrackedNodes`, the peer heard from least recently goes first), and a reaped
 * member is forgotten, as Serf's handleReap does.
 */
export class NetworkCoordinates {
  /** Our Vivaldi client (serf coordinate.Client): our coordinate, and its latency samples of peers. */
  readonly client: VivaldiClient;
  /** Map order is the order of each peer's latest accepted coordinate: the first is the stalest. */
  readonly #cache = new Map<string, Coordinate>();
  readonly #maxCached: number;

  constructor(
    rng: Rng,
    config: Partial<VivaldiConfig> | undefined,
    /** Our own name: {@link coordinateOf} answers it with our coordinate, as Serf caches its own. */
    readonly selfName: string,
    private readonly counters: Counters,
  ) {
    this.client = new VivaldiClient({ rng, ...(config === undefined ? {} : { config }) });
    this.#maxCached = this.client.config.maxTrackedNodes;
  }

  /** Our coordinate now; frozen. */
  coordinate(): Coordinate {
    return this.client.coordinate();
  }

  /**
   * A direct ack from `node` to our probe came `rttMs` after the ping (memberlist
   * NotifyPingComplete): update our coordinate from the one its payload carries, and cache the
   * peer's. A payload with no coordinate changes nothing; one the client refuses (NaN, infinite,
   * implausible, another dimensionality, an RTT beyond 10 s) changes nothing and is counted.
   */
  onDirectAck(node: string, rttMs: number, content: AckPayloadContent): void {
    const { counters } = this;
    if (content.unreadableCoordinate === true) {
      counters.coordinatesRejected++;
      return;
    }
    const other = content.coordinate;
    if (other === undefined || node === this.selfName) return;
    const resetsBefore = this.client.stats().resets;
    const result = this.client.update(node, other, rttMs / MS_PER_SECOND);
    if (result.kind === 'rejected') {
      counters.coordinatesRejected++;
      return;
    }
    counters.coordinateUpdates++;
    counters.coordinateResets += this.client.stats().resets - resetsBefore;
    this.#cache.delete(node); // set again last: the most recently heard from
    if (this.#cache.size >= this.#maxCached) {
      const stalest = this.#cache.keys().next();
      if (stalest.done !== true) this.#cache.delete(stalest.value);
    }
    this.#cache.set(node, copyCoordinate(other));
  }

  /** `node` was reaped: drop its cached coordinate and its latency samples (Serf handleReap). */
  forget(node: string): void {
    this.#cache.delete(node);
    this.client.forgetNode(node);
  }

  /** The last coordinate `node` sent us that was accepted; ours for our own name; undefined when none. */
  coordinateOf(node: string): Coordinate | undefined {
    return node === this.selfName ? this.client.coordinate() : this.#cache.get(node);
  }

  /** Peers with a cached coordinate. */
  get cachedPeers(): number {
    return this.#cache.size;
  }

  /**
   * The estimated round trip time between `a` and `b` (default: us), in ms, a multiple of 1 ns as
   * Serf's DistanceTo; undefined when either has no coordinate.
   */
  estimateRttMs(a: string, b: string = this.selfName): number | undefined {
    const from = this.coordinateOf(a);
    const to = this.coordinateOf(b);
    if (from === undefined || to === undefined) return undefined;
    const ns = distanceNanoseconds(from, to);
    return ns === undefined ? undefined : ns / NS_PER_MS;
  }
}
