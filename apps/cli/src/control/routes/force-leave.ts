/**
 * `POST /force-leave {"name": "...", "prune": false}`: the agent marks a failed member left, as
 * `serf force-leave` asks a Serf agent to (serf RemoveFailedNode). The answer says whether anything
 * changed here; as Serf's RPC, a live or unknown member is no error.
 */
import { MAX_NAME_BYTES } from '@swim/core';

export const FORCE_LEAVE_ROUTE = 'POST /force-leave';

export interface ForceLeaveRequest {
  readonly name: string;
  readonly prune: boolean;
}

/** The member a POST body names, checked, or what is wrong with the body. */
export function forceLeaveFromBody(body: unknown): ForceLeaveRequest | { readonly error: string } {
  const usage = 'expected {"name": "NODE", "prune": false}';
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: usage };
  const { name, prune = false, ...rest } = body as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(rest)) problems.push(`unknown field '${key.slice(0, 40)}'`);
  if (typeof name !== 'string' || name.length === 0) problems.push('name must be a non-empty string');
  else if (Buffer.byteLength(name) > MAX_NAME_BYTES) problems.push(`name must be at most ${MAX_NAME_BYTES} bytes of UTF-8`);
  if (typeof prune !== 'boolean') problems.push('prune must be a boolean');
  if (problems.length > 0) return { error: `${problems.join('; ')} (${usage})` };
  return { name: name as string, prune: prune as boolean };
}
