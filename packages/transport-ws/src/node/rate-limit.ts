/** The per-connection message rate limit of a gateway (a token bucket): what passes, what is dropped, when a connection is closed. */
export interface RateLimitOptions {
  /** Sustained messages per second per connection. Default 500. */
  readonly messagesPerSecond?: number;
  /** Messages a connection may send at once above the sustained rate. Default 1000. */
  readonly burst?: number;
  /**
   * Dropped messages, leaking at a tenth of messagesPerSecond, after which the connection is
   * closed with 4004: a client more than ~10 % over the rate for a while. Default 1000.
   */
  readonly closeAfterDrops?: number;
}

/** What is wrong with `options`, one line per problem (empty when nothing is). */
export function rateLimitProblems(options: RateLimitOptions): string[] {
  const fields = [
    ['messagesPerSecond', options.messagesPerSecond],
    ['burst', options.burst],
    ['closeAfterDrops', options.closeAfterDrops],
  ] as const;
  return fields
    .filter(([, value]) => value !== undefined && (!(value > 0) || !Number.isFinite(value)))
    .map(([name, value]) => `rateLimit.${name} must be a positive number, got ${value}`);
}

/** A token bucket per connection plus a leaky count of what it dropped. */
export class TokenBucket {
  readonly #rate: number;
  readonly #burst: number;
  readonly #closeAfter: number;
  #tokens: number;
  #drops = 0;
  #last: number;

  constructor(options: RateLimitOptions, now: number) {
    this.#rate = options.messagesPerSecond ?? 500;
    this.#burst = options.burst ?? 1000;
    this.#closeAfter = options.closeAfterDrops ?? 1000;
    const problems = rateLimitProblems(options);
    if (problems.length > 0) throw new RangeError(problems.join('; '));
    this.#tokens = this.#burst;
    this.#last = now;
  }

  /** 'ok' to accept a message, 'drop' to drop it, 'close' once the drops say the sender is abusive. */
  take(now: number): 'ok' | 'drop' | 'close' {
    const elapsed = Math.max(0, now - this.#last) / 1000;
    this.#last = now;
    this.#tokens = Math.min(this.#burst, this.#tokens + elapsed * this.#rate);
    this.#drops = Math.max(0, this.#drops - (elapsed * this.#rate) / 10);
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 'ok';
    }
    this.#drops += 1;
    return this.#drops > this.#closeAfter ? 'close' : 'drop';
  }
}
