/**
 * A lock between processes that may build the same cache entry at once (vitest workers, two test
 * runs): a directory created with mkdir, which exactly one caller can create, holding the owner's
 * pid. A lock whose owner has died (killed mid-build) is taken over.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

interface Owner {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

export interface LockOptions {
  /** Longest wait for another owner to finish (default 30 minutes). */
  readonly waitMs?: number;
  /** How often to look again (default 500 ms). */
  readonly pollMs?: number;
  /** Told once when the lock is held by someone else, and every minute while waiting. */
  readonly onWait?: (owner: string) => void;
}

/** A lock directory without its owner file yet is taken as alive for this long (mkdir and the write are not one step). */
const OWNERLESS_GRACE_MS = 60_000;
const OWNER_FILE = 'owner.json';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Who holds the lock, or undefined when its owner is gone. */
function liveOwner(lockDir: string): string | undefined {
  let owner: Owner;
  try {
    owner = JSON.parse(readFileSync(join(lockDir, OWNER_FILE), 'utf8')) as Owner;
  } catch {
    try {
      return Date.now() - statSync(lockDir).mtimeMs < OWNERLESS_GRACE_MS ? 'a process that is starting' : undefined;
    } catch {
      return 'nobody (released meanwhile)';
    }
  }
  // Another machine sharing the cache: its pid means nothing here; wait for it.
  if (owner.host !== hostname() || alive(owner.pid)) return `pid ${owner.pid} on ${owner.host} since ${owner.since}`;
  return undefined;
}

/** Runs `work` holding the lock at `lockDir` (created and removed here); waits while another process holds it. */
export async function withLock<T>(lockDir: string, work: () => T | Promise<T>, { waitMs = 30 * 60_000, pollMs = 500, onWait }: LockOptions = {}): Promise<T> {
  const started = Date.now();
  let told = 0;
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = liveOwner(lockDir);
    if (owner === undefined) {
      // Renamed away first, so that of two processes finding the same dead owner only one removes it.
      const stale = `${lockDir}.stale-${process.pid}-${Date.now()}`;
      try {
        renameSync(lockDir, stale);
        rmSync(stale, { recursive: true, force: true });
      } catch {
        // Someone else took it over first.
      }
      continue;
    }
    const waited = Date.now() - started;
    if (waited > waitMs) throw new Error(`gave up after ${Math.round(waited / 1000)} s waiting for the lock ${lockDir}, held by ${owner}`);
    if (onWait !== undefined && waited >= told) {
      onWait(owner);
      told = waited + 60_000;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  try {
    writeFileSync(join(lockDir, OWNER_FILE), JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() } satisfies Owner));
    return await work();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
