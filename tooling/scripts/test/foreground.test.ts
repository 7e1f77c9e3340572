// The root scripts run their program through tooling/scripts/foreground.mjs, so that Ctrl-C in a
// terminal stops the program and pnpm then exits quietly with the program's code. Without it,
// the terminal's SIGINT also reaches pnpm, which prints "[ELIFECYCLE] Command failed." and exits
// 130 even though the program stopped cleanly with 0.
//
// A terminal is needed to test that: `script` (util-linux) runs the command on a pseudo-terminal,
// and Ctrl-C is the byte 0x03 written to it, which the terminal's line discipline turns into
// SIGINT for the foreground process group, exactly as when a user presses it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const FOREGROUND = fileURLToPath(new URL('../foreground.mjs', import.meta.url));

/** pnpm: the one running us when started by a pnpm script (it may not be on PATH under `npx pnpm`), else from PATH. */
function pnpmCommand(args: readonly string[]): string[] {
  const execpath = process.env['npm_execpath'];
  if (execpath && /pnpm/i.test(execpath)) return /\.[cm]?js$/.test(execpath) ? [process.execPath, execpath, ...args] : [execpath, ...args];
  return ['pnpm', ...args];
}

const shellQuote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

const running = new Set<ChildProcess>();
afterEach(() => {
  // A test that failed half-way: closing the terminal hangs up whatever still runs on it.
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  running.clear();
});

interface Run {
  readonly code: number | null;
  readonly output: string;
}

/**
 * Runs `command` on a new pseudo-terminal; once the output matches `ready` and `settled` (given the
 * match) has resolved, presses Ctrl-C; resolves when the terminal's process has exited, with its
 * exit code (`script -e`: the command's, 128 + n for a signal) and everything the terminal showed.
 */
function ctrlCInTerminal(
  command: readonly string[],
  ready: RegExp,
  settled: (match: RegExpExecArray) => Promise<unknown> = async () => {},
  limitMs = 45_000,
): Promise<Run> {
  const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' });
  if (hasScript.status !== 0) throw new Error('these tests need util-linux `script` (Debian: bsdutils) for a pseudo-terminal');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['--quiet', '--flush', '--return', '--command', command.map(shellQuote).join(' '), '/dev/null'], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    running.add(child);
    let output = '';
    let pressed = false;
    let seen = false;
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      const match = seen ? null : ready.exec(output.replace(/\r\n/g, '\n'));
      if (match === null) return;
      seen = true;
      settled(match).then(() => {
        pressed = true;
        child.stdin.write('\x03');
      }, reject);
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    // A bound, not a pause: a run that never ends fails with what it printed.
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after ${limitMs} ms (Ctrl-C ${pressed ? 'pressed' : 'not pressed'}); output:\n${output}`));
    }, limitMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(limit);
      resolve({ code, output: output.replace(/\r\n/g, '\n') });
    });
  });
}

describe('Ctrl-C on a root script in a terminal', () => {
  it('pnpm swim agent: the agent leaves, pnpm exits 0 without an ELIFECYCLE line', { timeout: 60_000 }, async () => {
    const { code, output } = await ctrlCInTerminal(
      pnpmCommand(['swim', 'agent', '--name', 'ctrl-c', '--bind', '127.0.0.1:0', '--rpc', '127.0.0.1:0']),
      /ctrl-c listening on .*control endpoint (http:\/\/\S+)\n/,
      // The agent installs its signal handlers right after that line: once its control endpoint
      // has answered a request (a later turn of its event loop), they are there.
      (match) => fetch(`${match[1]}/members`),
    );
    expect(output).toMatch(/ctrl-c leaving \(SIGINT\)/);
    expect(output).toMatch(/ctrl-c left \(spread: \w+\), closing/);
    expect(output).not.toContain('ELIFECYCLE');
    expect(code, output).toBe(0);
  });

  it('pnpm demo: the demo stops, pnpm exits 0 without an ELIFECYCLE line', { timeout: 90_000 }, async () => {
    const { code, output } = await ctrlCInTerminal(
      pnpmCommand(['demo', '--port', '0', '--members', '3', '--quiet']),
      /open (http:\/\/\S+) : .*Ctrl-C stops the demo\n/,
      // Its signal handlers come right after that line: the page answering means they are there.
      (match) => fetch(match[1]!),
    );
    expect(output).toContain('stopping the demo...');
    expect(output).not.toContain('ELIFECYCLE');
    expect(code, output).toBe(0);
  });

  it('a program that does not handle SIGINT still dies of it, and that is reported', { timeout: 60_000 }, async () => {
    const program = "console.log('ready'); setInterval(() => {}, 1000);";
    const { code, output } = await ctrlCInTerminal([process.execPath, FOREGROUND, process.execPath, '-e', program], /ready\n/);
    expect(code, output).toBe(128 + 2);
  });
});

describe('foreground.mjs outside a terminal', () => {
  /** Runs the wrapper in its own process group; `signal`, once the program says it is ready, goes to the whole group. */
  function run(program: string, signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [FOREGROUND, process.execPath, '-e', program], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      running.add(child);
      let output = '';
      let sent = false;
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (signal === undefined || sent || !output.includes('ready')) return;
        sent = true;
        process.kill(-child.pid!, signal);
      });
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code, exitSignal) => resolve({ code, signal: exitSignal, output }));
    });
  }

  it("exits with the program's code", async () => {
    expect(await run('process.exit(3)')).toMatchObject({ code: 3, signal: null });
  });

  it('a signal to the process group reaches the program; the wrapper waits and exits as it did', async () => {
    const program = "process.on('SIGTERM', () => { console.log('stopping'); process.exitCode = 0; clearInterval(t); }); const t = setInterval(() => {}, 1000); console.log('ready');";
    const result = await run(program, 'SIGTERM');
    expect(result.output).toContain('stopping');
    expect(result).toMatchObject({ code: 0, signal: null });
  });

  it('a program killed by a signal: the wrapper dies of the same signal', async () => {
    const result = await run("setInterval(() => {}, 1000); console.log('ready');", 'SIGTERM');
    expect(result).toMatchObject({ code: null, signal: 'SIGTERM' });
  });
});
