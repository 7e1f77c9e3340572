/**
 * A browser test page served from the workspace sources: used by the Chromium tests of
 * @swim/transport-ws and by the Chromium run of `pnpm bench gateway`. Imported as
 * `@swim/test-support/page-server`, apart from the rest, which needs vitest.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** A test page: its URL, and how to stop serving it. */
export interface ServedPage {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Bundle `entry` (a page script, from the workspace sources) with esbuild and serve it at `/` on
 * 127.0.0.1 (a free port): over https with `tls`, else over http. `title` names the page.
 */
export async function servePage(entry: URL, options: { readonly tls?: { readonly cert: string; readonly key: string }; readonly title?: string } = {}): Promise<ServedPage> {
  const { tls, title = 'swim' } = options;
  const bundle = await build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['@swim/source'],
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.contents;
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><script type="module" src="/app.js"></script></body></html>`;
  const handle = (req: { url?: string | undefined }, res: { writeHead(status: number, headers: Record<string, string>): unknown; end(body: string | Uint8Array): unknown }) => {
    const js = req.url === '/app.js';
    res.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html; charset=utf-8' });
    res.end(js ? script : html);
  };
  const server: Server = tls === undefined ? createHttpServer(handle) : createHttpsServer({ cert: tls.cert, key: tls.key }, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
