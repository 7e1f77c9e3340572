/**
 * The backoff between reconnect attempts after the connection to the gateway dropped: exponential,
 * with jitter so that the browsers of a restarted gateway do not all come back at once.
 */
export interface ReconnectOptions {
  /** Delay before the first reconnect attempt. Default 250 ms. */
  readonly initialDelayMs?: number;
  /** Longest delay between attempts (the delay doubles after each failed one). Default 10 000 ms. */
  readonly maxDelayMs?: number;
  /** Each delay is shortened by up to this fraction, at random. Default 0.5. */
  readonly jitter?: number;
  /** Uniform in [0, 1); defaults to `crypto.getRandomValues`. Inject for deterministic tests. */
  readonly random?: () => number;
}

const DEFAULT_RECONNECT = { initialDelayMs: 250, maxDelayMs: 10_000, jitter: 0.5 };

/**
 * When to try again after the connection dropped: exponential backoff with jitter, so that the
 * browsers of a gateway that restarts do not all come back at the same instant.
 */
export class ReconnectBackoff {
  readonly #initialDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #jitter: number;
  readonly #random: () => number;
  /** Attempts since the last welcome. */
  #attempt = 0;

  constructor(options: ReconnectOptions = {}) {
    this.#initialDelayMs = options.initialDelayMs ?? DEFAULT_RECONNECT.initialDelayMs;
    this.#maxDelayMs = options.maxDelayMs ?? DEFAULT_RECONNECT.maxDelayMs;
    this.#jitter = options.jitter ?? DEFAULT_RECONNECT.jitter;
    this.#random = options.random ?? cryptoRandom;
  }

  /** The delay before the next attempt, which it counts. */
  nextDelayMs(): number {
    // The exponent is capped so that 2 ** attempt stays finite however long the gateway is away.
    const base = Math.min(this.#maxDelayMs, this.#initialDelayMs * 2 ** Math.min(this.#attempt, 30));
    const delay = Math.max(0, base * (1 - this.#jitter * this.#random()));
    this.#attempt++;
    return delay;
  }

  /** Start over from the initial delay: called on a welcome. */
  reset(): void {
    this.#attempt = 0;
  }
}

function cryptoRandom(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]! / 2 ** 32;
}
