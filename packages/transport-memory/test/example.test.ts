// The root README's first example (examples/member.ts, three members on a MemoryNetwork in real
// time) run as its own process: it must exit as soon as it has printed its result, once every
// member is closed. A stream's timeout left armed after the stream ended kept it alive ~10 s
// (the join push-pull's timeout), which a user sees as a hung program.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** Runs the example; resolves when the process has exited, with its output and the time from its last output to its exit. */
function runExample(): Promise<{ code: number | null; output: string; exitAfterLastOutputMs: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@swim/source', '--import', 'tsx', 'examples/member.ts'], {
      cwd: packageDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let lastOutputAt = performance.now();
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      lastOutputAt = performance.now();
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    child.on('error', reject);
    child.on('exit', (code) => {
      const exitAfterLastOutputMs = performance.now() - lastOutputAt;
      // 'close' comes once stdout and stderr are drained.
      child.on('close', () => resolve({ code, output, exitAfterLastOutputMs }));
    });
  });
}

it('examples/member.ts exits within a second of printing its result', { timeout: 60_000 }, async () => {
  const { code, output, exitAfterLastOutputMs } = await runExample();
  expect(code, output).toBe(0);
  expect(output).toContain('a sees c left');
  expect(output.trimEnd().split('\n').at(-1)).toMatch(/^a knows (a \(alive\), b \(alive\)|b \(alive\), a \(alive\))$/);
  // Before stream timeouts were cancelled: ~9,500 ms.
  expect(exitAfterLastOutputMs, output).toBeLessThan(1_000);
});
