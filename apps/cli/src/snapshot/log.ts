/**
 * `swim agent --snapshot FILE`: Serf's snapshot (serf Snapshotter) as JSON lines. The agent appends
 * a line for each change as it happens: a member alive or updated, a member failed or left, its
 * own incarnation, Serf's three Lamport clocks, its graceful leave. On start the file is replayed
 * into the state a restart needs, then rewritten to that state alone (compacted); it is compacted
 * again whenever it grows past twice its compacted size (at least {@link MIN_COMPACT_BYTES}), by
 * writing a temporary file, syncing it and renaming it over the log, so a crash leaves the old
 * file or the new one. The file is input like any other: a line that does not parse or check out
 * (a torn last line after a kill -9, an edit, garbage) is skipped and counted, and no more than
 * {@link MAX_READ_BYTES} are read.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { MAX_INCARNATION, MAX_NAME_BYTES, utf8Bytes } from '@swim/core';
import type { SnapshotMember } from '@swim/runtime';

/** Serf's three Lamport clocks as kept in the snapshot (serf Snapshotter lastClock, lastEventClock, lastQueryClock). */
export interface SnapshotClocks {
  readonly clock: number;
  readonly eventClock: number;
  readonly queryClock: number;
}

/** The agent itself as the log last recorded it. */
export interface SnapshotSelf {
  readonly name: string;
  readonly address: string;
  readonly incarnation: number;
}

/** What replaying a log gives: the state a restart needs. */
export interface SnapshotState {
  self: SnapshotSelf | undefined;
  /** The other members last known alive, by name (serf Snapshotter aliveNodes). */
  readonly members: Map<string, SnapshotMember>;
  clocks: SnapshotClocks;
  /** The last life ended with a graceful leave (serf's `leave` line). */
  left: boolean;
}

/** A replayed log, and what was wrong with it. */
export interface Replayed {
  readonly state: SnapshotState;
  /** Lines skipped: not JSON, not a known record, a bad field, past the member bound. */
  readonly skipped: number;
  /** What was wrong, for the log: the first {@link MAX_WARNINGS} problems, each with its line number. */
  readonly warnings: readonly string[];
  /** Bytes past {@link MAX_READ_BYTES} that were not read (0 when the whole file was). */
  readonly unread: number;
}

/** The log's first line after each compaction; a later version may write another and is read as far as it is understood. */
export const SNAPSHOT_LOG_VERSION = 1;
/** Compaction is never triggered below this (serf snapshotSizeLimit, 128 KiB). */
export const MIN_COMPACT_BYTES = 128 * 1024;
/** A snapshot is read no further than this: a compacted log of the largest cluster is far smaller. */
export const MAX_READ_BYTES = 32 * 1024 * 1024;
/** A line longer than this is not one the agent wrote (a member's line is under 1 KiB with 512 B of meta). */
export const MAX_LINE_BYTES = 16 * 1024;
/** Longest address kept (a host name and port). */
const MAX_ADDRESS_LENGTH = 512;
/** Longest meta kept, base64 (memberlist MetaMaxSize is 512 bytes). */
const MAX_META_BASE64 = 4 * Math.ceil(64 * 1024 / 3);
const MAX_WARNINGS = 10;

export function emptyState(): SnapshotState {
  return { self: undefined, members: new Map(), clocks: { clock: 0, eventClock: 0, queryClock: 0 }, left: false };
}

/** One record of the log. */
type Line =
  | { readonly type: 'snapshot'; readonly version: number }
  | ({ readonly type: 'self' } & SnapshotSelf)
  | ({ readonly type: 'alive' } & SnapshotMember)
  | { readonly type: 'not-alive'; readonly name: string }
  | ({ readonly type: 'clocks' } & SnapshotClocks)
  | { readonly type: 'leave' };

/**
 * Replay the text of a log (pure). At most `maxMembers` members are kept: an `alive` line for
 * one more is skipped. A `leave` line marks the life as ended gracefully; unlike Serf, members
 * and clocks are kept (the agent decides whether to rejoin), and a later line of a new life
 * clears the mark.
 */
