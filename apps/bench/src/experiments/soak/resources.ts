/** Per-agent resources from /proc (RSS, file descriptors, sockets) and the machine's load average. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { loadavg } from 'node:os';

export interface ProcSample {
  readonly rssBytes: number;
  readonly fds: number;
  readonly sockets: number;
}

export function procSample(pid: number): ProcSample | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const rssBytes = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) * 1024;
    const fds = readdirSync(`/proc/${pid}/fd`);
    let sockets = 0;
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets++;
      } catch {
        // Closed between the listing and the read.
      }
    }
    return { rssBytes, fds: fds.length, sockets };
  } catch {
    return undefined;
  }
}

export function loadSample(): [number, number, number] {
  const [a, b, c] = loadavg();
  return [a!, b!, c!];
}
