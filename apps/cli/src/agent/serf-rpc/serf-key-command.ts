/**
 * Key commands in memberlist mode: Serf's key queries (`_serf_install-key` ...) through
 * serf.keyCommand (the API agreed in issue 30), collected as Serf's KeyManager does. Until the
 * SerfLayer has it, Serf's text for an operation it cannot do.
 */
import type { SerfLayer } from '@swim/adapter-memberlist';
import type { RpcKeyOp, RpcKeyResult } from '../../serf-rpc/backend.js';
import { UNSUPPORTED_OPERATION } from '../../serf-rpc/protocol.js';

/** What serf.keyCommand resolves with: Serf's KeyResponse. */
interface SerfKeyResponse {
  readonly messages?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
  readonly keys?: Readonly<Record<string, number>> | ReadonlyMap<string, number>;
  readonly numNodes: number;
  readonly numErr: number;
  readonly numResp: number;
  /** Serf's error text, when the command failed. */
  readonly error?: string;
}
interface KeyCommanding {
  keyCommand?(op: RpcKeyOp, key?: string): Promise<SerfKeyResponse>;
}

export async function serfKeyCommand(serf: SerfLayer, op: RpcKeyOp, key: string | undefined): Promise<RpcKeyResult> {
  const layer = serf as unknown as KeyCommanding;
  if (typeof layer.keyCommand !== 'function') return { messages: {}, numNodes: 0, numErr: 0, numResp: 0, error: UNSUPPORTED_OPERATION };
  // serf KeyManager: the key is decoded before any query is sent.
  const badKey = op === 'list' ? undefined : goBase64Error(key ?? '');
  if (badKey !== undefined) return { messages: {}, numNodes: 0, numErr: 0, numResp: 0, error: badKey };
  try {
    const response = await layer.keyCommand(op, key);
    const record = <T>(value: Readonly<Record<string, T>> | ReadonlyMap<string, T> | undefined) => (value instanceof Map ? Object.fromEntries(value) : { ...(value as Record<string, T> | undefined) });
    return {
      messages: record(response.messages),
      ...(op === 'list' ? { keys: record(response.keys) } : {}),
      numNodes: response.numNodes,
      numErr: response.numErr,
      numResp: response.numResp,
      error: response.error ?? serfKeyError(response),
    };
  } catch (error) {
    return { messages: {}, numNodes: 0, numErr: 0, numResp: 0, error: (error as Error).message };
  }
}

/** serf KeyManager: failures first, then missing answers (serf-protocol §4.5). */
export function serfKeyError(counts: { readonly numErr: number; readonly numResp: number; readonly numNodes: number }): string {
  if (counts.numErr !== 0) return `${counts.numErr}/${counts.numNodes} nodes reported failure`;
  if (counts.numResp !== counts.numNodes) return `${counts.numResp}/${counts.numNodes} nodes reported success`;
  return '';
}

/** Go's base64.StdEncoding error for text with a character outside the alphabet ("illegal base64 data at input byte N"), else undefined. */
export function goBase64Error(text: string): string | undefined {
  const bad = text.search(/[^A-Za-z0-9+/=]/);
  return bad < 0 ? undefined : `illegal base64 data at input byte ${bad}`;
}
