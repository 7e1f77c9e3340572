import type { WsGatewayCounters } from './gateway-counters.js';

/**
 * Keeps exceptions in the gateway's callbacks (timers, socket and relay events, user-supplied
 * option functions) from reaching the event loop, where they would exit the process and drop
 * every client: each is counted as `internalErrors` and handed to `onError`.
 */
export class Containment {
  constructor(
    private readonly counters: WsGatewayCounters,
    private readonly onError: (error: unknown, context: string) => void,
  ) {}

  /** Run `fn`; an exception is reported and `fallback` returned instead. */
  run<T>(context: string, fn: () => T, fallback: T): T {
    try {
      return fn();
    } catch (error) {
      this.report(error, context);
      return fallback;
    }
  }

  /** `fn` as a callback that never throws. */
  wrap<A extends unknown[]>(context: string, fn: (...args: A) => void): (...args: A) => void {
    return (...args: A) => this.run(context, () => fn(...args), undefined);
  }

  report(error: unknown, context: string): void {
    this.counters.internalErrors++;
    try {
      this.onError(error, context);
    } catch {
      // A throwing onError must not undo the containment.
    }
  }
}
