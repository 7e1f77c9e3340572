/**
 * Real daemons for tests (Serf agents, a Prometheus server): ports to give them, and processes
 * that never outlive the tests.
 *
 * Ports (Serf's -bind and -rpc-addr, Prometheus's web port): below the kernel's ephemeral range,
 * so the short-lived connections of `serf members` and of the tests themselves cannot take a port
 * a daemon is about to bind; probed free for both TCP and UDP (memberlist binds both on one port).
 * Parallel test files can still race for the same number between the probe and the bind: the
 * harnesses retry a daemon whose bind failed with "address already in use".
 *
 * Processes ({@link spawnDaemon}): each daemon runs in its own process group, so one signal
 * reaches all of it; the groups still alive are SIGKILLed when this process exits, and a watchdog
 * shell per daemon kills its group within a second should this process die without exiting (a
 * killed worker, a crash).
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// --- free ports ------------------------------------------------------------------------------

/** The lowest port handed out here: clear of well-known and registered services' usual spots. */
const LOWEST = 10_000;
/** A range smaller than this is not worth choosing from. */
const ENOUGH = 1_000;
const PROBES = 200;

/** The kernel's ephemeral port range (Linux's defaults when /proc does not say). */
export function ephemeralRange(): { readonly low: number; readonly high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return { low: low!, high: high! };
  } catch {
    // not Linux
  }
  return { low: 32_768, high: 60_999 };
}

/** The range to pick from: below the ephemeral range, or above it when that leaves too little. */
export function testPortRange(): { readonly from: number; readonly to: number } {
  const { low, high } = ephemeralRange();
  if (low - 1 - LOWEST >= ENOUGH) return { from: LOWEST, to: low - 1 };
  if (65_535 - (high + 1) >= ENOUGH) return { from: high + 1, to: 65_535 };
  throw new Error(`no room for test ports outside the ephemeral range ${low}-${high}`);
}

/** Whether `port` can be bound on `host` for TCP and for UDP right now (both released again). */
export async function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  const server = createServer();
  const tcp = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => resolve(true));
  });
  if (!tcp) return false;
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  const udp = await new Promise<boolean>((resolve) => {
    socket.once('error', () => resolve(false));
    socket.bind({ address: host, port, exclusive: true }, () => resolve(true));
  });
  await new Promise<void>((resolve) => {
    try {
      socket.close(() => resolve());
    } catch {
      resolve(); // never bound
    }
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return udp;
}

/** `count` distinct ports, chosen at random in {@link testPortRange} and probed free. */
export async function pickFreePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const { from, to } = testPortRange();
  const chosen: number[] = [];
  for (let probe = 0; chosen.length < count; probe++) {
    if (probe >= PROBES) throw new Error(`found only ${chosen.length} of ${count} free ports in ${from}-${to} after ${PROBES} probes`);
    const port = from + Math.floor(Math.random() * (to - from + 1));
    if (!chosen.includes(port) && (await portIsFree(port, host))) chosen.push(port);
  }
  return chosen;
}

// --- processes that must not outlive the tests -----------------------------------------------

/** Process groups started here and not known dead; SIGKILLed on exit whatever happens. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Send `signal` (default SIGKILL) to process group `pgid`; nothing when it is gone. */
export function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pgid of liveGroups) killGroup(pgid);
  });
}

/**
 * A shell in its own group that kills group `pgid` once this process is gone (checked every
 * second), and ends by itself once that group's leader is gone.
 */
function startWatchdog(pgid: number): number | undefined {
  const script =
    'while kill -0 "$0" 2>/dev/null && kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -0 "$0" 2>/dev/null || kill -KILL "-$1" 2>/dev/null';
  const watchdog = spawn('/bin/sh', ['-c', script, String(process.pid), String(pgid)], { detached: true, stdio: 'ignore' });
  watchdog.on('error', () => {});
  watchdog.unref();
  if (watchdog.pid !== undefined) liveGroups.add(watchdog.pid);
  return watchdog.pid;
}

export interface DaemonExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface Daemon {
  /** Its pid, which is also its process group's id. */
  readonly pid: number;
  readonly child: ChildProcess;
  /** Settles once it has exited; its group is then no longer killed on exit. */
  readonly exited: Promise<DaemonExit>;
  /** Send `signal` (default SIGKILL) to its whole process group; nothing when it is gone. */
  signal(signal?: NodeJS.Signals): void;
  /** End its watchdog, once the daemon has exited (idempotent). */
  stopWatchdog(): void;
}

export interface SpawnDaemonOptions {
  /** Its stdout and stderr go to this file. */
  readonly logPath: string;
  /** Append to the log (a daemon started again after a failed attempt) instead of truncating it. */
  readonly appendLog?: boolean;
}

/** Start `command` as a daemon in its own process group, with a watchdog; see the top of this file. */
export function spawnDaemon(command: string, args: readonly string[], options: SpawnDaemonOptions): Daemon {
  installExitHook();
  const fd = openSync(options.logPath, options.appendLog === true ? 'a' : 'w');
  let child: ChildProcess;
  try {
    child = spawn(command, args, { detached: true, stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  child.on('error', () => {});
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not spawn ${command}`);
  liveGroups.add(pid);
  const exited = new Promise<DaemonExit>((resolve) => {
    child.once('exit', (code, signal) => {
      liveGroups.delete(pid);
      resolve({ code, signal });
    });
  });
  let watchdog = startWatchdog(pid);
  return {
    pid,
    child,
    exited,
    signal: (signal = 'SIGKILL') => killGroup(pid, signal),
    stopWatchdog: () => {
      if (watchdog === undefined) return;
      killGroup(watchdog);
      liveGroups.delete(watchdog);
      watchdog = undefined;
    },
  };
}
