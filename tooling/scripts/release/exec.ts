import { spawn, spawnSync } from 'node:child_process';

export interface RunResult {
  readonly ok: boolean;
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout and stderr, as one text for a failure message. */
  readonly output: string;
  readonly ms: number;
}

export interface RunOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

/** Runs a command to completion (no shell), capturing its output. */
export function run(command: string, args: readonly string[], { cwd, env, timeoutMs = 600_000 }: RunOptions): RunResult {
  const started = Date.now();
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...env },
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  const stdout = result.stdout ?? '';
  const stderr = `${result.stderr ?? ''}${result.error ? `\n${String(result.error)}` : ''}`;
  return { ok: result.status === 0, status: result.status, stdout, stderr, output: `${stdout}${stderr}`.trim(), ms: Date.now() - started };
}

/** The same, without blocking the event loop (for steps that watch other processes meanwhile). */
export function runAsync(command: string, args: readonly string[], { cwd, env, timeoutMs = 60_000 }: RunOptions): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => (stderr += String(error)));
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ ok: status === 0, status, stdout, stderr, output: `${stdout}${stderr}`.trim(), ms: Date.now() - started });
    });
  });
}

/** pnpm: the one running us when started by a pnpm script (it may not be on PATH under `npx pnpm`), else from PATH. */
export function pnpmCommand(args: readonly string[]): [string, string[]] {
  const execpath = process.env['npm_execpath'];
  if (execpath && /pnpm/i.test(execpath)) return /\.[cm]?js$/.test(execpath) ? [process.execPath, [execpath, ...args]] : [execpath, [...args]];
  return ['pnpm', [...args]];
}
