/**
 * The agent's side of `--snapshot FILE` (Serf's snapshot and rejoin): what a restart restores
 * (its incarnation, the members it knew, Serf's clocks), the rejoin, and the recording of changes
 * into the {@link SnapshotLog} while the agent runs.
 */
import { isDown, swimCodec, type SwimConfig, type WireCodec } from '@swim/core';
import { snapshotSeeds, type Member, type MemberSnapshot, type SnapshotMember } from '@swim/runtime';
import type { SerfClocks } from '@swim/adapter-memberlist';
import type { AgentLog } from './join.js';
import { MAX_READ_BYTES, readSnapshotFile, SnapshotLog, type Replayed, type SnapshotLogStats, type SnapshotState } from '../snapshot/log.js';

/**
 * How often the own incarnation and Serf's clocks are checked for changes (serf clockUpdateInterval
 * is 500 ms). Shorter here: a refutation raises the incarnation without a change event, and one
 * not yet recorded when the process is killed is one a restart may have to refute again. A check
 * that finds nothing new reads three numbers and writes nothing.
 */
export const SNAPSHOT_CHECK_INTERVAL_MS = 100;

/** What the agent restores from its snapshot file at start. */
export interface SnapshotRestore {
  /** For `MemberOptions.restore`; undefined when the file held nothing (a first start). */
  readonly restore: MemberSnapshot | undefined;
  /** For the Serf layer (memberlist mode); undefined on a first start. */
  readonly clocks: SerfClocks | undefined;
  /** Whom to rejoin (Serf -rejoin): the members it knew, none after a graceful leave without --rejoin-after-leave. */
  readonly rejoin: readonly string[];
  /** The state the log starts from. */
  readonly state: SnapshotState;
  /** What to tell the operator at start. */
  readonly notes: readonly string[];
}

/** A restore refused: the file is another agent's (exit code 1). */
export class SnapshotOwnerError extends Error {
  override name = 'SnapshotOwnerError';
}

/**
 * Read `file` and decide what to restore. The records that the member could not take (an address
 * the wire cannot carry, meta past `metaMaxBytes`, a second member at one address) are dropped
 * and counted with the skipped lines. Throws a SnapshotFileError when the file cannot be read, a
 * {@link SnapshotOwnerError} when it is another member's.
 */
export function planRestore(file: string, options: { readonly name: string; readonly config: SwimConfig; readonly codec: WireCodec | undefined; readonly rejoinAfterLeave: boolean }): SnapshotRestore {
  const replayed: Replayed = readSnapshotFile(file, { maxMembers: options.config.maxMembers });
  const { state } = replayed;
  const notes: string[] = [];
  let skipped = replayed.skipped;
  const warnings = [...replayed.warnings];
  if (state.self !== undefined && state.self.name !== options.name) {
    throw new SnapshotOwnerError(`snapshot file ${file} is member ${JSON.stringify(state.self.name)}'s, not ${JSON.stringify(options.name)}'s: give each agent its own file`);
  }
  const codec = options.codec ?? swimCodec;
  const addresses = new Set<string>();
  for (const member of [...state.members.values()]) {
    const problem =
      member.name === options.name
        ? 'is this agent'
        : (codec.addressProblem(member.address) ??
          (addresses.has(member.address) ? 'shares its address with another member' : undefined) ??
          (base64Length(member.meta) > options.config.metaMaxBytes ? `has more than ${options.config.metaMaxBytes} bytes of meta` : undefined));
    if (problem === undefined) {
      addresses.add(member.address);
      continue;
    }
    state.members.delete(member.name);
    skipped++;
    if (warnings.length < 10) warnings.push(`member ${member.name} dropped: ${problem}`);
  }
  if (skipped > 0) notes.push(`snapshot file ${file}: skipped ${skipped} record${skipped === 1 ? '' : 's'} it could not use (${warnings.join('; ')})`);
  if (replayed.unread > 0) notes.push(`snapshot file ${file}: only its first ${MAX_READ_BYTES} bytes were read, ${replayed.unread} more ignored (an agent's snapshot is compacted far below that)`);
  const fresh = state.self === undefined && state.members.size === 0;
  const rejoining = !state.left || options.rejoinAfterLeave;
  if (state.left) {
    notes.push(
      rejoining
        ? `snapshot file ${file}: the last run left gracefully; rejoining its ${state.members.size} known members anyway (--rejoin-after-leave)`
        : `snapshot file ${file}: the last run left gracefully; not rejoining its known members (--rejoin-after-leave would)`,
    );
    // serf Snapshotter replay: a leave forgets the members unless told to rejoin after one.
    if (!rejoining) state.members.clear();
  }
  state.left = false;
  const members: SnapshotMember[] = [...state.members.values()];
  const restore: MemberSnapshot | undefined = fresh
    ? undefined
    : { version: 1, name: options.name, address: state.self?.address ?? '', incarnation: state.self?.incarnation ?? 0, left: false, members };
  return { restore, clocks: fresh ? undefined : state.clocks, rejoin: restore === undefined ? [] : snapshotSeeds(restore), state, notes };
}

