/**
 * Key commands in memberlist mode: Serf's key queries (`_serf_install-key` ...) through
 * SerfLayer.keyCommand, collected as Serf's KeyManager does, reported in Serf's RPC shape.
 */
import type { SerfLayer } from '@swim/adapter-memberlist';
import type { RpcKeyOp, RpcKeyResult } from '../../serf-rpc/backend.js';

export async function serfKeyCommand(serf: SerfLayer, op: RpcKeyOp, key: string | undefined): Promise<RpcKeyResult> {
  // serf KeyManager: the key is decoded before any query is sent.
  const badKey = op === 'list' ? undefined : goBase64Error(key ?? '');
  if (badKey !== undefined) return { messages: {}, numNodes: 0, numErr: 0, numResp: 0, error: badKey };
  try {
    const report = await serf.keyCommand(op, key);
    return {
      messages: { ...report.messages },
      ...(op === 'list' ? { keys: { ...report.keys } } : {}),
      numNodes: report.numNodes,
      numErr: report.numErr,
      numResp: report.numResp,
      error: report.error ?? serfKeyError(report),
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
