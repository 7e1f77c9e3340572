import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { createServer, type Server } from 'node:https';

/** A certificate (chain) and its private key, PEM, for serving `wss://`. */
export interface GatewayTlsOptions {
  /** PEM certificate, the server's first, then any intermediates. */
  readonly cert: string | Uint8Array;
  /** PEM private key of the first certificate (unencrypted). */
  readonly key: string | Uint8Array;
}

/**
 * What is wrong with `tls`, one line per problem (empty when nothing is): both parts present and
 * PEM, the certificate parses, the key parses, and the key is the certificate's. Checked here so
 * that a wrong file fails at construction rather than at the first browser's handshake.
 */
export function tlsProblems(tls: unknown): string[] {
  if (tls === null || typeof tls !== 'object') return ['tls must be an object { cert, key }'];
  const { cert, key } = tls as Record<string, unknown>;
  const problems: string[] = [];
  let certificate: X509Certificate | undefined;
  let privateKey: KeyObject | undefined;
  if (!isPem(cert)) problems.push('tls.cert must be a PEM certificate (a string or Buffer)');
  else {
    try {
      certificate = new X509Certificate(cert);
    } catch (error) {
      problems.push(`tls.cert is not a readable certificate: ${(error as Error).message}`);
    }
  }
  if (!isPem(key)) problems.push('tls.key must be a PEM private key (a string or Buffer)');
  else {
    try {
      privateKey = createPrivateKey(toPem(key));
    } catch (error) {
      problems.push(`tls.key is not a readable private key: ${(error as Error).message}`);
    }
  }
  if (certificate !== undefined && privateKey !== undefined && !certificate.checkPrivateKey(privateKey)) {
    problems.push("tls.key is not the private key of tls.cert's certificate");
  }
  return problems;
}

/**
 * An HTTPS server for the WebSocket server to upgrade on. Plain requests get 426 Upgrade
 * Required, as `ws` answers them on the HTTP server it makes itself.
 */
export function createTlsServer(tls: GatewayTlsOptions): Server {
  return createServer({ cert: toPem(tls.cert), key: toPem(tls.key) }, (_request, response) => {
    const body = STATUS_CODES[426]!;
    response.writeHead(426, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
}

function isPem(value: unknown): value is string | Uint8Array {
  if (typeof value !== 'string' && !(value instanceof Uint8Array)) return false;
  return toPem(value).includes('-----BEGIN ');
}

function toPem(value: string | Uint8Array): string {
  return typeof value === 'string' ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
}
