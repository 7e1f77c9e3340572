/**
 * A real Prometheus server (Debian's /usr/bin/prometheus, as the cli's metrics test runs through
 * @swim/test-support) scraping every agent's /metrics; the checker reads it through the HTTP API.
 * Its own config and storage in the run's directory; killed with the run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const PROMETHEUS_BIN = '/usr/bin/prometheus';

export interface Sample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Prometheus {
  readonly url: string;
  query(promql: string): Promise<Sample[]>;
  stop(): Promise<void>;
}

async function freeTcpPort(): Promise<number> {
  const server = createServer();
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve((server.address() as { port: number }).port));
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startPrometheus(dir: string, targets: readonly string[], scrapeInterval: string): Promise<Prometheus> {
  if (!existsSync(PROMETHEUS_BIN)) throw new Error(`${PROMETHEUS_BIN} is missing: install Debian's prometheus (node tooling/scripts/system-packages.mjs does)`);
  mkdirSync(dir, { recursive: true });
  const config = [
    'global:',
    `  scrape_interval: ${scrapeInterval}`,
    `  scrape_timeout: ${scrapeInterval}`,
    'scrape_configs:',
    '  - job_name: swim',
    '    static_configs:',
    `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'prometheus.yml'), config);
  for (let attempt = 1; ; attempt++) {
    const port = await freeTcpPort();
    const log = createWriteStream(join(dir, 'prometheus.log'), { flags: 'a' });
    const child: ChildProcess = spawn(
      PROMETHEUS_BIN,
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--storage.tsdb.retention.time=1d', '--log.level=warn'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    let ready = false;
    while (Date.now() < deadline && child.exitCode === null) {
      ready = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
      if (ready) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    if (!ready) {
      child.kill('SIGKILL');
      if (attempt < 5) continue;
      throw new Error(`prometheus did not start; see ${join(dir, 'prometheus.log')}`);
    }
    return {
      url,
      async query(promql) {
        const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`, { signal: AbortSignal.timeout(10_000) });
        const body = (await response.json()) as { status: string; error?: string; data?: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
        if (body.status !== 'success' || body.data?.resultType !== 'vector') throw new Error(`query ${promql} failed: ${body.error ?? JSON.stringify(body)}`);
        return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
      },
      async stop() {
        if (child.exitCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await new Promise((r) => child.once('exit', r));
        clearTimeout(timer);
      },
    };
  }
}
