// The root README's examples are example files of the packages, shown as they are: those files are
// type-checked with their package's tests and run by them (transport-memory/test/example.test.ts,
// transport-udp/test/example.test.ts), so what a newcomer copies from the README compiles and runs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const readme = readFileSync(`${root}README.md`, 'utf8');
const tsBlocks = [...readme.matchAll(/^```ts[ \t]*\n([\s\S]*?)^```[ \t]*$/gm)].map((m) => m[1]!.trim());

/** An example file without its leading header comment lines (how to run it), as the READMEs show it. */
function example(path: string, headerLines: number): string {
  return readFileSync(`${root}${path}`, 'utf8').split('\n').slice(headerLines).join('\n').trim();
}

it('the first example is packages/transport-memory/examples/member.ts', () => {
  expect(tsBlocks[0]).toBe(example('packages/transport-memory/examples/member.ts', 0));
});

it('"only the transport changes" comes with its own UDP example: packages/transport-udp/examples/three-members.ts', () => {
  expect(readme).toContain('Over real UDP and TCP only the transport changes');
  expect(tsBlocks[1]).toBe(example('packages/transport-udp/examples/three-members.ts', 2));
});

it('says that the examples need "type": "module"', () => {
  expect(readme).toMatch(/"type": "module"/);
});