export function replay(text: string, options: { readonly maxMembers: number; readonly unread?: number }): Replayed {
  const state = emptyState();
  const warnings: string[] = [];
  let skipped = 0;
  const skip = (number: number, why: string) => {
    skipped++;
    if (warnings.length < MAX_WARNINGS) warnings.push(`line ${number}: ${why}`);
  };
  const lines = text.split('\n');
  // The text after the last newline is a line only if something is there: a torn write.
  lines.forEach((raw, index) => {
    const number = index + 1;
    if (raw.length === 0) return;
    if (raw.length > MAX_LINE_BYTES) return skip(number, `longer than ${MAX_LINE_BYTES} characters`);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return skip(number, index === lines.length - 1 ? 'not JSON (a torn last line?)' : 'not JSON');
    }
    const line = checkLine(value);
    if (typeof line === 'string') return skip(number, line);
    if (line.type !== 'snapshot' && line.type !== 'leave') state.left = false;
    switch (line.type) {
      case 'snapshot':
        return;
      case 'self':
        state.self = { name: line.name, address: line.address, incarnation: line.incarnation };
        return;
      case 'alive':
        if (!state.members.has(line.name) && state.members.size >= options.maxMembers) return skip(number, `more than ${options.maxMembers} members (maxMembers)`);
        state.members.set(line.name, { name: line.name, address: line.address, incarnation: line.incarnation, meta: line.meta });
        return;
      case 'not-alive':
        state.members.delete(line.name);
        return;
      case 'clocks':
        state.clocks = { clock: line.clock, eventClock: line.eventClock, queryClock: line.queryClock };
        return;
      case 'leave':
        state.left = true;
        return;
    }
  });
  return { state, skipped, warnings, unread: options.unread ?? 0 };
}

/** The record `value` holds, or what is wrong with it. */
function checkLine(value: unknown): Line | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const v = value as Record<string, unknown>;
  const problems: string[] = [];
  const type = v['type'];
  switch (type) {
    case 'snapshot':
      if (!Number.isSafeInteger(v['version'])) problems.push('version is not an integer');
      break;
    case 'self':
      name(v['name'], problems);
      address(v['address'], problems);
      incarnation(v['incarnation'], problems);
      break;
    case 'alive':
      name(v['name'], problems);
      address(v['address'], problems);
      incarnation(v['incarnation'], problems);
      if (typeof v['meta'] !== 'string' || v['meta'].length > MAX_META_BASE64 || !BASE64.test(v['meta'])) problems.push('meta is not base64');
      break;
    case 'not-alive':
      name(v['name'], problems);
      break;
    case 'clocks':
      for (const field of ['clock', 'eventClock', 'queryClock']) {
        const time = v[field];
        if (typeof time !== 'number' || !Number.isSafeInteger(time) || time < 0) problems.push(`${field} is not a non-negative integer`);
      }
      break;
    case 'leave':
      break;
    default:
      return type === undefined ? 'no record type' : `unknown record type ${JSON.stringify(typeof type === 'string' ? type.slice(0, 40) : type)}`;
  }
  return problems.length > 0 ? `${type} record: ${problems.join(', ')}` : (v as Line);
}

function name(value: unknown, problems: string[]): void {
  const bytes = typeof value === 'string' ? utf8Bytes(value) : undefined;
  if (bytes === undefined || bytes.length === 0 || bytes.length > MAX_NAME_BYTES) problems.push('name is not a member name');
}

function address(value: unknown, problems: string[]): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ADDRESS_LENGTH) problems.push('address is not an address');
}

function incarnation(value: unknown, problems: string[]): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_INCARNATION) problems.push('incarnation is not an incarnation');
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A snapshot file that cannot be read or written (exit code 1 at start). */
export class SnapshotFileError extends Error {
  override name = 'SnapshotFileError';
}

/**
 * Read and replay the log at `path`: an empty state when there is no file yet; at most
 * {@link MAX_READ_BYTES} are read. Throws a {@link SnapshotFileError} when the path cannot be read.
 */
