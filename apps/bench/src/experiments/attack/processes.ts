/**
 * The processes under attack: real `swim agent` processes (apps/cli) and a real WebSocket gateway
 * process (gateway-main.ts), each started with the in-process monitor (monitor.ts) preloaded. This
 * module follows their JSON logs, asks their monitors for figures, reads their memory from /proc
 * and notices when one exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { MonitorSample } from './monitor.js';

/** The repository root these processes run from (their cwd, and where `tsx` resolves). */
export const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const MONITOR = fileURLToPath(new URL('./monitor.ts', import.meta.url));
const GATEWAY_MAIN = fileURLToPath(new URL('./gateway-main.ts', import.meta.url));
const AGENT_MAIN = `${REPO_ROOT}apps/cli/src/main.ts`;
const NODE_ARGS = ['--import', 'tsx', '--import', MONITOR, '--conditions=@swim/source'];

/**
 * Fast timers, as `--config` overrides (the cli tests use the same): probe every 200 ms, gossip
 * every 50 ms, push-pull every 2 s, dead members reaped after 3 s.
 */
export const FAST_CONFIG: Readonly<Record<string, number>> = {
  probeIntervalMs: 200,
  probeTimeoutMs: 100,
  adaptiveTimeoutCeilingMs: 100,
  gossipIntervalMs: 50,
  pushPullIntervalMs: 2000,
  gossipToTheDeadMs: 3000,
  reconnectIntervalMs: 1000,
};

/** One line of a process's JSON log, with the time it reached us. */
export interface LogEntry {
  readonly receivedAt: number;
  readonly text: string;
}

export interface Watched {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every stdout line so far, unparsed (an agent under a flood logs 100,000 joins). */
  readonly log: LogEntry[];
  /** The parsed `start` line. */
  readonly start: Record<string, unknown>;
  /** Set once the process exited: its code, or the signal that ended it. */
  exit: { readonly code: number | null; readonly signal: string | null; readonly at: number } | undefined;
  readonly exited: Promise<void>;
  /** The last stderr output (an uncaught exception's stack ends up there). */
  stderrTail(): string;
}

export interface AgentProcess extends Watched {
  /** UDP/TCP address other members dial. */
  readonly address: string;
  /** The control endpoint, host:port. */
  readonly rpc: string;
}

const running = new Set<ChildProcess>();

/** SIGKILL these processes (those still running). */
export function killEach(procs: readonly Watched[]): void {
  for (const { child } of procs) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** SIGKILL every process this module started that still runs. */
export function killAll(): void {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  running.clear();
}

function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  // The suite talks to loopback control endpoints without a token; one from the user's shell would lock it out.
  delete env['SWIM_RPC_TOKEN'];
  return env;
}

async function watch(name: string, argv: readonly string[], startTimeoutMs: number, detached = false, env: Readonly<Record<string, string>> = {}): Promise<Watched> {
  const child = spawn(process.execPath, argv, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...childEnv(), ...env }, detached });
  running.add(child);
  const log: LogEntry[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8192);
  });
  // Replies from the monitor; the channel must not keep this process alive either.
  child.on('message', (message: unknown) => onMonitorReply(child, message));
  child.channel?.unref();
  let resolveExited!: () => void;
  const exited = new Promise<void>((resolve) => (resolveExited = resolve));
  const watched: Watched = {
    name,
    child,
    pid: child.pid ?? -1,
    log,
    start: {},
    exit: undefined,
    exited,
    stderrTail: () => stderr,
  };
  child.once('exit', (code, signal) => {
    watched.exit = { code, signal, at: Date.now() };
    running.delete(child);
    resolveExited();
  });
  const start = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${startTimeoutMs} ms: ${stderr}`)), startTimeoutMs);
    createInterface({ input: child.stdout! }).on('line', (text) => {
      log.push({ receivedAt: Date.now(), text });
      if (text.includes('"event":"start"')) {
        clearTimeout(timer);
        resolve(JSON.parse(text) as Record<string, unknown>);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${watched.exit?.code ?? watched.exit?.signal}) before starting: ${stderr}`));
    });
  });
  return Object.assign(watched, { start });
}

