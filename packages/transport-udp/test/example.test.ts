// The README's example (examples/three-members.ts): the README shows the file as it is (the file is
// type-checked with the tests, test/tsconfig.json), and it runs: three members over real UDP/TCP on
// 127.0.0.1 see each other, one leaves, and the process exits once every member is closed.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = 'examples/three-members.ts';

it('the README opens with examples/three-members.ts, without its two header lines, and the repository README shows it', () => {
  const example = readFileSync(new URL(`../${EXAMPLE}`, import.meta.url), 'utf8').split('\n').slice(2).join('\n').trim();
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const firstBlock = /^```ts[ \t]*\n([\s\S]*?)^```[ \t]*$/m.exec(readme)?.[1]?.trim();
  expect(firstBlock).toBe(example);
  expect(readme).toContain('"type": "module"');
  // The repository's README shows the same file, as it says.
  const rootReadme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  expect(rootReadme).toContain(example);
});

it('examples/three-members.ts runs: three members over UDP on 127.0.0.1, c leaves, the process exits', { timeout: 60_000 }, async () => {
  const { code, output, exitAfterLastOutputMs } = await new Promise<{ code: number | null; output: string; exitAfterLastOutputMs: number }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, ['--conditions=@swim/source', '--import', 'tsx', EXAMPLE], { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      let lastOutputAt = performance.now();
      const onOutput = (chunk: Buffer) => {
        output += chunk.toString();
        lastOutputAt = performance.now();
      };
      child.stdout.on('data', onOutput);
      child.stderr.on('data', onOutput);
      child.on('error', reject);
      child.on('exit', (exitCode) => {
        const exitAfterLastOutputMs = performance.now() - lastOutputAt;
        child.on('close', () => resolve({ code: exitCode, output, exitAfterLastOutputMs }));
      });
    },
  );
  expect(code, output).toBe(0);
  const lines = output.trimEnd().split('\n');
  // Every member at a 127.0.0.1 address, all alive.
  expect(lines[0]).toMatch(/^a knows /);
  for (const name of ['a', 'b', 'c']) expect(lines[0]).toMatch(new RegExp(`\\b${name} at 127\\.0\\.0\\.1:\\d+ \\(alive\\)`));
  expect(output).toContain('b: c left');
  expect(lines.at(-1)).toMatch(/^a knows (a \(alive\), b \(alive\)|b \(alive\), a \(alive\))$/);
  expect(exitAfterLastOutputMs, output).toBeLessThan(1_000);
});
