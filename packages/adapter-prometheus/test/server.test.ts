// serveMetrics: GET /metrics answers with the registry's exposition; other paths and methods are
// refused, a failing registry is a 500 (counted, the server goes on), options are checked.
import { request } from 'node:http';
import { Gauge, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { prometheusMetrics, serveMetrics, type MetricsServer } from '../src/index.js';
import { virtualCluster, type VirtualCluster } from '@swim/test-support';
import { parseExposition, valueOf } from './exposition.js';

let server: MetricsServer | undefined;
let running: VirtualCluster | undefined;
afterEach(async () => {
  await server?.close();
  await running?.close();
  server = undefined;
  running = undefined;
});

function send(method: string, url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serveMetrics', () => {
  it("serves a member's metrics at GET /metrics in Prometheus's text format", async () => {
    running = await virtualCluster(['a', 'b']);
    const { registry } = prometheusMetrics(running.members[0]!);
    server = await serveMetrics({ host: '127.0.0.1', port: 0, registry });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/metrics`);
    const res = await send('GET', server.url);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(valueOf(parseExposition(res.body).series, 'swim_members', { state: 'alive' })).toBe(2);
    const head = await send('HEAD', server.url);
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(server.counters.scrapes).toBe(2);
    // Query strings are ignored (Prometheus's params config adds them).
    expect((await send('GET', `${server.url}?x=1`)).status).toBe(200);
  });

  it('refuses other paths and methods', async () => {
    server = await serveMetrics({ host: '127.0.0.1', port: 0, registry: new Registry() });
    const base = `http://127.0.0.1:${server.port}`;
    expect((await send('GET', `${base}/`)).status).toBe(404);
    expect((await send('GET', `${base}/metrics/x`)).status).toBe(404);
    const post = await send('POST', `${base}/metrics`);
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
    expect(server.counters.refused).toBe(3);
  });

  it('answers 500 when collecting fails, counts it, and keeps serving', async () => {
    const registry = new Registry();
    let broken = true;
    new Gauge({
      name: 'flaky',
      help: 'fails while broken',
      registers: [registry],
      collect() {
        if (broken) throw new Error('collector down');
        this.set(1);
      },
    });
    server = await serveMetrics({ host: '127.0.0.1', port: 0, registry });
    const failed = await send('GET', server.url);
    expect(failed.status).toBe(500);
    expect(failed.body).toContain('collector down');
    broken = false;
    const ok = await send('GET', server.url);
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('flaky 1');
    expect(server.counters).toEqual({ scrapes: 1, failures: 1, refused: 0 });
  });

  it('listens on IPv6 loopback too, and closes idempotently', async () => {
    server = await serveMetrics({ host: '::1', port: 0, registry: new Registry(), path: '/m' });
    expect(server.url).toBe(`http://[::1]:${server.port}/m`);
    expect((await send('GET', server.url)).status).toBe(200);
    await Promise.all([server.close(), server.close()]);
    await expect(send('GET', server.url)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('reports a port in use as the listen error', async () => {
    server = await serveMetrics({ host: '127.0.0.1', port: 0, registry: new Registry() });
    await expect(serveMetrics({ host: '127.0.0.1', port: server.port, registry: new Registry() })).rejects.toThrow(/EADDRINUSE/);
  });

  it('refuses invalid options, listing every problem', async () => {
    const error = await serveMetrics({ host: 'localhost', port: 70_000, registry: {} as Registry, path: 'metrics', maxConnections: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RangeError);
    const message = (error as Error).message;
    for (const part of ['host "localhost"', 'port 70000', 'registry', 'path "metrics"', 'maxConnections 0']) expect(message).toContain(part);
  });
});
