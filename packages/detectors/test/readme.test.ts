import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// examples/readme.ts is type-checked with the tests (test/tsconfig.json); this keeps the README's
// copy of it from drifting.
describe('README example', () => {
  it('is examples/readme.ts without its two header comment lines', () => {
    const example = readFileSync(new URL('../examples/readme.ts', import.meta.url), 'utf8').split('\n').slice(2).join('\n').trim();
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(readme).toContain('```ts\n' + example + '\n```');
  });
});
