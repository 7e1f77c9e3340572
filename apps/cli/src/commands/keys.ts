/** `swim keys list|install|use|remove`: gossip encryption keys changed on every member of the cluster. */
import type { SerfKeyReport } from '@swim/adapter-memberlist';
import { formatKeyOpReport, type KeyOpReport } from '@swim/encryption';
import { formatSerfKeys } from '../output/serf-keys.js';
import type { HostPort } from '../flags/host-port.js';
import { keyArgument, KEY_ACTIONS, type KeyAction } from '../flags/key.js';
import { DEFAULT_RPC, rpcAddress, rpcToken, RPC_TOKEN_ENV, type Env } from '../flags/rpc.js';
import type { FlagSpecs, RawFlags } from '../flags/scan.js';
import { UsageError } from '../flags/usage-error.js';
import { call, refused } from '../control-client/request.js';

export interface KeysArgs {
  readonly command: 'keys';
  readonly rpc: HostPort;
  readonly rpcToken: string | undefined;
  readonly action: KeyAction;
  /** The key (base64) for install, use and remove. */
  readonly key: string | undefined;
  readonly json: boolean;
  /** How long each member has to answer. */
  readonly timeoutMs: number;
}

export const KEYS_FLAGS: FlagSpecs = { rpc: { type: 'string' }, 'rpc-token': { type: 'string' }, json: { type: 'boolean' }, timeout: { type: 'string' } };

export const KEYS_USAGE = `usage: swim keys list | install KEY | use KEY | remove KEY [--rpc HOST:PORT] [--rpc-token TOKEN] [--json]

  list          the keys installed on every member, with how many members hold each and use it as primary
  install KEY   add KEY to every member's keyring (it decrypts, it does not encrypt yet)
  use KEY       make KEY the primary key (the one that encrypts) on every member; it must be installed
  remove KEY    remove KEY from every member's keyring; a member's primary key cannot be removed
  --rpc HOST:PORT     the agent's control endpoint (default ${DEFAULT_RPC})
  --rpc-token TOKEN   the agent's control token (default: $${RPC_TOKEN_ENV})
  --timeout MS        how long each member has to answer (default 5000)
  --json              print JSON instead of lines
The agent asks every live member and reports how many answered; exit code 1 if any did not or refused.
With --wire memberlist the agent sends Serf's key queries (Serf's default timeout; --timeout is
not used) and prints as \`serf keys\` does: Serf agents and swim agents are rotated together.
Rotation: install NEW, use NEW, remove OLD.`;

export function keysArgs(raw: RawFlags, env: Env): KeysArgs {
  const command = 'keys';
  const [action, key, extra] = raw.positionals;
  if (action === undefined) throw new UsageError(`swim keys needs an action: ${KEY_ACTIONS.join(', ')}`, command);
  if (!(KEY_ACTIONS as readonly string[]).includes(action)) throw new UsageError(`unknown action '${action}' for swim keys (expected one of ${KEY_ACTIONS.join(', ')})`, command);
  const needsKey = action !== 'list';
  if (needsKey && key === undefined) throw new UsageError(`swim keys ${action} needs a KEY`, command);
  const unexpected = needsKey ? extra : key;
  if (unexpected !== undefined) throw new UsageError(`unexpected argument '${unexpected}' for swim keys ${action}`, command);
  const checked = needsKey ? keyArgument(key!) : undefined;
  if (typeof checked === 'object') throw new UsageError(`KEY: ${checked.problem}`, command);
  const timeoutText = raw.strings.get('timeout') ?? '5000';
  if (!/^\d+$/.test(timeoutText) || Number(timeoutText) < 1 || Number(timeoutText) > 600_000) {
    throw new UsageError(`--timeout '${timeoutText}': expected milliseconds (1-600000)`, command);
  }
  return {
    command,
    rpc: rpcAddress(command, raw),
    rpcToken: rpcToken(command, raw, env),
    action: action as KeyAction,
    key: checked,
    json: raw.booleans.has('json'),
    timeoutMs: Number(timeoutText),
  };
}

/**
 * `swim keys ACTION [KEY]`: the agent carries the operation to every live member and reports.
 * Exit code 1 when any member did not answer or refused (Serf's `keys` does the same).
 */
export async function keys(args: KeysArgs, out: (text: string) => void): Promise<number> {
  const res = await call(args, 'POST', '/keys', { op: args.action, ...(args.key === undefined ? {} : { key: args.key }), timeoutMs: args.timeoutMs });
  if (res.status !== 200) throw refused(res);
  // An agent on memberlist's wire sends Serf's key query and answers with Serf's KeyResponse.
  const body = res.body as KeyOpReport | { readonly wire: 'serf'; readonly report: SerfKeyReport };
  if ('wire' in body && body.wire === 'serf') {
    const printed = formatSerfKeys(body.report);
    out(args.json ? JSON.stringify(body.report, null, 2) : printed.text);
    return printed.exitCode;
  }
  const report = body as KeyOpReport;
  out(args.json ? JSON.stringify(report, null, 2) : formatKeyOpReport(report));
  return report.failures.length === 0 && report.succeeded === report.members ? 0 : 1;
}
