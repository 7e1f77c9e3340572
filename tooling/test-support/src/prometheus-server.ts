/**
 * A real Prometheus server (Debian's `prometheus`) for the end-to-end tests: its own config and
 * storage in a temporary directory, its web port on 127.0.0.1 picked free ({@link pickFreePorts};
 * never the machine's default 9090), a short scrape interval, and queries through its HTTP API. It
 * is a {@link spawnDaemon} process, so it never outlives the test process; `stop()` ends it and
 * removes the directory (kept, with its log's tail in errors, when something failed).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pickFreePorts, spawnDaemon } from './daemons.js';

const PROMETHEUS = '/usr/bin/prometheus';
const MISSING = `Debian's prometheus is not installed at ${PROMETHEUS}`;

/** Why the tests that need it are skipped: only when it is missing and SWIM_SKIP_PROMETHEUS=1 says so. */
export const prometheusSkipReason: string | undefined =
  !existsSync(PROMETHEUS) && process.env['SWIM_SKIP_PROMETHEUS'] === '1' ? `${MISSING} and SWIM_SKIP_PROMETHEUS=1` : undefined;

export interface PrometheusOptions {
  /** `host:port` of every /metrics endpoint to scrape (job `swim`). */
  readonly targets: readonly string[];
  /** Default 1s. */
  readonly scrapeInterval?: string;
}

/** One series of an instant query. */
export interface Sample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PrometheusServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** An instant query through /api/v1/query (vector results). */
  query(promql: string): Promise<Sample[]>;
  /** The last lines of its log. */
  logTail(lines?: number): string;
  /** End it (SIGTERM, SIGKILL after 5 s) and remove its directory unless `keep`. */
  stop(options?: { readonly keep?: boolean }): Promise<void>;
}

async function poll<T>(what: string, limitMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const start = Date.now();
  for (;;) {
    const result = await check().catch(() => undefined);
    if (result !== undefined) return result;
    if (Date.now() - start > limitMs) throw new Error(`timed out after ${limitMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
  if (!existsSync(PROMETHEUS)) throw new Error(`${MISSING}. Install it (apt-get install prometheus; .ci/run does) or set SWIM_SKIP_PROMETHEUS=1 to skip.`);
  const dir = mkdtempSync(join(tmpdir(), 'swim-prometheus-'));
  const interval = options.scrapeInterval ?? '1s';
  const config = [
    'global:',
    `  scrape_interval: ${interval}`,
    `  scrape_timeout: ${interval}`,
    `  evaluation_interval: ${interval}`,
    'scrape_configs:',
    '  - job_name: swim',
    '    static_configs:',
    `      - targets: [${options.targets.map((t) => `'${t}'`).join(', ')}]`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'prometheus.yml'), config);
  const logFile = join(dir, 'prometheus.log');
  const logTail = (lines = 30) => (existsSync(logFile) ? readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '');

  // Another process may take the port between the probe and the bind: try again with another.
  for (let attempt = 1; ; attempt++) {
    const [port] = await pickFreePorts(1);
    const daemon = spawnDaemon(
      PROMETHEUS,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--storage.tsdb.retention.time=1h',
        '--log.level=info',
      ],
      { logPath: logFile, appendLog: true },
    );
    const url = `http://127.0.0.1:${port}`;
    const stopProcess = async () => {
      daemon.signal('SIGTERM');
      const timer = setTimeout(() => daemon.signal('SIGKILL'), 5_000);
      await daemon.exited;
      clearTimeout(timer);
      daemon.stopWatchdog();
    };
    const gone = () => daemon.child.exitCode !== null || daemon.child.signalCode !== null;
    const ready = await poll('prometheus is ready', 60_000, async () => (gone() ? false : (await fetch(`${url}/-/ready`)).ok ? true : undefined)).catch(
      (error: unknown) => error as Error,
    );
    if (ready !== true) {
      await stopProcess();
      if (attempt < 5 && /address already in use/.test(logTail())) continue;
      throw new Error(`prometheus did not start (${ready === false ? 'it exited' : ready.message}); its log (${logFile}):\n${logTail()}`);
    }
    let stopped: Promise<void> | undefined;
    return {
      url,
      logTail,
      async query(promql) {
        const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
        const body = (await response.json()) as { status: string; error?: string; data?: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
        if (body.status !== 'success' || body.data?.resultType !== 'vector') throw new Error(`query ${promql} failed: ${body.error ?? JSON.stringify(body)}`);
        return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
      },
      stop({ keep = false } = {}) {
        stopped ??= stopProcess().then(() => {
          if (!keep) rmSync(dir, { recursive: true, force: true });
        });
        return stopped;
      },
    };
  }
}