export interface AgentOptions {
  readonly join?: readonly string[];
  /** `--config` overrides on top of {@link FAST_CONFIG}. */
  readonly config?: Readonly<Record<string, number | string | boolean>>;
  /** `--tag key=value` pairs (the agent's metadata, as Serf tags). */
  readonly meta?: Readonly<Record<string, string>>;
  /** How long the agent may take to start (tsx compiles on a cold cache). Default 30 s. */
  readonly startTimeoutMs?: number;
  /**
   * A session of its own (setsid), for agents the caller SIGSTOPs: in ours, a stopped member makes
   * the kernel send SIGHUP to the whole process group when the group is orphaned (POSIX _exit).
   */
  readonly detached?: boolean;
  /** More modules to preload (`--import`, after tsx and the monitor), and environment variables for them. */
  readonly imports?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** Start `swim agent` from the sources (under tsx), on 127.0.0.1 port 0 with a port-0 control endpoint. */
export async function startAgent(name: string, options: AgentOptions = {}): Promise<AgentProcess> {
  const config = { ...FAST_CONFIG, ...options.config };
  const argv = [...NODE_ARGS, ...(options.imports ?? []).flatMap((m) => ['--import', m]), AGENT_MAIN, 'agent', '--name', name, '--bind', '127.0.0.1:0', '--rpc', '127.0.0.1:0', '--log', 'json', '--leave-timeout', '1000'];
  const meta = Object.entries(options.meta ?? {});
  argv.push(...meta.flatMap(([k, v]) => ['--tag', `${k}=${v}`]));
  argv.push(...Object.entries(config).flatMap(([k, v]) => ['--config', `${k}=${v}`]));
  if (options.join !== undefined && options.join.length > 0) argv.push('--join', options.join.join(','));
  const watched = await watch(name, argv, options.startTimeoutMs ?? 30_000, options.detached ?? false, options.env);
  return Object.assign(watched, { address: watched.start['address'] as string, rpc: watched.start['rpc'] as string });
}

/** A cluster: the first agent is the seed of the others; resolves once every agent sees every one alive. */
export async function startCluster(names: readonly string[], options: Omit<AgentOptions, 'join'> = {}, convergeMs = 30_000): Promise<AgentProcess[]> {
  const first = await startAgent(names[0]!, options);
  const rest = await Promise.all(names.slice(1).map((name) => startAgent(name, { ...options, join: [first.address] })));
  const agents = [first, ...rest];
  await until(`${names.join(', ')} see each other alive`, convergeMs, async () => {
    const views = await Promise.all(agents.map((a) => members(a)));
    return views.every((v) => names.every((n) => v.find((m) => m.name === n)?.state === 'alive'));
  });
  return agents;
}

export interface GatewayProcess extends Watched {
  /** The WebSocket URL clients connect to. */
  readonly url: string;
  /** The gateway process's own member (UDP/TCP), handed to clients as their seed. */
  readonly seed: string;
  readonly memberName: string;
  readonly token: string;
}

export interface GatewayOptions {
  readonly join?: readonly string[];
  readonly config?: Readonly<Record<string, number | string | boolean>>;
  /** Gateway options (createWsGateway), as JSON. */
  readonly gateway?: Readonly<Record<string, unknown>>;
  readonly startTimeoutMs?: number;
}

/** Start gateway-main.ts: a UDP member named `name` and a WebSocket gateway seeded with it. */
export async function startGateway(name: string, options: GatewayOptions = {}): Promise<GatewayProcess> {
  const token = 'attack-suite-join-token';
  const settings = { name, token, join: options.join ?? [], config: { ...FAST_CONFIG, ...options.config }, gateway: options.gateway ?? {} };
  const watched = await watch(name, [...NODE_ARGS, GATEWAY_MAIN, JSON.stringify(settings)], options.startTimeoutMs ?? 30_000);
  return Object.assign(watched, { url: watched.start['url'] as string, seed: watched.start['address'] as string, memberName: name, token });
}

// --- asking the processes ----------------------------------------------------------------------

let nextRequest = 1;
const pending = new Map<number, (reply: Record<string, unknown>) => void>();

function onMonitorReply(_child: ChildProcess, message: unknown): void {
  const reply = message as { id?: unknown } | null;
  if (typeof reply?.id !== 'number') return;
  const resolve = pending.get(reply.id);
  if (resolve === undefined) return;
  pending.delete(reply.id);
  resolve(reply as Record<string, unknown>);
}

/** Ask a process over IPC (`op` is answered by monitor.ts or gateway-main.ts); undefined if it is gone or silent. */
export async function ask<T>(proc: Watched, op: string, extra: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<T | undefined> {
  if (proc.exit !== undefined || !proc.child.connected) return undefined;
  const id = nextRequest++;
  const reply = new Promise<Record<string, unknown> | undefined>((resolve) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      resolve(undefined);
    }, timeoutMs);
    pending.set(id, (value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
  try {
    proc.child.send({ op, id, ...extra });
  } catch {
    pending.delete(id);
    return undefined;
  }
  return (await reply) as T | undefined;
}

/** The monitor's maxima since the last reset; `reset` starts a new window. */
export function sampleMonitor(proc: Watched, reset = false, timeoutMs = 10_000): Promise<MonitorSample | undefined> {
  return ask<MonitorSample>(proc, 'monitor', { reset }, timeoutMs);
}

/** Resident memory from /proc/PID/status: `VmRSS` now and `VmHWM`, its peak since the last {@link resetPeakRss}. */
export function rssOf(proc: Watched): { rssBytes: number; peakBytes: number } | undefined {
  try {
    const status = readFileSync(`/proc/${proc.pid}/status`, 'latin1');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rssBytes: kib('VmRSS'), peakBytes: kib('VmHWM') };
  } catch {
    return undefined;
  }
}

/** Reset the kernel's peak-RSS mark (VmHWM) of a process we own (proc(5): clear_refs, value 5). */
export function resetPeakRss(proc: Watched): boolean {
  try {
    writeFileSync(`/proc/${proc.pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Open file descriptors of a process (sockets included), from /proc. */
export function fdCount(proc: Watched): number | undefined {
  try {
    return readdirSync(`/proc/${proc.pid}/fd`).length;
  } catch {
    return undefined;
  }
}

export interface MemberEntry {
  readonly name: string;
  readonly address: string;
  readonly state: string;
  readonly incarnation: number;
}

/** GET /members from an agent's control endpoint; undefined if it does not answer in `timeoutMs`. */
export async function members(agent: AgentProcess, timeoutMs = 10_000): Promise<MemberEntry[]> {
  const reply = await getJson<{ members: MemberEntry[] }>(agent, '/members', timeoutMs);
  if (reply === undefined) throw new Error(`${agent.name} did not answer GET /members within ${timeoutMs} ms`);
  return reply.members;
}

/** GET `path` as JSON; undefined when the agent is gone or slow. */
export async function getJson<T>(agent: AgentProcess, path: string, timeoutMs = 10_000): Promise<T | undefined> {
  if (agent.exit !== undefined) return undefined;
  try {
    const res = await fetch(`http://${agent.rpc}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
    return (await res.json()) as T;
  } catch {
    return undefined;
  }
}

/** Log lines about `member` with `event` (join, dead, suspect, ...), parsed. */
export function logged(proc: Watched, event: string, member?: string): Array<{ time: number; member: MemberEntry }> {
  const eventText = `"event":"${event}"`;
  const memberText = member === undefined ? undefined : `"name":"${member}"`;
  const found: Array<{ time: number; member: MemberEntry }> = [];
  for (const { text } of proc.log) {
    if (!text.includes(eventText) || (memberText !== undefined && !text.includes(memberText))) continue;
    const line = JSON.parse(text) as { time: string; member?: MemberEntry };
    if (line.member !== undefined && (member === undefined || line.member.name === member)) found.push({ time: Date.parse(line.time), member: line.member });
  }
  return found;
}

/** Log lines whose member name starts with `prefix` and whose event is `event` (cheap: no parsing). */
export function countLogged(proc: Watched, event: string, prefix: string): number {
  const eventText = `"event":"${event}"`;
  const nameText = `"name":"${prefix}`;
  let count = 0;
  for (const { text } of proc.log) if (text.includes(eventText) && text.includes(nameText)) count++;
  return count;
}

/** Poll `check` every 50 ms until it holds; throws after `limitMs`. Resolves with the time it took. */
export async function until(what: string, limitMs: number, check: () => boolean | Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > limitMs) throw new Error(`timed out after ${limitMs} ms waiting until ${what}`);
    await delay(50);
  }
}

/** Like {@link until}, but false instead of throwing when the limit passes. */
export async function within(limitMs: number, check: () => boolean | Promise<boolean>): Promise<number | undefined> {
  try {
    return await until('', limitMs, check);
  } catch {
    return undefined;
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
