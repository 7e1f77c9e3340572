import type { UdpCounters } from './counters.js';

/** Bytes one reader may take and give back (see FrameReader). */
export interface ByteBudget {
  /** Take `bytes` before buffering them; false refuses them (and counts why). */
  reserve(bytes: number): boolean;
  /** Give back `bytes` taken with `reserve` (a frame handed out, a connection closed). */
  release(bytes: number): void;
}

export interface StreamLimits {
  readonly maxStreamBytesBuffered: number;
  readonly maxStreamBytesPerSource: number;
  readonly maxStreamConnectionsPerSource: number;
}

/**
 * What stream connections may hold at once: bytes buffered in total and per remote IP address,
 * and incoming connections per remote IP address (the total is the server's maxConnections).
 * Refusals are counted here. A source's entry exists only while it holds something, so the maps
 * are bounded by the open connections.
 */
export class StreamBudget {
  readonly #limits: StreamLimits;
  readonly #counters: UdpCounters;
  readonly #bytesBySource = new Map<string, number>();
  readonly #connectionsBySource = new Map<string, number>();
  #bytes = 0;

  constructor(limits: StreamLimits, counters: UdpCounters) {
    this.#limits = limits;
    this.#counters = counters;
  }

  /** Bytes held across all stream connections now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Admit one more incoming connection from `source`; false (counted) when it has its share. */
  admit(source: string): boolean {
    const open = this.#connectionsBySource.get(source) ?? 0;
    if (open >= this.#limits.maxStreamConnectionsPerSource) {
      this.#counters.streamsRejected++;
      this.#counters.streamsRejectedPerSource++;
      return false;
    }
    this.#connectionsBySource.set(source, open + 1);
    return true;
  }

  /** An admitted connection from `source` closed. */
  leave(source: string): void {
    const open = (this.#connectionsBySource.get(source) ?? 0) - 1;
    if (open > 0) this.#connectionsBySource.set(source, open);
    else this.#connectionsBySource.delete(source);
  }

  /**
   * The budget of one connection: against the total, and against its source's share when
   * `source` is given (incoming connections; the replies to our own requests count in the total
   * only, since a peer's push-pull to us and ours to it may overlap).
   */
  forConnection(source: string | undefined): ByteBudget {
    return {
      reserve: (bytes) => this.#reserve(source, bytes),
      release: (bytes) => this.#release(source, bytes),
    };
  }

  #reserve(source: string | undefined, bytes: number): boolean {
    const counters = this.#counters;
    if (this.#bytes + bytes > this.#limits.maxStreamBytesBuffered) {
      counters.streamsOverBudget++;
      return false;
    }
    if (source !== undefined) {
      const held = this.#bytesBySource.get(source) ?? 0;
      if (held + bytes > this.#limits.maxStreamBytesPerSource) {
        counters.streamsOverSourceBudget++;
        return false;
      }
      this.#bytesBySource.set(source, held + bytes);
    }
    this.#bytes += bytes;
    if (this.#bytes > counters.streamBytesBufferedHighWater) counters.streamBytesBufferedHighWater = this.#bytes;
    return true;
  }

  #release(source: string | undefined, bytes: number): void {
    this.#bytes -= bytes;
    if (source === undefined) return;
    const held = (this.#bytesBySource.get(source) ?? 0) - bytes;
    if (held > 0) this.#bytesBySource.set(source, held);
    else this.#bytesBySource.delete(source);
  }
}
