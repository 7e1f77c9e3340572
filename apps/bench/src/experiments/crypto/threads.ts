/**
 * CPU time of the main thread against the process's other threads (libuv's threadpool, where
 * WebCrypto runs AES-GCM, and V8's helpers), from /proc/self/task on Linux. process.cpuUsage
 * counts every thread; this says which side the cost is on. Clock ticks are 10 ms: fine over a
 * window of seconds.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export interface ThreadCpu {
  readonly mainMs: number;
  readonly otherMs: number;
}

/** CPU so far (user + system) of the main thread and of all other threads; undefined off Linux. */
export function threadCpu(): ThreadCpu | undefined {
  try {
    let mainMs = 0;
    let otherMs = 0;
    for (const tid of readdirSync('/proc/self/task')) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      } catch {
        continue; // the thread ended meanwhile
      }
      // Fields after "(comm) ": state is field 3, utime 14 and stime 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
      if (Number(tid) === process.pid) mainMs += ms;
      else otherMs += ms;
    }
    return { mainMs, otherMs };
  } catch {
    return undefined;
  }
}

/** CPU between two readings. */
export function threadCpuSince(before: ThreadCpu | undefined): ThreadCpu | undefined {
  const after = threadCpu();
  if (before === undefined || after === undefined) return undefined;
  return { mainMs: after.mainMs - before.mainMs, otherMs: after.otherMs - before.otherMs };
}
