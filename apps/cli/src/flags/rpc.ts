/**
 * `--rpc HOST:PORT` and `--rpc-token TOKEN` (else the environment's `SWIM_RPC_TOKEN`): where the
 * agent's control endpoint listens and the token its requests carry; the agent and every command
 * that talks to it take them.
 */
import type { Command } from '../commands/names.js';
import { hostPortFlag, type HostPort } from './host-port.js';
import type { RawFlags } from './scan.js';
import { UsageError } from './usage-error.js';

export const DEFAULT_RPC = '127.0.0.1:7947';
/** The environment variable every command reads the control token from when `--rpc-token` is not given. */
export const RPC_TOKEN_ENV = 'SWIM_RPC_TOKEN';
/** A token shorter than this is refused: it would be guessed. */
export const RPC_TOKEN_MIN_LENGTH = 16;
const RPC_TOKEN_MAX_LENGTH = 1024;

/** The process environment, or the part of it `swim` reads ({@link RPC_TOKEN_ENV}). */
export type Env = Readonly<Record<string, string | undefined>>;

export function rpcAddress(command: Command, raw: RawFlags): HostPort {
  const value = raw.strings.get('rpc');
  if (value === undefined) return hostPortFlag(command, 'rpc', DEFAULT_RPC, { ipOnly: true, allowZero: false });
  // Clients dial it: port 0 means nothing there; the agent accepts 0.
  return hostPortFlag(command, 'rpc', value, { ipOnly: true, allowZero: command === 'agent' });
}

/** `--rpc-token`, else the environment's {@link RPC_TOKEN_ENV} (empty means unset), else undefined. */
export function rpcToken(command: Command, raw: RawFlags, env: Env): string | undefined {
  const flag = raw.strings.get('rpc-token');
  const fromEnv = env[RPC_TOKEN_ENV];
  const [source, token] = flag !== undefined ? ['--rpc-token', flag] : fromEnv !== undefined && fromEnv !== '' ? [RPC_TOKEN_ENV, fromEnv] : [undefined, undefined];
  if (source === undefined) return undefined;
  const problem = tokenProblem(token);
  if (problem !== undefined) throw new UsageError(`${source}: ${problem}`, command);
  return token;
}

/** Why `token` cannot be a control token (it travels in an HTTP header), or undefined. */
export function tokenProblem(token: string): string | undefined {
  if (!/^[\x21-\x7e]*$/.test(token)) return 'the token must be printable ASCII without spaces';
  if (token.length < RPC_TOKEN_MIN_LENGTH) return `the token is ${token.length} characters, fewer than ${RPC_TOKEN_MIN_LENGTH} (try: openssl rand -hex 16)`;
  if (token.length > RPC_TOKEN_MAX_LENGTH) return `the token is ${token.length} characters, more than ${RPC_TOKEN_MAX_LENGTH}`;
  return undefined;
}
