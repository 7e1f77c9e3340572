/**
 * A small HTTP server for Prometheus to scrape: GET /metrics answers with a registry's text
 * exposition, anything else with 404 or 405. Read-only, bounded (connections, header and request
 * time), and what goes wrong in a request is answered with 500 and counted, never thrown.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { Registry, RegistryContentType } from 'prom-client';

/** Options of {@link serveMetrics}; checked by {@link validateMetricsServerOptions}. */
export interface MetricsServerOptions {
  /** Bind address: an IP literal (`127.0.0.1`, `::`, `0.0.0.0`). */
  readonly host: string;
  /** 0 picks a free port (see `port` on the result). */
  readonly port: number;
  /** The prom-client registry to expose, read on every scrape (e.g. {@link PrometheusMetrics.registry}). */
  readonly registry: Registry<RegistryContentType>;
  /** Default `/metrics`. */
  readonly path?: string;
  /** Connections open at once; more are refused. Default 64. */
  readonly maxConnections?: number;
}

/** A running metrics server, as returned by {@link serveMetrics}. */
export interface MetricsServer {
  /** The address it listens on, as Node reports it (`127.0.0.1`, `::`). */
  readonly host: string;
  /** The port it listens on; the one picked when the options asked for 0. */
  readonly port: number;
  /** `http://host:port/metrics`, IPv6 hosts in brackets. */
  readonly url: string;
  /** Live counts of requests served since it started (the same object; read it, do not change it). */
  readonly counters: Readonly<MetricsServerCounters>;
  /** Stop listening and close every connection; idempotent. */
  close(): Promise<void>;
}

/** What a {@link MetricsServer} answered, counted since it started. */
export interface MetricsServerCounters {
  /** Expositions written. */
  scrapes: number;
  /** Reading the registry failed (answered with 500). */
  failures: number;
  /** Other paths (404) or methods (405). */
  refused: number;
}

/** Every problem with the options, empty when they are valid. */
export function validateMetricsServerOptions(options: MetricsServerOptions): string[] {
  const problems: string[] = [];
  if (typeof options.host !== 'string' || isIP(options.host) === 0) problems.push(`host ${JSON.stringify(options.host)} must be an IP address (127.0.0.1, ::1, 0.0.0.0)`);
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) problems.push(`port ${String(options.port)} must be an integer from 0 to 65535`);
  if (typeof options.registry?.metrics !== 'function') problems.push('registry must be a prom-client Registry');
  const path = options.path ?? '/metrics';
  if (typeof path !== 'string' || !path.startsWith('/')) problems.push(`path ${JSON.stringify(path)} must start with /`);
  const max = options.maxConnections ?? 64;
  if (!Number.isInteger(max) || max < 1) problems.push(`maxConnections ${String(max)} must be a positive integer`);
  return problems;
}

/** Listen on `host:port` and serve `registry` at `path`. Invalid options throw a `RangeError` listing every problem. */
export async function serveMetrics(options: MetricsServerOptions): Promise<MetricsServer> {
  const problems = validateMetricsServerOptions(options);
  if (problems.length > 0) throw new RangeError(`invalid metrics server options: ${problems.join('; ')}`);
  const { registry } = options;
  const path = options.path ?? '/metrics';
  const counters: MetricsServerCounters = { scrapes: 0, failures: 0, refused: 0 };

  const server: Server = createServer({ requestTimeout: 10_000, headersTimeout: 5_000, keepAliveTimeout: 5_000 }, (request, response) => {
    handle(request, response).catch(() => {
      // The response could not be written (the client went away): nothing left to answer.
      response.destroy();
    });
  });
  server.maxConnections = options.maxConnections ?? 64;
  // A malformed request is answered by Node (400) and the socket closed; never an uncaught error.
  server.on('clientError', (_error, socket) => socket.destroy());

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = request.url ?? '/';
    const requestPath = url.split('?', 1)[0];
    if (requestPath !== path) {
      counters.refused++;
      return send(response, 404, 'text/plain; charset=utf-8', `not found: metrics are at ${path}\n`);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      counters.refused++;
      response.setHeader('allow', 'GET, HEAD');
      return send(response, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
    }
    let body: string;
    try {
      body = await registry.metrics();
    } catch (error) {
      counters.failures++;
      return send(response, 500, 'text/plain; charset=utf-8', `could not collect metrics: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    counters.scrapes++;
    send(response, 200, registry.contentType, request.method === 'HEAD' ? undefined : body, Buffer.byteLength(body));
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', onError);
      // Errors after listening (none expected) are not thrown into the event loop.
      server.on('error', () => {});
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    host: address.address,
    port: address.port,
    url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}${path}`,
    counters,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function send(response: ServerResponse, status: number, contentType: string, body: string | undefined, length?: number): void {
  response.statusCode = status;
  response.setHeader('content-type', contentType);
  response.setHeader('content-length', length ?? Buffer.byteLength(body ?? ''));
  response.end(body);
}
