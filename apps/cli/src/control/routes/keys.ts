/**
 * `GET /keys` and `POST /keys`: a key operation carried to every live member (as Serf's key
 * queries are), each member answering for its own keyring; the reply is the report.
 */
import type { SerfKeyOp, SerfKeyReport } from '@swim/adapter-memberlist';
import { checkKeyOp, runKeyOp, type KeyOp, type SecureTransport } from '@swim/encryption';
import type { Member } from '@swim/runtime';
import type { ControlAnswer } from '../server.js';
import { KEY_ACTIONS } from '../../flags/key.js';

export const KEYS_ROUTES = ['GET /keys', 'POST /keys'];
/** How long each member has to answer, unless the request says otherwise. */
export const DEFAULT_KEY_OP_TIMEOUT_MS = 5_000;
const MAX_KEY_OP_TIMEOUT_MS = 600_000;

export type KeyOpRequest = { readonly op: KeyOp; readonly timeoutMs: number };

/** `{op, key?, timeoutMs?}` from a POST body, checked; or what is wrong with it. */
export function keyOpFromBody(body: unknown): KeyOpRequest | { readonly error: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: 'expected a JSON object {"op": "list|install|use|remove", "key": "BASE64"}' };
  const { op, key, timeoutMs = DEFAULT_KEY_OP_TIMEOUT_MS } = body as Record<string, unknown>;
  if (typeof op !== 'string' || !(KEY_ACTIONS as readonly string[]).includes(op)) return { error: `op must be one of ${KEY_ACTIONS.join(', ')}` };
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_KEY_OP_TIMEOUT_MS) {
    return { error: `timeoutMs must be an integer from 1 to ${MAX_KEY_OP_TIMEOUT_MS}` };
  }
  // The same check every member applies to the request: a bad key is refused here, nobody asked.
  const checked = checkKeyOp(op === 'list' ? { op } : { op, key });
  return checked.ok ? { op: checked.value, timeoutMs } : { error: checked.error };
}

export async function keysRoute(secure: SecureTransport | undefined, member: Member, request: KeyOpRequest): Promise<ControlAnswer> {
  if (secure?.keyring === undefined) return { status: 409, body: { error: 'encryption is not enabled on this agent (start it with --encrypt or --keyring-file)' } };
  const targets = member.members().map((m) => ({ name: m.name, address: m.address }));
  const report = await runKeyOp(secure, targets, request.op, { timeoutMs: request.timeoutMs });
  return { status: 200, body: report };
}

/**
 * With --wire memberlist: the operation as Serf's key query (serf keymanager.go), which Serf
 * agents and swim agents answer alike, with Serf's default timeout; the reply is Serf's
 * KeyResponse ({wire: 'serf', report}), which `swim keys` prints as `serf keys` does.
 */
export async function serfKeysRoute(keyCommand: (op: SerfKeyOp, key: string | undefined) => Promise<SerfKeyReport>, op: KeyOp): Promise<ControlAnswer> {
  try {
    const report = await keyCommand(op.op, op.op === 'list' ? undefined : op.key);
    return { status: 200, body: { wire: 'serf', report } };
  } catch (error) {
    if (error instanceof RangeError) return { status: 400, body: { error: error.message } };
    throw error;
  }
}
