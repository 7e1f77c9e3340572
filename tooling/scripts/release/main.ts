/**
 * `pnpm release:check`: what users install is what we test. Packs every public package (prepack
 * builds it), installs the tarballs with plain npm into a scratch project outside the workspace,
 * and there:
 *   1. imports every entry point under plain Node ESM, and reports what CommonJS consumers get;
 *   2. type-checks a consumer of each package, strict, with node16 and bundler resolution;
 *   3. runs the installed `swim` binary: --version, keygen, a cluster of three agents, kill -9, leave;
 *   4. bundles the browser entry points with esbuild and reports their sizes;
 *   5. builds the API reference from the installed packages' types (broken links, undocumented exports fail);
 *   6. fails a browser member over between two gateways (transport-ws), under plain Node.
 * Ends with `release:check: N passed, N failed` and exits non-zero on any failure.
 *
 * Flags: --keep (leave the scratch project and print its path), --write-sizes (rewrite the README
 * bundle sizes), --json FILE (write the checks and figures), --skip STEP (imports, types, binary,
 * bundles, docs, failover; repeatable).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packAll, packedManifestProblems, type Packed } from './pack.js';
import { Report } from './report.js';
import { installScratch } from './scratch.js';
import { buildApiDocs } from './steps/api-docs.js';
import { checkBinary } from './steps/binary.js';
import { checkBundles } from './steps/bundles.js';
import { checkFailover } from './steps/failover.js';
import { checkImports } from './steps/imports.js';
import { checkTypes } from './steps/types.js';
import { publicPackages } from './workspace.js';

const STEPS = ['imports', 'types', 'binary', 'bundles', 'docs', 'failover'] as const;
const { values } = parseArgs({
  options: {
    keep: { type: 'boolean', default: false },
    'write-sizes': { type: 'boolean', default: false },
    json: { type: 'string' },
    skip: { type: 'string', multiple: true, default: [] },
  },
});
const unknown = values.skip.filter((s) => !(STEPS as readonly string[]).includes(s));
if (unknown.length > 0) {
  console.error(`release:check: unknown --skip ${unknown.join(', ')} (steps: ${STEPS.join(', ')})`);
  process.exit(2);
}
const runs = (step: (typeof STEPS)[number]) => !values.skip.includes(step);

const report = new Report();
const started = Date.now();
const temp = mkdtempSync(join(tmpdir(), 'swim-release-check-'));
const scratch = join(temp, 'consumer');

try {
  report.step('pack every public package (prepack builds it) and read the packed manifests');
  const packages = publicPackages();
  let packed: Packed[] = [];
  try {
    packed = packAll(packages, join(temp, 'tarballs'));
    report.check(`pnpm pack: ${packed.length} packages`, packed.length > 0, packed.map((p) => `${p.name}@${p.version}`).join(', '));
  } catch (error) {
    report.check('pnpm pack', false, String(error instanceof Error ? error.message : error));
  }
  if (packed.length > 0) {
    const problems = packedManifestProblems(packed);
    report.check('packed manifests: real version ranges, siblings public, every export and bin inside', problems.length === 0, problems.length === 0 ? undefined : problems.join('\n'));

    report.step(`npm install the tarballs into a scratch project outside the workspace`);
    let installed = false;
    try {
      installScratch(scratch, packed);
      installed = report.check('npm install', true, scratch);
    } catch (error) {
      report.check('npm install', false, String(error instanceof Error ? error.message : error));
    }
    if (installed) {
      if (runs('imports')) checkImports(report, scratch, packed);
      if (runs('types')) checkTypes(report, scratch, packed);
      if (runs('binary')) await checkBinary(report, scratch, packed);
      if (runs('bundles')) await checkBundles(report, scratch, packed, { writeSizes: values['write-sizes'] });
      if (runs('docs')) buildApiDocs(report, scratch, packed, { out: join(temp, 'api') });
      if (runs('failover')) await checkFailover(report, scratch);
    }
  }
} catch (error) {
  report.check('release check ran to the end', false, String(error instanceof Error ? (error.stack ?? error.message) : error));
} finally {
  if (values.keep) console.log(`\nscratch project kept at ${scratch}`);
  else rmSync(temp, { recursive: true, force: true });
}

if (values.json !== undefined) {
  writeFileSync(values.json, `${JSON.stringify({ passed: report.passed, failed: report.failed, seconds: Math.round((Date.now() - started) / 1000), checks: report.checks, figures: report.figures }, null, 2)}\n`);
}
const failures = report.checks.filter((c) => !c.ok);
if (failures.length > 0) console.log(`\nfailed:\n${failures.map((c) => `  - [${c.step}] ${c.name}`).join('\n')}`);
console.log(`\nrelease:check: ${report.passed} passed, ${report.failed} failed (${Math.round((Date.now() - started) / 1000)} s)`);
process.exit(report.failed === 0 ? 0 : 1);
