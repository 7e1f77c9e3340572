/**
 * `pnpm run docs` (plain `pnpm docs` is a pnpm built-in): the API reference site in docs/api, built from what users install: every public
 * package packed (prepack builds it) and installed with plain npm into a scratch project, then
 * TypeDoc over the tarballs' declarations (the same step `pnpm release:check` runs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packAll } from './pack.js';
import { Report } from './report.js';
import { installScratch } from './scratch.js';
import { buildApiDocs } from './steps/api-docs.js';
import { publicPackages, ROOT } from './workspace.js';

const temp = mkdtempSync(join(tmpdir(), 'swim-docs-'));
const report = new Report();
try {
  const packed = packAll(publicPackages(), join(temp, 'tarballs'));
  installScratch(join(temp, 'consumer'), packed);
  buildApiDocs(report, join(temp, 'consumer'), packed, { out: join(ROOT, 'docs/api') });
} finally {
  rmSync(temp, { recursive: true, force: true });
}
process.exit(report.failed === 0 ? 0 : 1);
