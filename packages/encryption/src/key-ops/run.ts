import type { StreamResult } from '@swim/runtime';
import type { SecureTransport } from '../secure-transport.js';
import { KEY_OPS_SERVICE } from '../services.js';
import { applyKeyOp } from './apply.js';
import { checkKeyOp, decodeKeyOpReply, encodeKeyOpRequest, type KeyOp, type KeyOpReply } from './codec.js';

/** A member to ask: its name (for the report) and the address its transport listens at. */
export interface KeyOpTarget {
  /** The member's name, as shown in the report; unique among the targets. */
  readonly name: string;
  /** Where its secure transport listens (the local member: `transport.address`); unique among the targets. */
  readonly address: string;
}

/** A target for which the op did not succeed, in a {@link KeyOpReport}. */
export interface KeyOpFailure {
  /** The target's name. */
  readonly name: string;
  /** The member's refusal, or the runner's reason, such as "no answer (...)" or "invalid reply: ...". */
  readonly error: string;
}

/** What a cluster-wide key op found (Serf's KeyResponse: NumNodes, NumResp, NumErr, Messages, Keys, PrimaryKeys). */
export interface KeyOpReport {
  /** The op that was run. */
  readonly op: KeyOp['op'];
  /** Targets asked (N). */
  readonly members: number;
  /** Valid replies received, the local member's included. */
  readonly answered: number;
  /** Replies with ok. */
  readonly succeeded: number;
  /** Refused, failed or no answer, in target order. */
  readonly failures: readonly KeyOpFailure[];
  /** Key -> answering members holding it after the op. */
  readonly keys: Readonly<Record<string, number>>;
  /** Key -> answering members using it as their primary after the op. */
  readonly primaries: Readonly<Record<string, number>>;
}

/** Options of {@link runKeyOp}. */
export interface RunKeyOpOptions {
  /** How long each member has to answer (default 5 s). */
  readonly timeoutMs?: number;
  /** Members asked at once (default 32). */
  readonly concurrency?: number;
  /** Stops asking; the promise rejects with the signal's reason. Members already asked may have applied the op. */
  readonly signal?: AbortSignal;
}

/** What {@link runKeyOp} needs of a {@link SecureTransport}. */
export type KeyOpTransport = Pick<SecureTransport, 'address' | 'keyring' | 'requestService'>;

/** Default of {@link RunKeyOpOptions.timeoutMs}: 5,000 ms for each member to answer. */
export const DEFAULT_KEY_OP_TIMEOUT_MS = 5_000;
/** Default of {@link RunKeyOpOptions.concurrency}: members asked at once. */
export const DEFAULT_KEY_OP_CONCURRENCY = 32;
/** Extra time a transport gets past `timeoutMs` before a request it never settled counts as unanswered. */
const SETTLE_GRACE_MS = 1_000;

/** Every problem with a call to {@link runKeyOp}; empty when it may run. */
export function validateRunKeyOp(targets: readonly KeyOpTarget[], op: KeyOp, options: RunKeyOpOptions = {}): string[] {
  const problems: string[] = [];
  const checked = checkKeyOp(op);
  if (!checked.ok) problems.push(`op: ${checked.error}`);
  if (!Array.isArray(targets)) {
    problems.push('targets must be an array');
  } else {
    const names = new Set<string>();
    const addresses = new Set<string>();
    targets.forEach((target: Partial<KeyOpTarget> | null | undefined, i) => {
      const name = target?.name;
      const address = target?.address;
      if (typeof name !== 'string' || name.length === 0) problems.push(`targets[${i}].name must be a non-empty string`);
      else if (names.has(name)) problems.push(`targets[${i}]: name ${JSON.stringify(name)} appears twice`);
      else names.add(name);
      if (typeof address !== 'string' || address.length === 0) problems.push(`targets[${i}].address must be a non-empty string`);
      else if (addresses.has(address)) problems.push(`targets[${i}]: address ${JSON.stringify(address)} appears twice`);
      else addresses.add(address);
    });
  }
  const { timeoutMs = DEFAULT_KEY_OP_TIMEOUT_MS, concurrency = DEFAULT_KEY_OP_CONCURRENCY } = options;
  if (!(typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0)) problems.push(`timeoutMs must be a positive number, got ${timeoutMs}`);
  if (!(Number.isInteger(concurrency) && concurrency >= 1)) problems.push(`concurrency must be a positive integer, got ${concurrency}`);
  return problems;
}

/**
 * Applies `op` on every target and reports how it went, as `serf keys` does through a query: the
 * local member (the target at `transport.address`) applies it to `transport.keyring` directly;
 * every other target is asked over an encrypted service stream (KEY_OPS_SERVICE), at most
 * `concurrency` at once. A target that does not answer in time, whose stream fails, or that closes
 * without a reply is listed as "no answer"; a malformed reply as "invalid reply". Resolves with
 * the report whatever the members answer; rejects (listing every problem) only on invalid input,
 * or with the signal's reason when aborted.
 *
 * Order matters for safety and is the operator's to keep: install everywhere, then use, then
 * remove (a `use` of a key a member lacks, or a `remove` of its primary, is refused there and
 * reported).
 */
