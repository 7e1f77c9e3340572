/**
 * CPU profiles of the measured window (`--cpu-prof DIR`): V8's sampling profiler through
 * node:inspector, started and stopped around the window only (node --cpu-prof would also profile
 * growing the cluster), written as a .cpuprofile that Chrome DevTools opens, and summarised here
 * as the functions with the most self time.
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
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface HotFunction {
  /** `name (file:line)`, or V8's own `(garbage collector)`, `(program)`, `(idle)`. */
  readonly where: string;
  /** Share of the non-idle samples whose top frame was this function. */
  readonly selfShare: number;
  readonly selfMs: number;
}

/** The `top` functions by self time, idle time left out. */
export function hotFunctions(path: string, top = 15): HotFunction[] {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<string, number>();
  let busyUs = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined || frame.functionName === '(idle)') return;
    const file = frame.url.replace(/^file:\/\//, '').replace(/^.*\/(packages|apps|node_modules)\//, '$1/');
    const where = file === '' ? frame.functionName || '(anonymous)' : `${frame.functionName || '(anonymous)'} (${file}:${frame.lineNumber + 1})`;
    const us = profile.timeDeltas[i] ?? 0;
    selfUs.set(where, (selfUs.get(where) ?? 0) + us);
    busyUs += us;
  });
  return [...selfUs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([where, us]) => ({ where, selfShare: busyUs > 0 ? us / busyUs : 0, selfMs: us / 1000 }));
}
