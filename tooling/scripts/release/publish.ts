/**
 * `pnpm release:publish`, run by the release workflow (.github/workflows/release.yml) through the
 * changesets action once a version PR has landed: names the repository in every public package's
 * manifest (npm provenance checks that `repository.url` is the repository whose workflow built the
 * package, and registry pages resolve the READMEs' relative links against it), then
 * `changeset publish`, which publishes each public package whose version is not on the registry yet
 * (pnpm publish: prepack builds, `workspace:^` becomes `^x.y.z`) and tags it `@swim/name@x.y.z`.
 *
 * The repository comes from `--repository OWNER/NAME` or GitHub Actions' GITHUB_REPOSITORY; the
 * manifests are changed in the workflow's checkout only, never committed. `--dry-run` prints what
 * it would write and publishes nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { run } from './exec.js';
import { publicPackages, ROOT } from './workspace.js';

/** The manifest text with `repository` naming `repo` (OWNER/NAME on `server`) and the package's folder. */
export function withRepository(manifestText: string, repo: string, dir: string, server = 'https://github.com'): string {
  if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new Error(`repository "${repo}" is not OWNER/NAME`);
  const manifest = JSON.parse(manifestText) as Record<string, unknown>;
  manifest['repository'] = { type: 'git', url: `git+${server}/${repo}.git`, directory: dir };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { repository: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } } });
  const repo = values.repository ?? process.env['GITHUB_REPOSITORY'];
  if (repo === undefined) {
    console.error('release:publish: no repository (--repository OWNER/NAME, or GITHUB_REPOSITORY in GitHub Actions)');
    process.exit(2);
  }
  const server = process.env['GITHUB_SERVER_URL'] ?? 'https://github.com';
  for (const { dir } of publicPackages()) {
    const path = join(ROOT, dir, 'package.json');
    const named = withRepository(readFileSync(path, 'utf8'), repo, dir, server);
    if (values['dry-run']) console.log(`${dir}: "repository": ${JSON.stringify((JSON.parse(named) as { repository: unknown }).repository)}`);
    else writeFileSync(path, named);
  }
  if (values['dry-run']) process.exit(0);
  console.log(`release:publish: repository ${server}/${repo} named in ${publicPackages().length} manifests`);
  const changeset = run(join(ROOT, 'node_modules/.bin/changeset'), ['publish'], { cwd: ROOT, timeoutMs: 1_800_000 });
  console.log(changeset.output);
  process.exit(changeset.ok ? 0 : 1);
}
