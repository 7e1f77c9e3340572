/**
 * Which commit the previous release was built from: tooling/previous-release.json names the
 * version, its tag and the commit's full sha. The tag is looked up first (it is what a release
 * leaves behind), then the sha (tags do not always travel with a branch or a clone).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { run } from './exec.js';

/** The previous release as committed in tooling/previous-release.json. */
export interface PreviousRelease {
  readonly version: string;
  readonly tag: string;
  /** Full 40-character sha of the commit the release was published from. */
  readonly commit: string;
}

/** The file, from the repository root. */
export const PREVIOUS_RELEASE_FILE = 'tooling/previous-release.json';

/** Reads and checks the file: a semver version, a tag, a full sha; every problem listed. */
export function readPreviousRelease(root: string): PreviousRelease {
  const path = join(root, PREVIOUS_RELEASE_FILE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${PREVIOUS_RELEASE_FILE}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const record = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const problems: string[] = [];
  const { version, tag, commit } = record;
  if (typeof version !== 'string' || semver.valid(version) === null) problems.push(`"version" must be a semver version (got ${JSON.stringify(version)})`);
  if (typeof tag !== 'string' || !/^[\w.+-]{1,100}$/.test(tag)) problems.push(`"tag" must be a tag name (got ${JSON.stringify(tag)})`);
  if (typeof commit !== 'string' || !/^[0-9a-f]{40}$/.test(commit)) problems.push(`"commit" must be a full 40-character sha in lower case (got ${JSON.stringify(commit)})`);
  if (problems.length > 0) throw new Error(`${PREVIOUS_RELEASE_FILE}: ${problems.join('; ')}`);
  return { version: version as string, tag: tag as string, commit: commit as string };
}

/** The commit to build and how it was found. */
export interface ResolvedCommit {
  readonly sha: string;
  readonly via: 'tag' | 'sha';
}

const git = (root: string, args: readonly string[]) => run('git', args, { cwd: root, timeoutMs: 60_000 });

/**
 * The release's commit in the repository at `root`: its tag if present (which must point at the
 * recorded sha), else the recorded sha. Fails with one message saying what to fetch when the
 * commit is not in this clone (a shallow clone).
 */
export function resolveCommit(root: string, release: PreviousRelease): ResolvedCommit {
  const repository = git(root, ['rev-parse', '--git-dir']);
  if (!repository.ok) {
    // git's own words too: a checkout owned by another user is refused ("dubious ownership") the same way.
    throw new Error(`${root} is not a git repository git can read (${repository.output.split('\n')[0]}): the previous release (${release.version}, ${release.commit}) is built from its git history`);
  }
  const tagged = git(root, ['rev-parse', '--verify', '--quiet', `refs/tags/${release.tag}^{commit}`]);
  if (tagged.ok) {
    const sha = tagged.stdout.trim();
    if (sha !== release.commit) {
      throw new Error(`tag ${release.tag} points at ${sha}, but ${PREVIOUS_RELEASE_FILE} records ${release.commit} for ${release.version}: one of them is wrong`);
    }
    return { sha, via: 'tag' };
  }
  if (git(root, ['cat-file', '-e', `${release.commit}^{commit}`]).ok) return { sha: release.commit, via: 'sha' };
  const shallow = git(root, ['rev-parse', '--is-shallow-repository']).stdout.trim() === 'true';
  throw new Error(
    `the previous release ${release.version} (tag ${release.tag}, commit ${release.commit}) is not in this clone` +
      (shallow ? ' (it is a shallow clone)' : '') +
      `: fetch it with \`git fetch --unshallow\` or \`git fetch origin ${release.commit}\`, then run again`,
  );
}
