/**
 * The demo's web server: the page (bundled from web/ at start with esbuild), the control API its
 * buttons call, and a server-sent event stream of cluster snapshots and the event log.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { GatewayTlsOptions } from '@swim/transport-ws/node';
import { build } from 'esbuild';
import type { DemoEvent, PageConfig } from './api.js';
import type { DemoCluster } from './cluster.js';
import type { DemoGateway } from './gateways.js';
import { HeadlineControl } from './headline-routes.js';
import { clusterState } from './state.js';

const WEB = fileURLToPath(new URL('../web/', import.meta.url));
const BACKLOG = 200;
const STATE_EVERY_MS = 500;
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="11" fill="none" stroke="#c9ced6" stroke-width="2"/><circle cx="16" cy="5" r="4" fill="#2e9e5b"/><circle cx="6.5" cy="21.5" r="4" fill="#2e9e5b"/><circle cx="25.5" cy="21.5" r="4" fill="#d63a3a"/></svg>';

export interface WebServerOptions {
  readonly host: string;
  readonly port: number;
  /** Serve https with this certificate and key (the gateway's). */
  readonly tls?: GatewayTlsOptions | undefined;
  readonly cluster: DemoCluster;
  readonly gateways: readonly DemoGateway[];
  readonly page: PageConfig;
  /** Kill a gateway as a crashed process, or start it again: false for no such gateway. */
  readonly killGateway: (name: string) => Promise<boolean>;
  readonly restartGateway: (name: string) => Promise<boolean>;
}

export interface WebServer {
  readonly url: string;
  close(): Promise<void>;
}

type Action = (name: string) => unknown;

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const { cluster } = options;
  const bundle = await build({
    entryPoints: [`${WEB}main.ts`],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['@swim/source'],
    // Nothing is written: the outputs (app.js, and app.css from the stylesheets the page imports) are served from memory.
    outdir: 'bundle',
    entryNames: 'app',
    write: false,
    logLevel: 'silent',
  });
  const assets = new Map<string, { type: string; body: string | Uint8Array }>([
    ['/', { type: 'text/html; charset=utf-8', body: await readFile(`${WEB}index.html`, 'utf8') }],
    ['/app.js', { type: 'text/javascript; charset=utf-8', body: output(bundle.outputFiles, '.js') }],
    ['/app.css', { type: 'text/css; charset=utf-8', body: output(bundle.outputFiles, '.css') }],
    // Browsers ask for it unprompted; a small SVG (three members on a ring) instead of a 404.
    ['/favicon.ico', { type: 'image/svg+xml', body: FAVICON }],
  ]);

  /** The last BACKLOG log entries, numbered: the number is the event's SSE id. */
  const log: Array<{ readonly id: number; readonly entry: DemoEvent }> = [];
  let lastId = 0;
  const streams = new Set<ServerResponse>();
  /** One server-sent event, encoded once for every stream it goes to. */
  const event = (type: string, data: unknown, id?: number): string => `${id === undefined ? '' : `id: ${id}\n`}event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  const broadcast = (text: string) => streams.forEach((res) => res.write(text));
  const unsubscribe = cluster.onEvent((entry) => {
    log.push({ id: ++lastId, entry });
    if (log.length > BACKLOG) log.shift();
    broadcast(event('log', entry, lastId));
  });
  const state = () => clusterState(cluster, options.gateways);
  const ticker = setInterval(() => {
    if (streams.size === 0) return;
    broadcast(event('state', state()));
  }, STATE_EVERY_MS);

  const memberActions: Record<string, Action> = {
    crash: (name) => cluster.crash(name),
    restart: (name) => cluster.restart(name),
    pause: (name) => cluster.pause(name),
    resume: (name) => cluster.resume(name),
    blackout: (name) => cluster.blackout(name, true),
    reconnect: (name) => cluster.blackout(name, false),
  };

  const gatewayActions: Record<string, (name: string) => Promise<boolean>> = {
    kill: options.killGateway,
    restart: options.restartGateway,
  };

  const headline = new HeadlineControl();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const headlineReply = path.startsWith('/api/headline') ? await headline.handle(req, path) : undefined;
    if (headlineReply !== undefined) return json(res, headlineReply.status, headlineReply.body);
    if (req.method === 'GET') {
      const asset = assets.get(path);
      if (asset !== undefined) return reply(res, 200, asset.body, asset.type);
      if (path === '/api/config') return json(res, 200, options.page);
      if (path === '/api/state') return json(res, 200, state());
      if (path === '/api/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        streams.add(res);
        req.on('close', () => streams.delete(res));
        // A page that went away mid-write: drop its stream, never the server.
        res.on('error', () => streams.delete(res));
        // A reconnecting EventSource says the last log entry it has: replay only what came after.
        const seen = Number(req.headers['last-event-id'] ?? 0);
        const after = Number.isSafeInteger(seen) && seen >= 0 && seen <= lastId ? seen : 0;
        for (const { id, entry } of log) if (id > after) res.write(event('log', entry, id));
        res.write(event('state', state()));
        return;
      }
      return json(res, 404, { error: `no page ${path}` });
    }
    if (req.method !== 'POST') return json(res, 405, { error: 'GET or POST' });
    const member = /^\/api\/members\/([^/]+)\/([a-z]+)$/.exec(path);
    if (member !== null) {
      const [, name, action] = member;
      const run = memberActions[action!];
      if (run === undefined) return json(res, 404, { error: `no action ${action}; try ${Object.keys(memberActions).join(', ')}` });
      if (!cluster.names().includes(decodeURIComponent(name!))) return json(res, 404, { error: `no demo member ${name}` });
      await run(decodeURIComponent(name!));
      return json(res, 200, { ok: true });
    }
    const gateway = /^\/api\/gateways\/([^/]+)\/([a-z]+)$/.exec(path);
    if (gateway !== null) {
      const [, name, action] = gateway;
      const run = gatewayActions[action!];
      if (run === undefined) return json(res, 404, { error: `no action ${action}; try ${Object.keys(gatewayActions).join(', ')}` });
      if (!(await run(decodeURIComponent(name!)))) return json(res, 404, { error: `no gateway ${name}` });
      return json(res, 200, { ok: true });
    }
    switch (path) {
      case '/api/add':
        return json(res, 200, { ok: true, name: await cluster.add() });
      case '/api/partition':
        cluster.partition();
        return json(res, 200, { ok: true });
      case '/api/heal':
        cluster.heal();
        return json(res, 200, { ok: true });
      default:
        return json(res, 404, { error: `no action ${path}` });
    }
  }

  const respond = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((error: unknown) => json(res, 500, { error: (error as Error).message }));
  };
  const { tls } = options;
  const server = tls === undefined ? createServer(respond) : createHttpsServer({ cert: pem(tls.cert), key: pem(tls.key) }, respond);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? 'http' : 'https'}://${options.host}:${port}/`,
    close: async () => {
      clearInterval(ticker);
      unsubscribe();
      await headline.close();
      for (const res of streams) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function output(files: ReadonlyArray<{ readonly path: string; readonly contents: Uint8Array }>, extension: string): Uint8Array {
  const file = files.find((f) => f.path.endsWith(extension));
  if (file === undefined) throw new Error(`the page's bundle has no ${extension} output`);
  return file.contents;
}

function pem(value: string | Uint8Array): string {
  return typeof value === 'string' ? value : new TextDecoder().decode(value);
}

function reply(res: ServerResponse, status: number, body: string | Uint8Array, type: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  reply(res, status, `${JSON.stringify(body)}\n`, 'application/json');
}