export async function runKeyOp(transport: KeyOpTransport, targets: readonly KeyOpTarget[], op: KeyOp, options: RunKeyOpOptions = {}): Promise<KeyOpReport> {
  const problems = validateRunKeyOp(targets, op, options);
  if (problems.length > 0) {
    const n = problems.length;
    throw new RangeError(`Invalid key op (${n} problem${n === 1 ? '' : 's'}):\n${problems.map((p) => `- ${p}`).join('\n')}`);
  }
  const { timeoutMs = DEFAULT_KEY_OP_TIMEOUT_MS, concurrency = DEFAULT_KEY_OP_CONCURRENCY, signal } = options;
  signal?.throwIfAborted();
  const checked = checkKeyOp(op);
  if (!checked.ok) throw new RangeError(checked.error); // validated above
  const request = { op: checked.value, body: encodeKeyOpRequest(checked.value), timeoutMs };
  const outcomes: Outcome[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < targets.length && signal?.aborted !== true) {
      const i = next++;
      outcomes[i] = await ask(transport, targets[i]!, request, signal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, worker));
  signal?.throwIfAborted();
  return report(checked.value.op, targets, outcomes);
}

type Outcome = { readonly answered: true; readonly reply: KeyOpReply } | { readonly answered: boolean; readonly error: string };

interface Request {
  readonly op: KeyOp;
  readonly body: Uint8Array;
  readonly timeoutMs: number;
}

async function ask(transport: KeyOpTransport, target: KeyOpTarget, request: Request, signal: AbortSignal | undefined): Promise<Outcome> {
  if (target.address === transport.address) {
    const keyring = transport.keyring;
    if (keyring === undefined) return { answered: false, error: 'this member has no keyring' };
    return { answered: true, reply: applyKeyOp(keyring, request.op) };
  }
  const result = await settle(() => transport.requestService(target.address, KEY_OPS_SERVICE, request.body, request.timeoutMs), request.timeoutMs + SETTLE_GRACE_MS, signal);
  if (!result.ok) return { answered: false, error: `no answer (${result.reason})` };
  if (!(result.bytes instanceof Uint8Array)) return { answered: false, error: 'no answer (closed without a reply)' };
  const reply = decodeKeyOpReply(result.bytes);
  return reply.ok ? { answered: true, reply: reply.value } : { answered: true, error: `invalid reply: ${reply.error}` };
}

/** The request's result, or a failure when it throws, rejects, outlives `limitMs` or the signal aborts. */
function settle(start: () => Promise<StreamResult>, limitMs: number, signal: AbortSignal | undefined): Promise<StreamResult> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (result: StreamResult): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const onAbort = (): void => finish({ ok: false, reason: 'aborted' });
    const timer = setTimeout(() => finish({ ok: false, reason: `no reply within ${limitMs} ms` }), limitMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      start().then(
        (result) => finish(isStreamResult(result) ? result : { ok: false, reason: 'the transport returned no result' }),
        (error: unknown) => finish({ ok: false, reason: `request failed: ${message(error)}` }),
      );
    } catch (error) {
      finish({ ok: false, reason: `request failed: ${message(error)}` });
    }
  });
}

function isStreamResult(value: unknown): value is StreamResult {
  if (typeof value !== 'object' || value === null) return false;
  const result = value as { ok?: unknown; reason?: unknown };
  return result.ok === true || (result.ok === false && typeof result.reason === 'string');
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function report(op: KeyOp['op'], targets: readonly KeyOpTarget[], outcomes: readonly Outcome[]): KeyOpReport {
  let answered = 0;
  let succeeded = 0;
  const failures: KeyOpFailure[] = [];
  const keys = new Map<string, number>();
  const primaries = new Map<string, number>();
  targets.forEach((target, i) => {
    const outcome = outcomes[i] ?? { answered: false, error: 'not asked' };
    if (outcome.answered) answered++;
    if (!('reply' in outcome)) {
      failures.push({ name: target.name, error: outcome.error });
      return;
    }
    const reply = outcome.reply;
    if (reply.ok) succeeded++;
    else failures.push({ name: target.name, error: reply.error ?? 'refused' });
    // Counted whether or not the op applied there (Serf KeyManager streamKeyResp): the report shows every answering member's keyring as it now is.
    for (const key of reply.keys) keys.set(key, (keys.get(key) ?? 0) + 1);
    primaries.set(reply.primary, (primaries.get(reply.primary) ?? 0) + 1);
  });
  return { op, members: targets.length, answered, succeeded, failures, keys: Object.fromEntries(keys), primaries: Object.fromEntries(primaries) };
}
