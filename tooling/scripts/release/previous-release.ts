/**
 * `pnpm previous-release`: the previous release's `swim`, built once from its git commit and cached
 * outside the repository, for the mixed-version tests (apps/cli/test/mixed-version.test.ts) that
 * run it beside agents of the working tree.
 *
 * The cache folder is `${XDG_CACHE_HOME:-~/.cache}/swim/previous-release/VERSION-SHA`; a build
 * writes `complete.json` there last, and a folder with it is reused as it is. Builders take a lock
 * (`VERSION-SHA.lock`), so concurrent callers wait for one build instead of racing it.
 *
 * Prints one JSON line on stdout: { version, commit, swim, packages, stepsMs, builtAt, cached, ms }.
 * Progress goes to stderr. `--rebuild` discards a complete build and builds again (to time it).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { withLock } from './build-lock.js';
import { buildPreviousRelease, type BuildInput, type PreviousBuild } from './previous-build.js';
import { readPreviousRelease, resolveCommit } from './previous-commit.js';
import { ROOT } from './workspace.js';

/** Where builds are cached: `$XDG_CACHE_HOME/swim/previous-release`, else `~/.cache/swim/previous-release`. */
export function defaultCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_CACHE_HOME'];
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.cache'), 'swim', 'previous-release');
}

/** A build ready to use, and whether it came from the cache. */
export interface PreviousReleaseResult extends PreviousBuild {
  readonly cached: boolean;
  /** Time spent in this call (waiting for another builder included). */
  readonly ms: number;
}

export interface EnsureOptions {
  readonly root?: string;
  readonly cacheRoot?: string;
  readonly rebuild?: boolean;
  readonly log?: (line: string) => void;
  /** The builder (tests give a fake one). */
  readonly build?: (input: BuildInput) => PreviousBuild | Promise<PreviousBuild>;
}

const MARKER = 'complete.json';

/** The completion marker of `dir` if it describes this release and its swim is there. */
function completed(dir: string, version: string, commit: string): PreviousBuild | undefined {
  try {
    const marker = JSON.parse(readFileSync(join(dir, MARKER), 'utf8')) as PreviousBuild;
    return marker.version === version && marker.commit === commit && existsSync(marker.swim) ? marker : undefined;
  } catch {
    return undefined;
  }
}

/** The previous release's build: from the cache when complete, else built (under the lock) and cached. */
export async function ensurePreviousRelease({ root = ROOT, cacheRoot = defaultCacheRoot(), rebuild = false, log = () => {}, build = buildPreviousRelease }: EnsureOptions = {}): Promise<PreviousReleaseResult> {
  const started = Date.now();
  const release = readPreviousRelease(root);
  const dir = join(cacheRoot, `${release.version}-${release.commit}`);
  const done = (result: PreviousBuild, cached: boolean): PreviousReleaseResult => ({ ...result, cached, ms: Date.now() - started });
  const hit = rebuild ? undefined : completed(dir, release.version, release.commit);
  if (hit !== undefined) return done(hit, true);

  mkdirSync(cacheRoot, { recursive: true });
  return withLock(
    `${dir}.lock`,
    async () => {
      // Another process may have finished it while we waited.
      const meanwhile = rebuild ? undefined : completed(dir, release.version, release.commit);
      if (meanwhile !== undefined) return done(meanwhile, true);
      const { sha, via } = resolveCommit(root, release);
      log(`building ${release.version} from ${sha} (found by ${via === 'tag' ? `tag ${release.tag}` : 'its sha'}) in ${dir}`);
      // Whatever an interrupted build left is discarded: only a marked folder is trusted.
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const result = await build({ root, release, sha, dir, log });
      writeFileSync(join(dir, MARKER), `${JSON.stringify(result, null, 2)}\n`);
      return done(result, false);
    },
    { onWait: (owner) => log(`waiting for another build of ${release.version} (lock held by ${owner})`) },
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { rebuild: { type: 'boolean', default: false } } });
  const log = (line: string) => process.stderr.write(`previous-release: ${line}\n`);
  try {
    const result = await ensurePreviousRelease({ rebuild: values.rebuild, log });
    log(`${result.version} (${result.commit.slice(0, 12)}): ${result.swim} (${result.cached ? 'cached' : 'built'}, ${(result.ms / 1000).toFixed(1)} s)`);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
