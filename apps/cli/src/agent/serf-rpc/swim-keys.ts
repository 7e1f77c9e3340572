/**
 * Key commands on @swim's wire: the key operation of `swim keys` (runKeyOp, asked of every live
 * member, each answering for its own keyring) reported as Serf's KeyResponse: NumNodes members
 * asked, NumResp answers, NumErr refusals, Messages the refusals by member, Keys (list) base64 key
 * → members holding it. Without encryption every member fails as Serf's do ("Keyring is empty").
 */
import { checkKeyOp, runKeyOp, type SecureTransport } from '@swim/encryption';
import type { Member } from '@swim/runtime';
import type { RpcKeyOp, RpcKeyResult } from '../../serf-rpc/backend.js';
import { goBase64Error, serfKeyError } from './serf-key-command.js';

const KEY_OP_TIMEOUT_MS = 5_000;
const NOT_ENCRYPTED = 'Keyring is empty (encryption not enabled)';

export async function swimKeyCommand(member: Member, secure: SecureTransport | undefined, op: RpcKeyOp, key: string | undefined): Promise<RpcKeyResult> {
  const targets = member.members().map((m) => ({ name: m.name, address: m.address }));
  const keyOp = op === 'list' ? { op } : { op, key: key ?? '' };
  const checked = checkKeyOp(keyOp);
  // serf: a key that does not decode is refused before any query, all counts 0.
  if (!checked.ok) return { messages: {}, numNodes: 0, numErr: 0, numResp: 0, error: goBase64Error(key ?? '') ?? checked.error };
  if (secure?.keyring === undefined) {
    const messages = Object.fromEntries(targets.map((t) => [t.name, NOT_ENCRYPTED]));
    const counts = { numNodes: targets.length, numResp: targets.length, numErr: targets.length };
    return { messages, ...(op === 'list' ? { keys: {} } : {}), ...counts, error: serfKeyError(counts) };
  }
  const report = await runKeyOp(secure, targets, checked.value, { timeoutMs: KEY_OP_TIMEOUT_MS });
  const answeredFailures = report.failures.filter((f) => !/^(no answer|not asked)/.test(f.error));
  const counts = { numNodes: report.members, numResp: report.answered, numErr: report.answered - report.succeeded };
  return { messages: Object.fromEntries(answeredFailures.map((f) => [f.name, f.error])), ...(op === 'list' ? { keys: { ...report.keys } } : {}), ...counts, error: serfKeyError(counts) };
}
