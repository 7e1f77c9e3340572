/**
 * CPU profiles of growing and of the measured window (`--cpu-prof DIR`): V8's sampling profiler
 * through node:inspector, started and stopped around each (node --cpu-prof would profile the whole
 * process, settling and closing included), written as a .cpuprofile that Chrome DevTools opens, and
 * summarised here as the functions with the most self time and where the encryption path's time goes.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/** Run `during` under the profiler and write the profile to `path`. */
export async function profiled<T>(path: string, during: () => Promise<T>): Promise<T> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await during();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    writeFileSync(path, JSON.stringify(profile));
  }
}

export function profilePath(dir: string, mode: string): string {
  mkdirSync(dir, { recursive: true });
  return join(dir, `crypto-${mode}.cpuprofile`);
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface HotFunction {
  /** `name (file)`, or V8's own `(garbage collector)`, `(program)`. */
  readonly where: string;
  /** Share of the busy samples whose top frame was this function. */
  readonly selfShare: number;
  readonly selfMs: number;
}

export interface ProfileSummary {
  /** Main-thread time sampled busy (not idle, not the profiler's own), ms. */
  readonly busyMs: number;
  /** The functions with the most self time. */
  readonly hot: readonly HotFunction[];
  /**
   * Busy time with the encryption path on the stack (@swim/encryption or Node's crypto), ms. This
   * includes what the wrapper calls once a packet is sealed or opened: the inner transport's send
   * and the member's packet handler (they run in the wrapper's promise continuations).
   */
  readonly encryptionMs: number;
  /**
   * Busy time spent in the encryption path itself, ms: the first frame of ours (not a V8 builtin or
   * native, not node:) at or under the sample's own is @swim/encryption's, or there is none and
   * Node's crypto is on the stack (WebCrypto's completions). So sealing, opening, the nonce, the
   * copies and the wrapper's bookkeeping, without the transport and the member the wrapper calls,
   * and without garbage collection (V8 does not say whose garbage).
   */
  readonly encryptionSelfMs: number;
  /** Busy time in V8's garbage collector, ms. */
  readonly gcMs: number;
}

function describe(frame: ProfileNode['callFrame']): string {
  const file = frame.url.replace(/^file:\/\//, '').replace(/^.*\/(packages|apps|node_modules)\//, '$1/');
  const name = frame.functionName || '(anonymous)';
  if (file === '') return name;
  return frame.lineNumber > 0 ? `${name} (${file}:${frame.lineNumber + 1})` : `${name} (${file})`;
}

const isEncryptionFrame = (frame: ProfileNode['callFrame']): boolean =>
  frame.url.includes('/packages/encryption/') || frame.url.startsWith('node:internal/crypto/');

/** V8 builtins and natives (no url) and Node's own modules: attributed to the code that called them. */
const isRuntimeFrame = (frame: ProfileNode['callFrame']): boolean => frame.url === '' || frame.url.startsWith('node:');

/**
 * Self time by function (the `top` first), and the time spent with the encryption path anywhere
 * on the stack. Idle samples and the profiler's own (the inspector session stopping and
 * serialising the profile) are left out.
 */
export function summariseProfile(path: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  /** Per node: whether the profiler is on its stack, whether the encryption path is. */
  const flags = new Map<number, { profiler: boolean; encryption: boolean }>();
  const flagsOf = (id: number): { profiler: boolean; encryption: boolean } => {
    const known = flags.get(id);
    if (known !== undefined) return known;
    const frame = byId.get(id)!.callFrame;
    const up = parent.has(id) ? flagsOf(parent.get(id)!) : { profiler: false, encryption: false };
    const own = {
      profiler: up.profiler || frame.url.startsWith('node:inspector') || (frame.functionName === 'profiled' && frame.url.endsWith('profile.ts')),
      encryption: up.encryption || isEncryptionFrame(frame),
    };
    flags.set(id, own);
    return own;
  };
  /** Per node: walking up from it past runtime frames, whether the first code of ours is the encryption path's ('enc'), someone else's, or none ('root'). */
  const caller = new Map<number, 'enc' | 'other' | 'root'>();
  const callerOf = (id: number): 'enc' | 'other' | 'root' => {
    const known = caller.get(id);
    if (known !== undefined) return known;
    const frame = byId.get(id)!.callFrame;
    const result = !isRuntimeFrame(frame) ? (isEncryptionFrame(frame) ? 'enc' : 'other') : parent.has(id) ? callerOf(parent.get(id)!) : 'root';
    caller.set(id, result);
    return result;
  };
  /** The encryption path's own time: called by it, or Node's crypto called by no code of ours (WebCrypto's completions). */
  const ownOf = (id: number): boolean => {
    const c = callerOf(id);
    return c === 'enc' || (c === 'root' && flagsOf(id).encryption);
  };
  const selfUs = new Map<string, number>();
  let busyUs = 0;
  let encryptionUs = 0;
  let encryptionSelfUs = 0;
  let gcUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (node === undefined || node.callFrame.functionName === '(idle)') return;
    const f = flagsOf(id);
    if (f.profiler) return;
    const us = profile.timeDeltas[i] ?? 0;
    const where = describe(node.callFrame);
    selfUs.set(where, (selfUs.get(where) ?? 0) + us);
    busyUs += us;
    if (f.encryption) encryptionUs += us;
    if (ownOf(id)) encryptionSelfUs += us;
    if (node.callFrame.functionName === '(garbage collector)') gcUs += us;
  });
  const hot = [...selfUs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([where, us]) => ({ where, selfShare: busyUs > 0 ? us / busyUs : 0, selfMs: us / 1000 }));
  return { busyMs: busyUs / 1000, hot, encryptionMs: encryptionUs / 1000, encryptionSelfMs: encryptionSelfUs / 1000, gcMs: gcUs / 1000 };
}