/** Bytes a base64 string decodes to. */
function base64Length(text: string): number {
  return (text.length / 4) * 3 - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
}

/** The log while the agent runs: every change recorded as it happens. */
export interface SnapshotRecorder {
  readonly stats: SnapshotLogStats;
  /** Record the own incarnation and the clocks now (before a leave or a stop). */
  check(): void;
  /** The graceful leave: recorded and synced. */
  leave(): void;
  /** Stop recording, sync, close. */
  close(): void;
}

/**
 * Open the log at `file` from `state` (compacted at once) and record the member's changes into it:
 * members alive or updated, failed or left (at each change event), its own incarnation and Serf's
 * clocks (at each change and every {@link SNAPSHOT_CHECK_INTERVAL_MS}). Throws a SnapshotFileError
 * when the file cannot be written.
 */
export function startRecording(
  file: string,
  state: SnapshotState,
  member: Member,
  clocks: (() => SerfClocks) | undefined,
  log: AgentLog,
  options: { readonly minCompactBytes?: number } = {},
): SnapshotRecorder {
  let lastError = 0;
  const snapshotLog = new SnapshotLog(file, state, {
    ...options,
    onError: (error) => {
      // A full disk fails every append: one line a minute says so.
      const now = Date.now();
      if (now - lastError < 60_000) return;
      lastError = now;
      log('error', `cannot write snapshot file ${file}: ${error.message}`, { file, error: error.message });
    },
  });
  const check = () => {
    snapshotLog.self({ name: member.name, address: member.address, incarnation: member.incarnation });
    if (clocks !== undefined) snapshotLog.clocks(clocks());
  };
  // What the member holds at start: the restored members, preloaded (already in the state).
  for (const view of member.allMembers()) {
    if (view.name !== member.name && !isDown(view.state)) snapshotLog.alive({ name: view.name, address: view.address, incarnation: view.incarnation, meta: Buffer.from(view.meta).toString('base64') });
  }
  check();
  const stopChanges = member.on('change', ({ member: view }) => {
    if (view.name === member.name) return check();
    if (isDown(view.state)) snapshotLog.notAlive(view.name);
    else snapshotLog.alive({ name: view.name, address: view.address, incarnation: view.incarnation, meta: Buffer.from(view.meta).toString('base64') });
    if (clocks !== undefined) snapshotLog.clocks(clocks());
  });
  const timer = setInterval(check, SNAPSHOT_CHECK_INTERVAL_MS);
  timer.unref();
  let closed = false;
  return {
    get stats() {
      return snapshotLog.stats;
    },
    check,
    leave: () => {
      check();
      snapshotLog.leave();
    },
    close: () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      stopChanges();
      check();
      snapshotLog.close();
    },
  };
}
