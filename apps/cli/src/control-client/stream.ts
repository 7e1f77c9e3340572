/**
 * What the streamed requests of the agent's control endpoint (`GET /monitor`, `POST /query`) share:
 * where the agent is (for messages), its refusal read from a non-200 answer, and the connection's failures.
 */
import type { IncomingMessage } from 'node:http';
import type { HostPort } from '../flags/host-port.js';
import { ClientError, refused } from './request.js';

/** HOST:PORT as typed, an IPv6 host in brackets. */
export function addressOf(rpc: HostPort): string {
  return `${rpc.host.includes(':') ? `[${rpc.host}]` : rpc.host}:${rpc.port}`;
}

/** The first 4 KiB of a non-200 answer are read; the refusal in them (prefixed with `prefix`) rejects. */
export function rejectRefusal(res: IncomingMessage, reject: (error: ClientError) => void, prefix = ''): void {
  let text = '';
  res.on('data', (chunk: string) => (text += chunk.slice(0, 4096 - text.length)));
  res.on('end', () => reject(refusalOf(res.statusCode ?? 0, text, prefix)));
}

function refusalOf(status: number, text: string, prefix: string): ClientError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new ClientError(`the control endpoint answered ${status}: ${text.slice(0, 200)}`);
  }
  return new ClientError(`${prefix}${refused({ status, body }).message}`);
}

/** A request's `error`: its own ClientError (a timeout), no agent listening, or a lost connection. */
export function connectionFailure(error: NodeJS.ErrnoException, where: string): ClientError {
  if (error instanceof ClientError) return error;
  if (error.code === 'ECONNREFUSED') return new ClientError(`no agent listening at ${where} (is \`swim agent\` running? is --rpc right?)`);
  return new ClientError(`lost the connection to the agent at ${where}: ${error.message}`);
}
