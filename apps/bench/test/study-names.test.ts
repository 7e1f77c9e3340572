// The studies the bench reproduces are named in words ("the corrections study", "the detector
// lab", both described in docs/corrections-study.md), never by a three-digit number next to the
// word seed: `--seed` is the seed of a run's random generator, and such a name read as one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const FORBIDDEN = [/seed stud(y|ies)/i, /stud(y|ies) \(?0\d\d/i, /\bseed \(?0\d\d\b/i, /\(0\d\d[,)]/, /\| seed( |'s rule )\|/];

function files(path: string): string[] {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .filter((d) => d.name !== 'node_modules' && d.name !== 'dist')
    .flatMap((d) => files(join(path, d.name)))
    .filter((f) => /\.(ts|md|json|svg)$/.test(f));
}

it('no numbered or "seed" study names in the bench, its results, the README or docs/', () => {
  const scanned = ['apps/bench/src', 'apps/bench/test', 'apps/bench/results', 'apps/bench/package.json', 'README.md', 'docs'].flatMap((p) => files(join(root, p)));
  const self = fileURLToPath(import.meta.url);
  const hits = scanned
    .filter((file) => file !== self)
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (FORBIDDEN.some((re) => re.test(line)) ? [`${relative(root, file)}:${i + 1}: ${line.trim().slice(0, 120)}`] : [])),
    );
  expect(scanned.length).toBeGreaterThan(50);
  expect(hits).toEqual([]);
});

it('docs/corrections-study.md describes both by those names', () => {
  const doc = readFileSync(join(root, 'docs/corrections-study.md'), 'utf8');
  expect(doc).toContain('"the corrections study"');
  expect(doc).toContain('"the detector lab"');
});
