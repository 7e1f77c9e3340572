/**
 * The agent's joins at start and its name conflicts. `--join` is one attempt: an unreachable seed is
 * logged and the agent keeps running (retry with `swim join`). `--retry-join` tries again every
 * `--retry-interval` until a seed answers, as Serf's retry-join, and gives up after `--retry-max`
 * attempts by stopping the agent with exit code 1 (Serf's agent exits too). A join refused for a
 * name conflict stops the agent at once, without a leave: names must be unique, and a leave under
 * a name another member holds would announce that member's departure.
 */
import { describeError, JoinError, NameConflictError, type JoinOptions, type JoinResult, type Member } from '@swim/runtime';
import { LogBudget } from './contained-errors.js';
import { formatDuration } from '../flags/duration.js';

export type AgentLog = (event: string, text: string, fields?: Record<string, unknown>) => void;

export interface StartupJoins {
  readonly join: readonly string[];
  readonly retryJoin: readonly string[];
  readonly retryIntervalMs: number;
  readonly retryMax: number;
}

export interface JoinHooks {
  join(seeds: readonly string[], options: JoinOptions): Promise<JoinResult>;
  readonly log: AgentLog;
  /** Log a join's outcome: each failed seed, then the contacted ones. */
  logJoin(result: JoinResult): void;
  /** Stop the agent with exit code 1, without leaving, logging `message`. */
  fail(message: string): void;
  /** Aborted when the agent stops: a retry in progress ends quietly. */
  readonly signal: AbortSignal;
}

export function startJoins(args: StartupJoins, hooks: JoinHooks): void {
  const { join, log, logJoin, fail, signal } = hooks;
  const onError = (error: unknown, retrying: boolean) => {
    if (signal.aborted) return;
    if (error instanceof NameConflictError) {
      logJoin(error.result);
      fail(error.message);
    } else if (error instanceof JoinError) {
      logJoin(error.result);
      if (retrying) fail(`${error.message}; giving up after ${plural(error.attempts, 'attempt')} (--retry-max ${args.retryMax})`);
    } else {
      log('error', `join failed: ${describeError(error)}`, { error: describeError(error) });
    }
  };
  if (args.join.length > 0) join(args.join, { signal }).then(logJoin, (error: unknown) => onError(error, false));
  if (args.retryJoin.length === 0) return;
  const every = formatDuration(args.retryIntervalMs);
  const limit = args.retryMax === 0 ? 'until a seed answers' : `at most ${plural(args.retryMax, 'attempt')}`;
  log('retry-join', `joining through ${args.retryJoin.join(', ')}, every ${every} ${limit}`, {
    seeds: args.retryJoin,
    intervalMs: args.retryIntervalMs,
    max: args.retryMax,
  });
  const retry = {
    intervalMs: args.retryIntervalMs,
    max: args.retryMax,
    onRetry: ({ attempt, error, retryInMs }: { attempt: number; error: JoinError; retryInMs: number }) => {
      const reasons = error.result.failed.map((f) => `${f.address} (${f.reason})`).join(', ');
      log('join-retry', `join attempt ${attempt} failed: ${reasons}; retrying in ${formatDuration(retryInMs)}`, { attempt, failed: error.result.failed, retryInMs });
    },
  };
  join(args.retryJoin, { signal, retry }).then(logJoin, (error: unknown) => onError(error, true));
}

/** Name-conflict log lines per second; a flood of forged claims is counted, not written out. */
const CONFLICT_LINES_PER_SECOND = 5;

/** Log every name conflict the member reports (memberlist's "Conflicting address"), at a bounded rate. */
export function logConflicts(member: Member, log: AgentLog): () => void {
  const budget = new LogBudget(CONFLICT_LINES_PER_SECOND);
  return member.on('conflict', ({ name, existingAddress, otherAddress }) => {
    const { allowed, suppressed } = budget.take();
    if (!allowed) return;
    const more = suppressed === 0 ? '' : ` (${suppressed} more not logged)`;
    const text =
      name === member.name
        ? `name conflict: a member at ${otherAddress} claims our name ${JSON.stringify(name)} (we are at ${existingAddress}); names must be unique${more}`
        : `name conflict: ${JSON.stringify(name)} is at ${existingAddress} and a member at ${otherAddress} claims the same name; the claim is ignored${more}`;
    log('conflict', text, { name, existingAddress, otherAddress, ...(suppressed === 0 ? {} : { suppressed }) });
  });
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
