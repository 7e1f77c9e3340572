/**
 * A real Prometheus server (Debian's `prometheus`) for the end-to-end tests: its own config and
 * storage in a temporary directory, its web port on 127.0.0.1 picked free (never the machine's
 * default 9090), a short scrape interval, and queries through its HTTP API. It runs in its own
 * process group with a watchdog and an exit hook, so it never outlives the test process; `stop()`
 * ends it and removes the directory (kept, with its log's tail in errors, when something failed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/** Process groups started here and not known dead; killed on exit whatever happens. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pgid of liveGroups) killGroup(pgid);
  });
}

/** A shell in its own group that kills group `pgid` once this process is gone (checked every second), and ends with it. */
function startWatchdog(pgid: number): number | undefined {
  const script = 'while kill -0 "$0" 2>/dev/null && kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -0 "$0" 2>/dev/null || kill -KILL "-$1" 2>/dev/null';
  const watchdog = spawn('/bin/sh', ['-c', script, String(process.pid), String(pgid)], { detached: true, stdio: 'ignore' });
  watchdog.on('error', () => {});
  watchdog.unref();
  if (watchdog.pid !== undefined) liveGroups.add(watchdog.pid);
  return watchdog.pid;
}

/** A TCP port on 127.0.0.1 free right now (the kernel's choice). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
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
  installExitHook();
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
    const port = await freePort();
    const fd = openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(
        PROMETHEUS,
        [
          `--config.file=${join(dir, 'prometheus.yml')}`,
          `--storage.tsdb.path=${join(dir, 'data')}`,
          `--web.listen-address=127.0.0.1:${port}`,
          '--storage.tsdb.retention.time=1h',
          '--log.level=info',
        ],
        // Its own process group (detached), so stop and the exit hook reach all of it.
        { detached: true, stdio: ['ignore', fd, fd] },
      );
    } finally {
      closeSync(fd);
    }
    const pid = child.pid!;
    liveGroups.add(pid);
    const watchdog = startWatchdog(pid);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = `http://127.0.0.1:${port}`;
    const stopProcess = async () => {
      killGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      liveGroups.delete(pid);
      if (watchdog !== undefined) {
        killGroup(watchdog);
        liveGroups.delete(watchdog);
      }
    };
    const gone = () => child.exitCode !== null || child.signalCode !== null;
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
