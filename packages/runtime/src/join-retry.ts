/**
 * Joining with retries and name resolution, as Serf's and Consul's retry-join: every attempt
 * resolves every seed again (a name's A and AAAA records may change between attempts, a container
 * may not be up yet) and tries every address found; attempts repeat every `intervalMs` until one
 * seed answers, `max` attempts were made, or the signal aborts.
 */
import { describeError } from './describe-error.js';
import { JoinError, NameConflictError, type JoinResult } from './join-error.js';

/** Options of `Member.join`: retries and cancellation. */
export interface JoinOptions {
  /** Rejects the join with the signal's reason, between attempts as during one. */
  readonly signal?: AbortSignal;
  /** Try again until a seed answers (Serf retry-join); without it, one attempt. */
  readonly retry?: RetryOptions;
}

/** How `Member.join` retries when no seed answered (Serf's and Consul's retry-join). */
export interface RetryOptions {
  /** Wait between the end of a failed attempt and the next one, 1 to 2^31 - 1 ms (Serf's default is 30 s). */
  readonly intervalMs: number;
  /** Attempts in all, the first included; 0 = no limit (until a seed answers or the signal aborts). */
  readonly max: number;
  /** Called after each failed attempt that will be retried: log it, count it. */
  readonly onRetry?: (failure: RetryNotice) => void;
}

/** What `RetryOptions.onRetry` is told about a failed attempt that will be retried. */
export interface RetryNotice {
  /** The attempt that failed, from 1. */
  readonly attempt: number;
  /** The attempt's failure, with every seed's reason in `error.result.failed`. */
  readonly error: JoinError;
  /** Milliseconds until the next attempt starts (`RetryOptions.intervalMs`). */
  readonly retryInMs: number;
}

/** Addresses tried for one seed name at one attempt; the rest of a longer answer is ignored. */
export const MAX_ADDRESSES_PER_SEED = 16;

/** The longest timer delay JavaScript runtimes honour (2^31 - 1 ms, about 24.8 days). */
const MAX_INTERVAL_MS = 2 ** 31 - 1;

/** Every problem with `options.retry`, in one RangeError. */
export function validateJoinOptions(options: JoinOptions): void {
  const retry = options.retry;
  if (retry === undefined) return;
  const problems: string[] = [];
  if (!Number.isInteger(retry.intervalMs) || retry.intervalMs < 1 || retry.intervalMs > MAX_INTERVAL_MS) {
    problems.push(`retry.intervalMs must be an integer in 1..${MAX_INTERVAL_MS}, got ${retry.intervalMs}`);
  }
  if (!Number.isSafeInteger(retry.max) || retry.max < 0) problems.push(`retry.max must be an integer >= 0 (0 = no limit), got ${retry.max}`);
  if (retry.onRetry !== undefined && typeof retry.onRetry !== 'function') problems.push('retry.onRetry must be a function');
  if (problems.length > 0) {
    const n = problems.length;
    throw new RangeError(`Invalid join options (${n} problem${n === 1 ? '' : 's'}):\n${problems.map((p) => `- ${p}`).join('\n')}`);
  }
}

/** What the member lends the join loop. */
export interface JoinSteps {
  readonly name: string;
  /** The member's own address: never dialled (a member does not join itself). */
  readonly address: string;
  /** The transport's resolver, when it has one. */
  readonly resolve: ((address: string) => Promise<readonly string[]>) | undefined;
  /** One attempt through these addresses: the core's join (a push-pull with each). */
  attempt(addresses: readonly string[]): Promise<JoinResult>;
  /** Resolves after `ms` on the member's clock; rejects if the member closes or `signal` aborts first, its timer cancelled. */
  sleep(ms: number, signal: AbortSignal | undefined): Promise<void>;
}

export async function joinWithRetry(seeds: readonly string[], options: JoinOptions, steps: JoinSteps): Promise<JoinResult> {
  const { signal, retry } = options;
  for (let attempt = 1; ; attempt++) {
    const result = await untilAborted(attemptOnce(seeds, steps), signal);
    if (result.failed.some((f) => f.nameHolder !== undefined)) throw new NameConflictError(steps.name, result, attempt);
    if (result.contacted.length > 0) return result;
    const error = new JoinError(result, attempt);
    if (retry === undefined || (retry.max > 0 && attempt >= retry.max)) throw error;
    retry.onRetry?.({ attempt, error, retryInMs: retry.intervalMs });
    await steps.sleep(retry.intervalMs, signal);
  }
}

/**
 * Resolve every seed, then join through every address found; what did not resolve is reported as
 * failed. Without a resolver the core's join starts at once, in the caller's turn: a simulator on
 * virtual time runs no promise continuations between its steps.
 */
function attemptOnce(seeds: readonly string[], steps: JoinSteps): Promise<JoinResult> {
  if (steps.resolve === undefined) return attemptThrough([...new Set(seeds)], [], steps);
  return resolvedAttempt(seeds, steps);
}

async function resolvedAttempt(seeds: readonly string[], steps: JoinSteps): Promise<JoinResult> {
  const { addresses, failed } = await resolveSeeds(seeds, steps.resolve);
  return attemptThrough(addresses, failed, steps);
}

/**
 * Join through every address but our own. A push-pull with ourselves would "succeed" (memberlist
 * Join counts it) and end a retry before any other seed is up: the seed list an operator gives
 * every member of a cluster includes each one. Seeds that all resolve to us alone leave nothing
 * to join (the cluster's first member): that succeeds at once, with our address as contacted.
 */
function attemptThrough(found: readonly string[], failed: JoinResult['failed'], steps: JoinSteps): Promise<JoinResult> {
  const addresses = found.filter((address) => address !== steps.address);
  if (addresses.length === 0) {
    const onlyUs = found.length > 0 && failed.length === 0;
    return Promise.resolve({ contacted: onlyUs ? [steps.address] : [], failed });
  }
  const attempt = steps.attempt(addresses);
  return failed.length === 0 ? attempt : attempt.then((result) => ({ contacted: result.contacted, failed: [...failed, ...result.failed] }));
}

/** Every address the seeds stand for, in order and without repeats; seeds that did not resolve, with why. */
export async function resolveSeeds(
  seeds: readonly string[],
  resolve: JoinSteps['resolve'],
): Promise<{ addresses: string[]; failed: Array<{ address: string; reason: string }> }> {
  if (resolve === undefined) return { addresses: [...new Set(seeds)], failed: [] };
  const failed: Array<{ address: string; reason: string }> = [];
  const lists = await Promise.all(
    seeds.map(async (seed) => {
      try {
        const found = await resolve(seed);
        if (found.length === 0) failed.push({ address: seed, reason: 'resolves to no address' });
        // A DNS answer is input like any other: a name standing for thousands of addresses must
        // not make one join dial them all.
        return found.slice(0, MAX_ADDRESSES_PER_SEED);
      } catch (error) {
        failed.push({ address: seed, reason: `cannot resolve: ${describeError(error)}` });
        return [];
      }
    }),
  );
  return { addresses: [...new Set(lists.flat())], failed };
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    // Settling after an abort is harmless, and a late rejection is handled here rather than unhandled.
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
