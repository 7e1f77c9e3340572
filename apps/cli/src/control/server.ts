/**
 * The control endpoint's HTTP server: every request passes the guard (guard.ts) before a
 * route sees it; POST bodies are JSON, bounded in size and in time. A streaming route (GET
 * /monitor) gets the response itself and bounds what it writes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkHeaders, controlPolicy, readJsonBody, type Refusal } from './guard.js';

export interface ControlRequest {
  readonly method: string;
  readonly path: string;
  /** The parsed JSON body of a POST (undefined when empty); undefined for a GET. */
  readonly body: unknown;
}

export interface ControlAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface ControlServerOptions {
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  readonly token: string | undefined;
  /** `METHOD /path` of every route; anything else is answered 404 before its body is read. */
  readonly routes: readonly string[];
  readonly handle: (request: ControlRequest) => Promise<ControlAnswer>;
  /**
   * Routes (among `routes`) that answer by streaming: given the query and the response (and the
   * request, whose body a streaming POST reads and checks itself), they write and end it.
   */
  readonly streams?: Readonly<Record<string, (query: URLSearchParams, res: ServerResponse, req: IncomingMessage) => void | Promise<void>>>;
}

export interface ControlServer {
  readonly server: Server;
  readonly port: number;
  readonly address: AddressInfo;
  close(): Promise<void>;
}

/** Connections served at once: a local process looping on connect cannot exhaust the agent's descriptors. */
const MAX_CONNECTIONS = 128;

export async function startControlServer(options: ControlServerOptions): Promise<ControlServer> {
  let policy = controlPolicy({ bindHost: options.host, port: options.port, token: options.token });
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 15_000, connectionsCheckingInterval: 1_000 }, (req, res) => {
    serve(req, res).catch((error: unknown) => reply(res, 500, { error: (error as Error).message }));
  });
  server.maxConnections = MAX_CONNECTIONS;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = checkHeaders(req.headers, policy);
    if (refused !== undefined) return refuse(req, res, refused);
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = mark < 0 ? url : url.slice(0, mark);
    const route = `${method} ${path}`;
    if (!options.routes.includes(route)) {
      return refuse(req, res, { status: 404, error: `no route ${route.slice(0, 200)}; try ${options.routes.join(', ')}` });
    }
    const stream = options.streams !== undefined && Object.hasOwn(options.streams, route) ? options.streams[route] : undefined;
    if (stream !== undefined) return stream(new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1)), res, req);
    let body: unknown;
    if (method === 'POST') {
      const read = await readJsonBody(req);
      if ('status' in read) return refuse(req, res, read);
      body = read.body;
    }
    const answer = await options.handle({ method, path, body });
    reply(res, answer.status, answer.body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  policy = controlPolicy({ bindHost: options.host, port: address.port, token: options.token });
  return {
    server,
    port: address.port,
    address,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

/** Answer a refusal and close the connection: the rest of the request (an unread body) is never read. */
function refuse(req: IncomingMessage, res: ServerResponse, refusal: Refusal): void {
  res.once('finish', () => req.socket.destroySoon());
  reply(res, refusal.status, { error: refusal.error }, { connection: 'close', ...(refusal.status === 401 ? { 'www-authenticate': 'Bearer' } : {}) });
}