export function readSnapshotFile(path: string, options: { readonly maxMembers: number }): Replayed {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: emptyState(), skipped: 0, warnings: [], unread: 0 };
    throw new SnapshotFileError(`cannot read snapshot file ${path}: ${(error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new SnapshotFileError(`snapshot file ${path} is not a regular file`);
    const size = Math.min(stat.size, MAX_READ_BYTES);
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return replay(buffer.subarray(0, read).toString('utf8'), { maxMembers: options.maxMembers, unread: Math.max(0, stat.size - read) });
  } catch (error) {
    if (error instanceof SnapshotFileError) throw error;
    throw new SnapshotFileError(`cannot read snapshot file ${path}: ${(error as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

/** Counters of a {@link SnapshotLog}, for `swim stats`. */
export interface SnapshotLogStats {
  /** Bytes in the file now. */
  readonly bytes: number;
  /** Lines appended since the agent started. */
  readonly appended: number;
  /** Rewrites of the file to the current state, the one at start included. */
  readonly compactions: number;
  /** Appends or compactions that failed (each also reported through `onError`). */
  readonly writeErrors: number;
}

/**
 * The open log: appends a line per change and keeps the state it describes, to compact to. Writes
 * are synchronous: a line reaches the kernel before the change is acted on further, so a kill -9
 * loses nothing written (a machine crash may lose what was not synced; a graceful leave syncs).
 */
export class SnapshotLog {
  readonly path: string;
  readonly #state: SnapshotState;
  readonly #minCompactBytes: number;
  readonly #onError: (error: Error) => void;
  #fd: number | undefined;
  #bytes = 0;
  #compactedBytes = 0;
  #appended = 0;
  #compactions = 0;
  #writeErrors = 0;
  /** After the leave record, nothing more is recorded (serf Snapshotter leaving). */
  #leaving = false;

  /**
   * Open the log at `path` with `state` (the replayed one, or a fresh one) and write it there at
   * once, compacted: what was torn or skipped is gone and appends start on a clean line. Throws a
   * {@link SnapshotFileError} when the file cannot be written.
   */
  constructor(path: string, state: SnapshotState, options: { readonly minCompactBytes?: number; readonly onError: (error: Error) => void }) {
    this.path = path;
    this.#state = state;
    this.#minCompactBytes = options.minCompactBytes ?? MIN_COMPACT_BYTES;
    this.#onError = options.onError;
    try {
      this.#compact();
    } catch (error) {
      throw new SnapshotFileError(`cannot write snapshot file ${path}: ${(error as Error).message}`);
    }
  }

  /** The state the log describes now. */
  get state(): Readonly<SnapshotState> {
    return this.#state;
  }

  get stats(): SnapshotLogStats {
    return { bytes: this.#bytes, appended: this.#appended, compactions: this.#compactions, writeErrors: this.#writeErrors };
  }

  /** Our own name, address and incarnation, when they changed. */
  self(self: SnapshotSelf): void {
    const known = this.#state.self;
    if (known !== undefined && known.name === self.name && known.address === self.address && known.incarnation === self.incarnation) return;
    this.#state.self = { ...self };
    this.#append({ type: 'self', ...self });
  }

  /** A member alive (joined, back, updated), when what we hold of it changed. */
  alive(member: SnapshotMember): void {
    const known = this.#state.members.get(member.name);
    if (known !== undefined && known.address === member.address && known.incarnation === member.incarnation && known.meta === member.meta) return;
    this.#state.members.set(member.name, { ...member });
    this.#append({ type: 'alive', ...member });
  }

  /** A member failed or left (serf `not-alive`). */
  notAlive(name: string): void {
    if (!this.#state.members.delete(name)) return;
    this.#append({ type: 'not-alive', name });
  }

  /** Serf's clocks, when any moved (serf Snapshotter updateClock). */
  clocks(clocks: SnapshotClocks): void {
    const known = this.#state.clocks;
    if (known.clock === clocks.clock && known.eventClock === clocks.eventClock && known.queryClock === clocks.queryClock) return;
    this.#state.clocks = { ...clocks };
    this.#append({ type: 'clocks', ...clocks });
  }

  /** The graceful leave: recorded and synced to disk; nothing is recorded after it (serf Snapshotter Leave). */
  leave(): void {
    if (this.#leaving) return;
    this.#state.left = true;
    this.#append({ type: 'leave' });
    this.#leaving = true;
    this.#sync();
  }

  /** Sync and close. Idempotent. */
  close(): void {
    const fd = this.#fd;
    if (fd === undefined) return;
    this.#sync();
    this.#fd = undefined;
    try {
      closeSync(fd);
    } catch (error) {
      this.#failed(error);
    }
  }

  #append(record: Line): void {
    if (this.#leaving || this.#fd === undefined) return;
    const text = `${JSON.stringify(record)}\n`;
    try {
      writeSync(this.#fd, text);
      this.#bytes += Buffer.byteLength(text);
      this.#appended++;
      // serf snapshotMaxSize: compact once the log is well past what its state takes.
      if (this.#bytes > Math.max(this.#minCompactBytes, 2 * this.#compactedBytes)) this.#compact();
    } catch (error) {
      this.#failed(error);
    }
  }

  #sync(): void {
    if (this.#fd === undefined) return;
    try {
      fsyncSync(this.#fd);
    } catch (error) {
      this.#failed(error);
    }
  }

  #failed(error: unknown): void {
    this.#writeErrors++;
    this.#onError(error instanceof Error ? error : new Error(String(error)));
  }

  /** Write the state alone to a temporary file, sync it, rename it over the log, and append there from now on (serf Snapshotter compact). */
  #compact(): void {
    const state = this.#state;
    const records: Line[] = [{ type: 'snapshot', version: SNAPSHOT_LOG_VERSION }];
    if (state.self !== undefined) records.push({ type: 'self', ...state.self });
    for (const member of state.members.values()) records.push({ type: 'alive', ...member });
    records.push({ type: 'clocks', ...state.clocks });
    if (state.left) records.push({ type: 'leave' });
    const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    const temporary = `${this.path}.compact`;
    const fd = openSync(temporary, 'w', 0o600);
    try {
      try {
        writeSync(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, this.path);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
    const previous = this.#fd;
    this.#fd = openSync(this.path, 'a', 0o600);
    if (previous !== undefined) closeSync(previous);
    this.#bytes = this.#compactedBytes = Buffer.byteLength(text);
    this.#compactions++;
  }
}
