import { MAX_INCARNATION, MAX_NAME_BYTES, isDown, utf8Bytes, type MemberView, type PreloadedMember } from '@swim/core';

/** The version of {@link MemberSnapshot} this release writes and reads. */
export const SNAPSHOT_VERSION = 1;

/**
 * What a member needs to come back after a restart (Serf's snapshot): its own incarnation, the
 * members it knew, and whether it left gracefully. Plain data: `JSON.stringify` saves it and
 * `JSON.parse` + {@link parseSnapshot} reads it back. Taken by `Member.snapshot()`, restored
 * through `MemberOptions.restore`.
 */
export interface MemberSnapshot {
  /** {@link SNAPSHOT_VERSION}; a reader refuses versions it does not know. */
  readonly version: typeof SNAPSHOT_VERSION;
  /** The member's name; a snapshot restores only a member of the same name. */
  readonly name: string;
  /** The address the member had (informational: a restarted member uses its transport's). */
  readonly address: string;
  /** The member's incarnation when the snapshot was taken; a restored member starts above it. */
  readonly incarnation: number;
  /** True when the member had left gracefully: Serf does not rejoin then unless told to (`-rejoin-after-leave`). */
  readonly left: boolean;
  /** The other members it held alive or suspect (dead and left ones are not kept). */
  readonly members: readonly SnapshotMember[];
}

/** One known member in a {@link MemberSnapshot}. */
export interface SnapshotMember {
  /** Its name. */
  readonly name: string;
  /** Its address, as the transport understands it. */
  readonly address: string;
  /** Its incarnation as the snapshot's member held it. */
  readonly incarnation: number;
  /** Its metadata, base64 (empty string for none). */
  readonly meta: string;
}

/** A snapshot that cannot be restored: every problem found, one per entry. */
export class SnapshotError extends Error {
  /** Each problem, in the order found. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`invalid snapshot: ${problems.join('; ')}`);
    this.name = 'SnapshotError';
    this.problems = problems;
  }
}

/** What {@link parseSnapshot} checks beyond the shape. */
export interface ParseSnapshotOptions {
  /** The name of the member that restores it: a snapshot of another name is refused. */
  readonly name?: string;
}

/** Build the snapshot of a member from what it holds (`Member.snapshot()`). */
export function snapshotOf(self: MemberView, held: readonly MemberView[]): MemberSnapshot {
  const members: SnapshotMember[] = [];
  for (const view of held) {
    if (view.name === self.name || isDown(view.state)) continue;
    members.push({ name: view.name, address: view.address, incarnation: view.incarnation, meta: toBase64(view.meta) });
  }
  return { version: SNAPSHOT_VERSION, name: self.name, address: self.address, incarnation: self.incarnation, left: self.state === 'left', members };
}

/**
 * Check that `value` (what `JSON.parse` gave, say) is a {@link MemberSnapshot} this version can
 * restore, and of the member `options.name` when given; returns it typed. A snapshot is input
 * from disk, possibly damaged or forged: throws a {@link SnapshotError} listing every problem.
 */
export function parseSnapshot(value: unknown, options: ParseSnapshotOptions = {}): MemberSnapshot {
  const problems: string[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SnapshotError(['a snapshot must be an object']);
  const v = value as Record<string, unknown>;
  if (v['version'] !== SNAPSHOT_VERSION) problems.push(`version must be ${SNAPSHOT_VERSION}, got ${describe(v['version'])}`);
  if (nameProblem(v['name'], 'name', problems) && options.name !== undefined && v['name'] !== options.name) {
    problems.push(`the snapshot is of member ${v['name']}, not ${options.name}`);
  }
  if (typeof v['address'] !== 'string') problems.push(`address must be a string, got ${describe(v['address'])}`);
  incarnationProblem(v['incarnation'], 'incarnation', problems);
  if (typeof v['left'] !== 'boolean') problems.push(`left must be a boolean, got ${describe(v['left'])}`);
  const members = v['members'];
  if (!Array.isArray(members)) problems.push(`members must be an array, got ${describe(members)}`);
  else {
    const names = new Set<string>();
    members.forEach((member: unknown, i) => memberProblems(member, `members[${i}]`, names, problems));
  }
  if (problems.length > 0) throw new SnapshotError(problems);
  return value as MemberSnapshot;
}

/** The snapshot's members as `Member.preload` takes them (meta decoded). */
export function snapshotPreload(snapshot: MemberSnapshot): PreloadedMember[] {
  return snapshot.members.map((m) => ({ name: m.name, address: m.address, incarnation: m.incarnation, meta: fromBase64(m.meta) }));
}

/** The addresses of the snapshot's members: the seeds a restored member rejoins through (Serf `-rejoin`). */
export function snapshotSeeds(snapshot: MemberSnapshot): string[] {
  return snapshot.members.map((m) => m.address);
}

function memberProblems(member: unknown, at: string, names: Set<string>, problems: string[]): void {
  if (typeof member !== 'object' || member === null || Array.isArray(member)) {
    problems.push(`${at} must be an object`);
    return;
  }
  const m = member as Record<string, unknown>;
  const name = m['name'];
  if (nameProblem(name, `${at}.name`, problems) && typeof name === 'string') {
    if (names.has(name)) problems.push(`${at}.name ${name} is listed twice`);
    names.add(name);
  }
  if (typeof m['address'] !== 'string' || m['address'].length === 0) problems.push(`${at}.address must be a non-empty string, got ${describe(m['address'])}`);
  incarnationProblem(m['incarnation'], `${at}.incarnation`, problems);
  const meta = m['meta'];
  if (typeof meta !== 'string' || !BASE64.test(meta)) problems.push(`${at}.meta must be a base64 string, got ${describe(meta)}`);
}

/** Adds a problem and returns false unless `name` is a member name. */
function nameProblem(name: unknown, at: string, problems: string[]): boolean {
  if (typeof name !== 'string' || name.length === 0) problems.push(`${at} must be a non-empty string, got ${describe(name)}`);
  else {
    const bytes = utf8Bytes(name);
    if (bytes === undefined) problems.push(`${at} holds a lone surrogate (not UTF-8)`);
    else if (bytes.length > MAX_NAME_BYTES) problems.push(`${at} must be at most ${MAX_NAME_BYTES} bytes of UTF-8`);
    else return true;
  }
  return false;
}

function incarnationProblem(value: unknown, at: string, problems: string[]): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_INCARNATION) {
    problems.push(`${at} must be an integer from 0 to ${MAX_INCARNATION}, got ${describe(value)}`);
  }
}

/** A value for an error message: short, whatever it is. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : String(value);
}

/** Standard base64 with padding, as `btoa` writes it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// btoa/atob: in browsers and Node alike (the runtime uses no Node built-ins).
function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
