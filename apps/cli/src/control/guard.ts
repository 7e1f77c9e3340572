/**
 * What a control request must pass before the agent acts on it. The endpoint is plain HTTP on
 * loopback, so a web page in any browser on the machine can send it requests: those carry an
 * `Origin` header (every cross-origin POST does), name a foreign host after DNS rebinding, or use
 * a form's `text/plain` body to avoid a CORS preflight. All three are refused, and an optional token
 * keeps other local processes out.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isLoopbackIp, isLoopbackName } from './loopback.js';

/** Largest request body read (a join of 64 seeds is ~2 KiB). */
export const MAX_BODY_BYTES = 64 * 1024;
/** Longest wait for a request body once its headers arrived. */
export const BODY_TIMEOUT_MS = 10_000;

/** An answer that ends a request before it reaches a route. */
export interface Refusal {
  readonly status: number;
  readonly error: string;
}

export interface ControlPolicy {
  /** The port the endpoint listens on: a Host header must carry it. */
  readonly port: number;
  /** Any Host is answered: the endpoint listens beyond loopback, and the token guards it. */
  readonly anyHost: boolean;
  /** SHA-256 of the token; undefined when none is required. */
  readonly tokenDigest: Buffer | undefined;
}

export function controlPolicy(options: { readonly bindHost: string; readonly port: number; readonly token: string | undefined }): ControlPolicy {
  const { bindHost, port, token } = options;
  if (token === undefined && !isLoopbackIp(bindHost)) throw new RangeError(`a control endpoint on ${bindHost} (not loopback) needs a token`);
  return { port, anyHost: token !== undefined && !isLoopbackIp(bindHost), tokenDigest: token === undefined ? undefined : digest(token) };
}

/** The refusal for a request's headers, or undefined when they pass. */
export function checkHeaders(headers: IncomingHttpHeaders, policy: ControlPolicy): Refusal | undefined {
  if (headers.origin !== undefined) return { status: 403, error: 'requests from web pages (with an Origin header) are refused' };
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'none') return { status: 403, error: `requests from web pages (Sec-Fetch-Site: ${site}) are refused` };
  if (!policy.anyHost) {
    const problem = hostProblem(headers.host, policy.port);
    if (problem !== undefined) return { status: 403, error: problem };
  }
  if (policy.tokenDigest !== undefined && !tokenMatches(headers.authorization, policy.tokenDigest)) {
    return {
      status: 401,
      error: headers.authorization === undefined ? 'this agent requires a token: --rpc-token or SWIM_RPC_TOKEN' : 'wrong token',
    };
  }
  return undefined;
}

/** Why a Host header does not name this loopback endpoint (DNS rebinding names another host), or undefined. */
export function hostProblem(host: string | undefined, port: number): string | undefined {
  if (host === undefined) return 'missing Host header';
  let name: string;
  let portText: string | undefined;
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    name = host.slice(1, close < 0 ? host.length : close);
    const rest = close < 0 ? '' : host.slice(close + 1);
    portText = rest.startsWith(':') ? rest.slice(1) : rest === '' ? undefined : 'invalid';
  } else {
    const colon = host.lastIndexOf(':');
    name = colon < 0 ? host : host.slice(0, colon);
    portText = colon < 0 ? undefined : host.slice(colon + 1);
  }
  const hostPort = portText === undefined ? 80 : /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!isLoopbackName(name) || hostPort !== port) return `Host '${host.slice(0, 100)}' is not this loopback endpoint (localhost, 127.x or ::1 with port ${port})`;
  return undefined;
}

/** A POST body must be JSON: a form (`text/plain`, urlencoded, multipart) is how a page avoids a CORS preflight. */
export function checkContentType(headers: IncomingHttpHeaders): Refusal | undefined {
  const type = headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') return undefined;
  return { status: 415, error: `a POST body must be Content-Type: application/json, got ${type === undefined ? 'none' : type.slice(0, 100)}` };
}

/** The body as text, read up to {@link MAX_BODY_BYTES} within {@link BODY_TIMEOUT_MS}; a refusal otherwise. */
export function readBody(req: IncomingMessage, limits = { maxBytes: MAX_BODY_BYTES, timeoutMs: BODY_TIMEOUT_MS }): Promise<{ text: string } | Refusal> {
  const tooLarge: Refusal = { status: 413, error: `request body larger than ${limits.maxBytes} bytes` };
  if (Number(req.headers['content-length']) > limits.maxBytes) return Promise.resolve(tooLarge);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: { text: string } | Refusal) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limits.maxBytes) return void chunks.push(chunk);
      req.pause();
      finish(tooLarge);
    };
    const onEnd = () => finish({ text: Buffer.concat(chunks).toString('utf8') });
    const onError = () => finish({ status: 400, error: 'request aborted' });
    const timer = setTimeout(() => {
      req.pause();
      finish({ status: 408, error: `request body not received within ${limits.timeoutMs} ms` });
    }, limits.timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** `Authorization: Bearer TOKEN`, compared as equal-length digests in constant time. */
function tokenMatches(authorization: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), expected);
}

/** A POST body: JSON by its content type, read within the limits, parsed (an empty body is undefined); a refusal otherwise. */
export async function readJsonBody(req: IncomingMessage): Promise<{ body: unknown } | Refusal> {
  const wrongType = checkContentType(req.headers);
  if (wrongType !== undefined) return wrongType;
  const read = await readBody(req);
  if ('status' in read) return read;
  try {
    return { body: read.text.trim() === '' ? undefined : JSON.parse(read.text) };
  } catch {
    return { status: 400, error: 'the body is not valid JSON' };
  }
}
